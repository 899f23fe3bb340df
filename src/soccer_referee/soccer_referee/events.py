"""What the referee decides, as events (logged, published, shown by monitors)."""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class FoulType(IntEnum):
    """SimSpark foul type ids as sent to monitors."""

    CROWDING = 0
    TOUCHING = 1
    ILLEGAL_DEFENCE = 2
    ILLEGAL_ATTACK = 3
    INCAPABLE = 4
    KICK_OFF = 5
    CHARGING = 6
    SELF_COLLISION = 7


@dataclass(frozen=True, slots=True)
class GameEvent:
    time: float  # game time
    kind: str  # goal, foul, play_mode, refused, sides_swapped, half_time
    team: str = ""  # left / right
    unum: int = 0
    detail: str = ""
