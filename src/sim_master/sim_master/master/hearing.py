"""Say/hear between players with the SimSpark rules (rcssserver3d 0.7 `SoccerRuleAspect::
Broadcast`): 1-20 printable characters without space or parentheses, 50 m range, and per
listener two channels (team-mates, opponents) that each pass one message every 2 cycles."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Final

from sim_contracts.percept import Heard

MAX_LENGTH: Final = 20
RANGE_M: Final = 50.0
CHANNEL_CAPACITY: Final = 2  # +1 per cycle, -2 per accepted message


@dataclass(slots=True)
class Utterance:
    speaker: str  # agent id
    team: str  # speaker's team name
    side: str  # left / right
    x: float
    y: float
    message: str


@dataclass(slots=True)
class SaidMessage:
    """A say message of one cycle as monitors show it: who said it and who heard it."""
    side: str
    unum: int
    team: str
    message: str
    heard_by: list[tuple[str, int]]  # (side, unum) of every other player it reached


@dataclass(slots=True)
class Listener:
    agent_id: str
    side: str
    x: float
    y: float


def say_error(message: str, max_length: int = MAX_LENGTH) -> str | None:
    """Why a say message is refused, or None when it may be broadcast."""
    if not 1 <= len(message) <= max_length:
        return f"say message must have 1..{max_length} characters, got {len(message)}"
    bad = [c for c in message if not (0x20 < ord(c) <= 0x7E) or c in "()"]
    if bad:
        return f"say message has illegal characters {''.join(sorted(set(bad)))!r}"
    return None


@dataclass(slots=True)
class Hearing:
    """Delivers one cycle's utterances; keeps the channel budgets between cycles."""

    max_length: int = MAX_LENGTH
    range_m: float = RANGE_M
    _budget: dict[tuple[str, bool], int] = field(default_factory=dict)
    # of the last deliver: per utterance (same order), the agents other than its speaker that
    # heard it (what monitors show)
    heard_by: list[list[str]] = field(default_factory=list)

    def deliver(self, utterances: list[Utterance], listeners: list[Listener],
                game_time: float) -> dict[str, list[Heard]]:
        for key in list(self._budget):
            self._budget[key] = min(CHANNEL_CAPACITY, self._budget[key] + 1)
        heard: dict[str, list[Heard]] = {}
        self.heard_by = [[] for _ in utterances]
        for listener in listeners:
            chosen: dict[bool, tuple[int, Heard]] = {}
            for index, u in enumerate(utterances):
                if u.speaker == listener.agent_id:
                    heard.setdefault(listener.agent_id, []).append(Heard(
                        time=game_time, direction=0.0, message=u.message, from_self=True,
                        from_teammate=True, team=u.team))
                    continue
                dx, dy = u.x - listener.x, u.y - listener.y
                if math.hypot(dx, dy) > self.range_m:
                    continue
                if listener.side == "right":  # the right team's frame is rotated by 180 deg
                    dx, dy = -dx, -dy
                mate = u.side == listener.side
                chosen[mate] = (index, Heard(time=game_time, direction=math.degrees(math.atan2(dy, dx)),
                                             message=u.message, from_self=False, from_teammate=mate,
                                             team=u.team))  # the last one wins, as in the reference
            for mate, (index, message) in chosen.items():
                key = (listener.agent_id, mate)
                if self._budget.get(key, CHANNEL_CAPACITY) >= CHANNEL_CAPACITY:
                    self._budget[key] = self._budget.get(key, CHANNEL_CAPACITY) - 2
                    heard.setdefault(listener.agent_id, []).append(message)
                    self.heard_by[index].append(listener.agent_id)
        return heard

    def forget(self, agent_id: str) -> None:
        for mate in (True, False):
            self._budget.pop((agent_id, mate), None)
