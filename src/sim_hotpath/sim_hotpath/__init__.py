"""The per-agent work of a simulation cycle, compiled (the C++ module `_hotpath`, built by
colcon in `make setup`): vision for every seeing robot in one pass, both dialects' perception
text, their every-cycle effector messages and those commands into a robot's controller
arrays, ROS players' percepts and joint commands as CDR, every sensing foot's FRP and every
IMU after a step, and the monitor frames' transforms. Callers: sim_master's engine nodes and
monitor scene, sim_bridge's dialects; they keep the contracts and the control flow
(docs/speed.md). `_rcl_bell` (ROS code only) tells which subscriptions have messages."""
from sim_hotpath._hotpath import (
    JOINT_COMMAND_TYPE_HASH,
    PERCEPT_TYPE_HASH,
    Figures,
    VisionKernel,
    command_pd,
    command_speeds,
    contact_owners,
    encode_rcsssmj_percept,
    encode_simspark_percept,
    foot_readings,
    imu_readings,
    joint_command_from_cdr,
    parse_rcsssmj_motors,
    parse_simspark_hinges,
    percept_cdr,
    percept_from_cdr,
    slt_texts,
    state_health,
)

__all__ = ["JOINT_COMMAND_TYPE_HASH", "PERCEPT_TYPE_HASH",
           "Figures", "VisionKernel", "command_pd", "command_speeds", "contact_owners", "encode_rcsssmj_percept",
           "encode_simspark_percept", "foot_readings", "imu_readings", "joint_command_from_cdr",
           "parse_rcsssmj_motors", "parse_simspark_hinges",
           "percept_cdr", "percept_from_cdr", "slt_texts", "state_health"]
