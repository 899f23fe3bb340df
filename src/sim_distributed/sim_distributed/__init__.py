"""Distributed mode: a master and simulation nodes on several hosts, stepped in lockstep over
DDS (barrier.py's rules), their snapshots cached in Redis for resync, the SimPy swarm engine
they may run. A package of its own so single mode (sim_master) carries none of it; it builds
on sim_master's ROS conversions, log format and behaviour-tree loader."""
