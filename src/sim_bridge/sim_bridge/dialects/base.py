"""What a dialect provides to the agent server."""
from __future__ import annotations

from typing import Protocol

from sim_contracts.agents import PlayerRules
from sim_contracts.commands import Command, Syn
from sim_contracts.percept import Percept


class Dialect(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def default_port(self) -> int:
        """Its agents' TCP port on the reference server (3100, 60000)."""
        ...

    @property
    def vision_interval(self) -> int:
        """A perception carries vision every Nth cycle (per connection)."""
        ...

    @property
    def any_message_syncs(self) -> bool:
        """rcsssmj: one message per cycle is the sync; SimSpark needs (syn)."""
        ...

    @property
    def effector_delay(self) -> int:
        """Cycles between receiving an effector command (in reply to perception k) and the
        step it drives: 1 on both references, so it first shows in perception k + 2."""
        ...

    @property
    def rules(self) -> PlayerRules:
        """How its agents join, see and are placed: what the loop applies to them."""
        ...

    def parse_actions(self, payload: bytes) -> tuple[list[Command], list[str]]:
        """Commands of one message, and one error text per part that was refused."""
        ...

    def encode_percept(self, percept: Percept) -> bytes: ...


def compiled_commands(syns: int, joints: Command | None) -> tuple[list[Command], list[str]]:
    """parse_actions' result for an every-cycle message the compiled parser read: its (syn)
    commands, then the joint command (the order the full parser gives), no errors."""
    commands: list[Command] = [Syn() for _ in range(syns)]
    if joints is not None:
        commands.append(joints)
    return commands, []
