"""The built-in teams by name: which robot each plays and how its players' brains are made.

"base": the base team's Nao humanoids (soccer_team: walk, kick, get-up, localisation, the
shared strategy tree); "demo": the light wheeled pushers, for tests and quick looks."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sim_master.master.adapters import LocalBrain


@dataclass(frozen=True, slots=True)
class BuiltInTeam:
    model: str  # the robot model each player asks for
    make: Callable[[str, int, float, float, float], LocalBrain]  # side, unum, field length, width, goal width


def _base(side: str, unum: int, length: float, width: float, goal_width: float) -> LocalBrain:
    from soccer_team.player import NaoBrain
    return NaoBrain(side, unum, length, width, goal_width)


def _demo(side: str, unum: int, length: float, width: float, goal_width: float) -> LocalBrain:
    from sim_tools.demo.brain import PusherBrain
    return PusherBrain(side, unum, length, width, goal_width)


TEAMS: dict[str, BuiltInTeam] = {"base": BuiltInTeam("nao", _base), "demo": BuiltInTeam("pusher", _demo)}
