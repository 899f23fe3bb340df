"""The built-in teams by name: which robot each plays and how its players' brains are made.

"base": the base team's Nao humanoids (soccer_team: walk, kick, get-up, localisation, the
shared strategy tree), each shirt number its nao_hetero type (soccer_team.roster, or the types
asked for); "demo": the light wheeled pushers, for tests and quick looks (robot types do not
apply)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sim_master.master.adapters import LocalBrain

# side, unum, field length, width, goal width, the robot model the player plays
MakeBrain = Callable[[str, int, float, float, float, str], LocalBrain]


@dataclass(frozen=True, slots=True)
class BuiltInTeam:
    model_of: Callable[[Sequence[int] | None, int], str]  # (robot types asked for or None, unum) -> model
    make: MakeBrain


def _base_model(robot_types: Sequence[int] | None, unum: int) -> str:
    from soccer_team.roster import ROBOT_TYPES, model_of
    return model_of(ROBOT_TYPES if robot_types is None else robot_types, unum)


def _base(side: str, unum: int, length: float, width: float, goal_width: float, model: str) -> LocalBrain:
    from soccer_team.player import NaoBrain
    return NaoBrain(side, unum, length, width, goal_width, model=model)


def _demo(side: str, unum: int, length: float, width: float, goal_width: float, model: str) -> LocalBrain:
    from sim_tools.demo.brain import PusherBrain
    return PusherBrain(side, unum, length, width, goal_width)


TEAMS: dict[str, BuiltInTeam] = {"base": BuiltInTeam(_base_model, _base),
                                 "demo": BuiltInTeam(lambda _types, _unum: "pusher", _demo)}
