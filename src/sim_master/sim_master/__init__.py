"""Simulation master: the loop that steps the world (sim_physics), single and distributed
mode, the ROS nodes, logs, and the soccersim command."""
