"""Simulation master: MuJoCo engine, worlds, single and distributed mode, logs, and the soccersim command."""
