"""The per-agent work of a simulation cycle, compiled (the C++ module `_hotpath`, built by
colcon in `make setup`): vision for every seeing robot in one pass, SimSpark perception text,
SimSpark's hinge speed messages and their speeds into a robot's controller arrays. Callers: sim_master.engine.vision and
sim_bridge.dialects.simspark, which keep the contracts and the control flow."""
from sim_hotpath._hotpath import Figures, VisionKernel, command_speeds, encode_simspark_percept, parse_simspark_hinges

__all__ = ["Figures", "VisionKernel", "command_speeds", "encode_simspark_percept", "parse_simspark_hinges"]
