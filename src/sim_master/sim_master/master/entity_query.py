"""Which entities a tool asks for, and what it is told about each: one rule for every surface
that lists entities (the ROS simulation standard's get_entities, the gRPC Entities.List).

Why a room of its own: a name filter is a regular expression from outside. RE2 matches in
time linear in the name whatever the pattern (a filter such as ^(a+)+$ that backtracks for
ever in Python's re would freeze the loop's thread), and its length is bounded; categories and
tags are the simulation standard's. Runs on the loop's thread."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

import re2
from sim_physics.snapshot import EntitySnapshot

from sim_contracts import names

if TYPE_CHECKING:
    from sim_master.master.loop import SimulationLoop

MAX_FILTER: Final = 1024  # characters of a name filter
ROBOT: Final = "robot"
DYNAMIC_OBJECT: Final = "dynamic_object"
CATEGORIES: Final = (ROBOT, DYNAMIC_OBJECT)


@dataclass(frozen=True, slots=True)
class Described:
    """What the standard says about an entity: its category, tags and a description."""

    category: str
    tags: tuple[str, ...]
    description: str


def describe(loop: SimulationLoop, name: str) -> Described:
    """Tags: ball, player, the team and side of a player, spawned or agent, the model."""
    if name == names.BALL:
        return Described(DYNAMIC_OBJECT, ("ball",), "the ball")
    model = loop.engine.robot_model(name)
    player = loop.players.by_robot(name)
    if player is not None and player.registered:
        return Described(ROBOT, ("player", player.team, player.side, model),
                         f"{model} of {player.team} #{player.unum} ({player.side})")
    tags = ("spawned", model) if name in loop.entities.spawned else ("agent", model)
    return Described(ROBOT, tags, f"{model} ({tags[0]})")


class QueryError(ValueError):
    """A filter this server does not take (too long, not RE2, an unknown category)."""


@dataclass(frozen=True, slots=True)
class EntityQuery:
    pattern: str = ""  # RE2, searched in the name
    categories: frozenset[str] = frozenset()
    tags: frozenset[str] = frozenset()
    all_tags: bool = False
    inside: Callable[[tuple[float, float, float]], bool] = field(default=lambda _: True)

    def compiled(self) -> re2._Regexp | None:
        """The name filter, checked (QueryError) before the loop is asked."""
        if len(self.pattern) > MAX_FILTER:
            raise QueryError(f"filter longer than {MAX_FILTER} characters")
        unknown = self.categories - set(CATEGORIES)
        if unknown:
            raise QueryError(f"unknown category {sorted(unknown)[0][:40]!r}: one of {', '.join(CATEGORIES)}")
        try:
            return re2.compile(self.pattern) if self.pattern else None
        except re2.error as exc:
            raise QueryError(f"bad filter: {exc}") from None


def picks(query: EntityQuery, pattern: re2._Regexp | None, name: str, position: tuple[float, float, float],
          described: Callable[[str], Described]) -> bool:
    """Whether the query picks this entity (`described` is asked only when categories or tags
    are part of the query)."""
    if pattern is not None and not pattern.search(name):
        return False
    if query.categories or query.tags:
        d = described(name)
        if query.categories and d.category not in query.categories:
            return False
        have = query.tags & set(d.tags)
        if query.tags and not (have == query.tags if query.all_tags else have):
            return False
    return query.inside(position)


def select(loop: SimulationLoop, query: EntityQuery,
           pattern: re2._Regexp | None) -> tuple[list[EntitySnapshot], int, float]:
    """(the entities the query picks, in the world's order; the cycle; the time)."""
    snap = loop.engine.snapshot()
    chosen = [e for e in snap.entities.values()
              if picks(query, pattern, e.name, e.position, lambda n: describe(loop, n))]
    return chosen, snap.step, snap.time
