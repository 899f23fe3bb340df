"""Distributed mode: a master and simulation nodes stepped in lockstep over DDS."""
