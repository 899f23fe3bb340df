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
    side: str
    unum: int
    x: float
    y: float
    rotation: float = 0.0


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
