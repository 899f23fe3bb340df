"""What the simulation loop asks of its referee, wherever it judges, and the one boundary
every request passes before any host acts on it.

Why a base class, not a protocol: the referee judges in the server's process
(`referee.Referee`, also what `referee_node` runs) or in its own, reached over DDS
(sim_master's `RemoteReferee`). Both derive from `RefereeHost`, whose public calls check
what they are given (`checks.py`) and hand the implementation only checked values, so no
host can lack a check another has. The loop, the monitors and the services are written
against this class, never against one of its hosts."""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol

from sim_contracts.agents import BeamFrame
from sim_contracts.field import FieldSpec
from soccer_referee.checks import SIDES, beam_problem, command_problem, registration_problem, step_problem
from soccer_referee.commands import CommandResult, RefereeCommand
from soccer_referee.events import GameEvent
from soccer_referee.game_state import BeamDecision, GameStateSnapshot
from soccer_referee.registry import Registration
from soccer_referee.rules import RuleBook


class TeamSides(Protocol):
    def side_of(self, team: str) -> str: ...


class RefereeHost(ABC):
    """A referee the loop can ask: register, unregister, beam, command, step."""

    __slots__ = ()
    rules: RuleBook
    field: FieldSpec
    state: GameStateSnapshot
    registry: TeamSides

    def register(self, team: str, unum: int) -> Registration:
        problem = registration_problem(team, unum, self.rules.players_per_side)
        return Registration(False, error=problem) if problem else self._register(team, unum)

    def unregister(self, side: str, unum: int) -> None:
        """Any number the host handed out leaves (a referee in another process may count
        players by another rule book: it decides)."""
        if side in SIDES and isinstance(unum, int) and not isinstance(unum, bool):
            self._unregister(side, unum)

    def request_beam(self, side: str, unum: int, x: float, y: float, rot_deg: float, *,
                     frame: BeamFrame = BeamFrame.TEAM) -> BeamDecision:
        problem = beam_problem(side, unum, x, y, rot_deg)
        if problem:
            return BeamDecision(False, error=problem)
        return self._request_beam(side, unum, float(x), float(y), float(rot_deg), frame)

    def command(self, cmd: RefereeCommand) -> CommandResult:
        problem = command_problem(cmd, self.field)
        return CommandResult(False, problem) if problem else self._command(cmd)

    def step(self, dt: float) -> list[GameEvent]:
        problem = step_problem(dt)
        if problem:
            raise ValueError(problem)
        return self._step(float(dt))

    # what each host does with checked values
    @abstractmethod
    def _register(self, team: str, unum: int) -> Registration: ...
    @abstractmethod
    def _unregister(self, side: str, unum: int) -> None: ...
    @abstractmethod
    def _request_beam(self, side: str, unum: int, x: float, y: float, rot_deg: float,
                      frame: BeamFrame) -> BeamDecision: ...
    @abstractmethod
    def _command(self, cmd: RefereeCommand) -> CommandResult: ...
    @abstractmethod
    def _step(self, dt: float) -> list[GameEvent]: ...

