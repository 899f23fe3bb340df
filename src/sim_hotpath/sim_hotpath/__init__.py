"""The per-agent work of a simulation cycle, compiled (the C++ module `_hotpath`, built by
colcon in `make setup`): vision for every seeing robot in one pass, SimSpark perception text,
SimSpark's hinge speed messages and their speeds into a robot's controller arrays, and
every sensing foot's FRP and every IMU after a step. Callers: sim_master's engine nodes
and sim_bridge.dialects.simspark, which keep the contracts and the control flow."""
from sim_hotpath._hotpath import (
    Figures,
    VisionKernel,
    command_speeds,
    encode_simspark_percept,
    foot_readings,
    imu_readings,
    parse_simspark_hinges,
)

__all__ = ["Figures", "VisionKernel", "command_speeds", "encode_simspark_percept", "foot_readings", "imu_readings",
           "parse_simspark_hinges"]
