"""The referee's view of the physical world and the only ways it may change it.

The referee never imports an engine: the master adapts the engine to this protocol
(and the tests use real engines through the same adapter). Positions are global:
x toward the right goal, origin at the centre spot, z up.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

Side = Literal["left", "right"]
Vec3 = tuple[float, float, float]
PlayerId = tuple[Side, int]  # (side, unum)


def as_side(text: str) -> Side:
    """A side named in text (a message, a registry key): left or right, else ValueError."""
    if text == "left":
        return "left"
    if text == "right":
        return "right"
    raise ValueError(f"not a side: {text!r}")


@dataclass(slots=True)
class PlayerView:
    """One registered robot as the referee sees it."""

    side: Side
    unum: int
    position: Vec3  # torso centre, global
    velocity: Vec3  # torso linear velocity, global
    yaw_deg: float = 0.0  # heading of the robot's forward axis, global, deg
    can_fall: bool = True  # humanoids; wheeled robots are never "fallen"


class WorldView(Protocol):
    """Read access to the world plus the referee's effectors (teleports)."""

    def ball_position(self) -> Vec3: ...

    def ball_velocity(self) -> Vec3: ...

    def players(self) -> Sequence[PlayerView]: ...

    def ball_touchers(self) -> Sequence[PlayerId]:
        """Players whose robot touched the ball during the last cycle."""
        ...

    def player_contacts(self) -> Sequence[tuple[PlayerId, PlayerId]]:
        """Pairs of robots of different players in contact during the last cycle."""
        ...

    def move_ball(self, position: Vec3, velocity: Vec3 = (0.0, 0.0, 0.0)) -> None: ...

    def move_player(self, side: Side, unum: int, x: float, y: float, yaw_deg: float | None, *,
                    z: float | None = None, upright: bool = False,
                    orientation: tuple[float, float, float, float] | None = None,
                    zero_joints: bool = False, beside: bool = False) -> None:
        """Carry a robot to (x, y), velocities zeroed; by default as it is (height, posture,
        tilt), turned to `yaw_deg` (None: its heading kept). The keywords are the trainer
        commands' extras, as `commands.MoveAgent` documents them; `beside`: a trainer's move,
        put beside a robot already standing there (the rules' own moves are made exactly)."""
        ...
