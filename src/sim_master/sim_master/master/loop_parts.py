"""The loop's parts as the objects it owns see them (control, entity services).

Why a protocol of its own: `loop.control` and `loop.entities` act on the same parts of the
loop (engine, players, referee, agent ports) and must not be handed the whole loop; each
object's host protocol extends this with the little more it needs."""
from __future__ import annotations

from typing import Protocol

from sim_physics.engine.node import SimulationNode

from sim_master.master.adapters import AgentTransport
from sim_master.master.players import PlayerTable, Source
from soccer_referee.service import RefereeHost


class LoopParts(Protocol):
    @property
    def engine(self) -> SimulationNode: ...
    @property
    def players(self) -> PlayerTable: ...
    @property
    def referee(self) -> RefereeHost:
        """The loop's referee (an operator may have it judge in another process)."""
        ...
    @property
    def transports(self) -> dict[Source, AgentTransport]: ...
