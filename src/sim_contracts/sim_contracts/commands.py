"""What an agent can ask for, already interpreted for its dialect (units: rad, rad/s, m)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Scene:
    rsg: str
    robot_type: int = 0


@dataclass(slots=True)
class InitPlayer:
    team: str
    unum: int
    model: str = ""  # rcsssmj: the model named in init; SimSpark: from the preceding scene


@dataclass(slots=True)
class Beam:
    x: float
    y: float
    rotation_deg: float


@dataclass(slots=True)
class JointVelocities:
    speeds: dict[str, float]  # effector name -> rad/s


@dataclass(slots=True)
class JointTargets:
    targets: dict[str, tuple[float, float, float, float, float]]  # q rad, dq rad/s, kp, kd, tau


@dataclass(slots=True)
class Say:
    message: str


@dataclass(slots=True)
class Syn:
    pass


@dataclass(slots=True)
class Pass:
    pass


Command = Scene | InitPlayer | Beam | JointVelocities | JointTargets | Say | Syn | Pass
