"""What plugs into the simulation loop: agent transports, percept outlets, loop adapters.

Why: the loop core knows no ROS, no sockets and no file formats. The TCP agent ports, the
ROS node, the monitors, the browser monitor, the service port and the replay log are
adapters registered by the command that starts the server (`sim_master.server`), in the
manner of gz-sim's systems: each sees the phases it cares about and nothing else.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from sim_contracts.agents import AgentEvent, PlayerRules
from sim_contracts.commands import Command
from sim_contracts.percept import Percept

if TYPE_CHECKING:
    import logging
    from collections.abc import Iterator

    from sim_physics.engine.node import EngineView

    from sim_contracts.field import FieldSpec
    from sim_master.master.hearing import SaidMessage
    from sim_master.master.players import Player
    from soccer_referee.commands import RefereeCommand
    from soccer_referee.events import GameEvent
    from soccer_referee.game_state import GameStateSnapshot
    from soccer_referee.rules import RuleBook
    from soccer_referee.service import TeamSides


class PerceptOutlet(Protocol):
    """Where the percepts of one source's players go (perceive phase)."""

    def wants_vision(self, agent_id: str) -> bool: ...
    def send_percept(self, agent_id: str, percept: Percept) -> None: ...


class LocalBrain(Protocol):
    """A player that thinks inside the server's process (the built-in demo team)."""

    def home(self) -> tuple[float, float, float]:
        """Where it is beamed when it joins: x, y (m) and heading (deg)."""
        ...

    def wants_vision(self) -> bool: ...
    def act(self, percept: Percept) -> dict[str, float]:
        """Joint speeds (rad/s by effector name) in answer to this cycle's percept."""
        ...

    def set_side(self, side: str) -> None:
        """Its team now plays on `side` (half time)."""
        ...

    def beam_request(self) -> tuple[float, float, float] | None:
        """A beam it sends with its last answer (x, y in m, heading in deg; the team's frame),
        checked by the referee as any player's beam; None: no beam."""
        ...


class AgentTransport(PerceptOutlet, Protocol):
    """A port agents connect to and command through (collect phase), e.g. a dialect's TCP port."""

    sync_timeout: float  # sync mode: how long a cycle waits for an agent's (syn), s (a live setting)

    @property
    def effector_delay(self) -> int: ...
    @property
    def rules(self) -> PlayerRules:
        """The rules of the agents this transport serves (its dialect's)."""
        ...
    def poll(self, timeout: float = 0.0) -> list[AgentEvent]: ...
    def collect_cycle(self, deadline_s: float | None = None,
                      stop: threading.Event | None = None) -> list[AgentEvent]: ...
    def has_agents(self) -> bool: ...
    def mark_registered(self, agent_id: str) -> None: ...
    def disconnect(self, agent_id: str, reason: str) -> None: ...
    def close(self) -> None: ...


class RefereeView(Protocol):
    """What adapters read of the referee: the game state and the figures it judges by."""

    @property
    def state(self) -> GameStateSnapshot: ...
    @property
    def rules(self) -> RuleBook: ...
    @property
    def field(self) -> FieldSpec: ...
    @property
    def registry(self) -> TeamSides: ...


class PlayersView(Protocol):
    """The players as adapters see them."""

    def get(self, agent_id: str) -> Player | None: ...
    def with_robots(self) -> list[Player]: ...
    def __iter__(self) -> Iterator[Player]: ...


class CycleView(Protocol):
    """What an adapter's hooks are given: the finished cycle, read-only (the engine, the
    referee, the players, what was said). The loop meets it; nothing here changes the match."""

    @property
    def engine(self) -> EngineView: ...
    @property
    def referee(self) -> RefereeView: ...
    @property
    def players(self) -> PlayersView: ...
    @property
    def paused(self) -> bool: ...
    @property
    def log(self) -> logging.Logger: ...
    @property
    def said(self) -> Sequence[SaidMessage]: ...


class LoopCommands(Protocol):
    """The operator's commands an adapter may pass on from its users (monitors, pages): the
    narrow way back into the loop, each checked there as from any other surface."""

    def referee_command(self, command: RefereeCommand) -> str | None: ...
    def pause(self) -> None: ...
    def play(self) -> None: ...
    def request_stop(self) -> None: ...


class OperatedLoop(CycleView, Protocol):
    """What `poll` is given: the view and the commands (the loop's control)."""

    @property
    def control(self) -> LoopCommands: ...


class LoopAdapter:
    """A part of the server that watches the loop or feeds it operator input.

    Every hook runs on the loop's thread; the defaults do nothing, so an adapter overrides
    only the phases it needs. An exception in a hook is the adapter's fault: the loop logs
    it and goes on (one fault boundary per adapter)."""

    name = "adapter"

    def poll(self, loop: OperatedLoop) -> None:
        """Between and during cycles: take operator input (monitor commands, service calls)."""

    def before_cycle(self, loop: OperatedLoop) -> None:
        """Once as each cycle begins, before the loop decides whether to step (also while
        paused or waiting for the teams): work measured in cycles, not in polls."""

    def on_effector(self, loop: CycleView, player: Player, command: Command) -> None:
        """An agent's effector command was applied (apply phase)."""

    def on_percept(self, loop: CycleView, player: Player, percept: Percept) -> None:
        """A percept was sent to a player (perceive phase)."""

    def on_player_left(self, loop: CycleView, agent_id: str) -> None:
        """A player and its robot are gone."""

    def on_cycle(self, loop: CycleView, events: Sequence[GameEvent]) -> None:
        """The cycle is done (publish phase): the world, the game state and its events."""

    def on_setting(self, name: str, value: object) -> None:
        """A live setting changed (between cycles, already checked): `tf_rate`, `log_players`,
        `sync_timeout`."""

    def close(self) -> None:
        """The server stops."""
