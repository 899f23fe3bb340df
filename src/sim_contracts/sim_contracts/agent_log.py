"""What the server says about one agent, bounded: the log is for people, and an agent (or an
attacker) must not be able to fill the disk or slow the loop by making it talk.

Each distinct complaint about an agent is said once (agents repeat a bad command every
cycle), at most BURST lines per agent in a burst and RATE lines per second after it, each
cut to MAX_TEXT characters; what is held back is counted and said in one line when the
agent talks again after a quiet spell, or when it leaves.

Why in the contracts: the server's loop and the separate bridge (`bridge_node`) both speak
about agents; one budget rule serves both."""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Final

from sim_contracts.logtext import clip

BURST: Final = 20  # lines an agent may cause at once
RATE: Final = 1.0  # lines per second an agent may cause afterwards
MAX_REMEMBERED: Final = 256  # distinct complaints remembered per agent (not one per unknown name)


@dataclass(slots=True)
class _Budget:
    tokens: float = BURST
    stamp: float = field(default_factory=time.monotonic)
    held_back: int = 0
    seen: set[str] = field(default_factory=set)


class AgentLog:
    """Per-agent rate-limited warnings; `forget` when the agent leaves."""

    def __init__(self, log: logging.Logger) -> None:
        self.log = log
        self._budgets: dict[str, _Budget] = {}

    def warn(self, agent_id: str, text: str, *, once: bool = False) -> bool:
        """Log `agent <id>: <text>` within the agent's budget; True when it was logged.
        `once`: a complaint already said about this agent is not said again."""
        budget = self._budgets.get(agent_id)
        if budget is None:
            budget = self._budgets[agent_id] = _Budget()
        text = clip(text)
        if once:
            if text in budget.seen:
                return False
            if len(budget.seen) < MAX_REMEMBERED:
                budget.seen.add(text)
        now = time.monotonic()
        budget.tokens = min(BURST, budget.tokens + (now - budget.stamp) * RATE)
        budget.stamp = now
        if budget.tokens < 1.0:
            budget.held_back += 1
            return False
        budget.tokens -= 1.0
        if budget.held_back:
            self.log.warning("agent %s: %d more complaints were not logged", agent_id, budget.held_back)
            budget.held_back = 0
        self.log.warning("agent %s: %s", agent_id, text)
        return True

    def forget(self, agent_id: str) -> None:
        budget = self._budgets.pop(agent_id, None)
        if budget is not None and budget.held_back:
            self.log.warning("agent %s: %d more complaints were not logged", agent_id, budget.held_back)
