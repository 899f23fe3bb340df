"""What the simulation loop asks of its referee, wherever it judges.

Why a protocol: the referee judges in the server's process (`referee.Referee`) or in its own
(`referee_node`, reached through sim_master's RemoteReferee); the loop, the monitors and the
services are written against this, never against one of them."""
from __future__ import annotations

from typing import Protocol

from sim_contracts.agents import BeamFrame
from sim_contracts.field import FieldSpec
from soccer_referee.commands import CommandResult, RefereeCommand
from soccer_referee.events import GameEvent
from soccer_referee.referee import BeamDecision, GameStateSnapshot
from soccer_referee.registry import Registration
from soccer_referee.rules import RuleBook


class TeamSides(Protocol):
    def side_of(self, team: str) -> str: ...


class JudgingReferee(Protocol):
    rules: RuleBook
    field: FieldSpec
    state: GameStateSnapshot

    @property
    def registry(self) -> TeamSides: ...

    def register(self, team: str, unum: int) -> Registration: ...
    def unregister(self, side: str, unum: int) -> None: ...
    def request_beam(self, side: str, unum: int, x: float, y: float, rot_deg: float, *,
                     frame: BeamFrame = BeamFrame.TEAM) -> BeamDecision: ...
    def command(self, cmd: RefereeCommand) -> CommandResult: ...
    def step(self, dt: float) -> list[GameEvent]: ...
