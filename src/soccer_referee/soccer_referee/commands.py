"""Operator and monitor commands the referee accepts (or refuses with a reason)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sim_contracts import names


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


def entity_move(entity: str, position: tuple[float, float, float], rotation: float,
                velocity: tuple[float, float, float], side_of: Callable[[str], str]) -> RefereeCommand | str:
    """An operator's move_entity as the referee's command (or why it names nothing to move):
    the ball, or a player's robot by its entity name `<team>/p<unum>` on the side its team
    plays (`side_of`, the registry's). Every host of the referee's services reads it here."""
    if entity == names.BALL:
        return MoveBall(position, velocity)
    player = names.parse_player_entity(entity)
    side = side_of(player[0]) if player is not None else ""
    if player is None or not side:
        return f"unknown player {entity!r}: use 'ball' or a player's '<team>/p<unum>'"
    return MoveAgent(side, player[1], position[0], position[1], rotation)
