"""Operator and monitor commands the referee accepts (or refuses with a reason)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class KickOff:
    side: str | None = None  # left / right / None: the side whose turn it is


@dataclass(frozen=True, slots=True)
class SetPlayMode:
    name: str


@dataclass(frozen=True, slots=True)
class DropBall:
    pass


@dataclass(frozen=True, slots=True)
class MoveBall:
    position: tuple[float, float, float]
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)


@dataclass(frozen=True, slots=True)
class MoveAgent:
    """Put a player's robot at (x, y). The references' trainer commands differ in what else
    they set, so each is spelled out here:

    - `rotation`: the heading in degrees (0 faces +x); None keeps the robot's heading
      (rcssserver3d's `(pos x y z)`).
    - `z`: the height of the robot's root body; None keeps its height (a referee's move).
    - `upright`: the root body is set level, turned to the heading (rcssserver3d's
      `(move x y z deg)`, rcsssmj's `(pos ..)` and `(move ..)`); otherwise the robot keeps its
      tilt and posture, as carried.
    - `orientation`: the root body's quaternion (w, x, y, z) instead (rcsssmj's `(move3d ..)`).
    - `zero_joints`: every joint set to 0 (rcsssmj does this on every monitor move).
    """

    side: str
    unum: int
    x: float
    y: float
    rotation: float | None = 0.0
    z: float | None = None
    upright: bool = False
    orientation: tuple[float, float, float, float] | None = None
    zero_joints: bool = False


@dataclass(frozen=True, slots=True)
class SetTime:
    time: float


@dataclass(frozen=True, slots=True)
class SetScore:
    left: int
    right: int


@dataclass(frozen=True, slots=True)
class CommandResult:
    ok: bool
    error: str = ""


RefereeCommand = KickOff | SetPlayMode | DropBall | MoveBall | MoveAgent | SetTime | SetScore
