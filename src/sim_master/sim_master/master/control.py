"""Control of a running simulation: pause, step while paused, and the operator's commands to
the referee (play modes, beams, trainer moves).

Why a room of its own: operators (monitors, the browser, the service port, ROS services)
steer the loop between cycles; the cycle core (loop.py) only honours the state kept here.
Everything here runs on the loop's thread (other threads come through LoopCalls)."""
from __future__ import annotations

import threading

from sim_physics.engine.node import SimulationNode

from sim_master.master.adapters import AgentTransport, LoopAdapter
from sim_master.master.config import ServerConfig
from sim_master.master.players import PlayerTable, Source
from soccer_referee.commands import RefereeCommand, SetPlayMode, entity_move
from soccer_referee.service import RefereeHost


class SimulationControl:
    """Mixed into SimulationLoop, whose state it steers."""

    engine: SimulationNode
    players: PlayerTable
    referee: RefereeHost
    paused: bool
    _step_budget: int
    _step_done: threading.Event | None
    config: ServerConfig
    transports: dict[Source, AgentTransport]
    adapters: list[LoopAdapter]

    def pause(self) -> None:
        """Pause always wins: a pending step request ends here (its caller is released)."""
        self.paused = True
        self._cancel_steps()

    def _cancel_steps(self) -> None:
        self._step_budget = 0
        if self._step_done is not None:
            self._step_done.set()
            self._step_done = None

    def change_setting(self, name: str, value: object) -> None:
        """A setting changed while running (a dynamic ROS parameter, already checked): the
        config and whoever acts on it. Settings not listed here do not change live."""
        config = self.config
        if name == "sync_timeout":
            config.sync_timeout = float(str(value))
            for transport in self.transports.values():  # TCP agents' waits
                if hasattr(transport, "sync_timeout"):
                    transport.sync_timeout = config.sync_timeout
        elif name == "log_players":
            config.log_players = bool(value)
            for adapter in self.adapters:
                if hasattr(adapter, "players") and isinstance(adapter.players, bool):
                    adapter.players = config.log_players  # the replay log's percepts and commands
        elif name == "tf_rate":
            config.tf_rate = float(str(value))

    def play(self) -> None:
        self.paused = False

    def step_paused(self, cycles: int) -> threading.Event:
        """While paused: run `cycles` cycles; the event is set when they are done."""
        done = threading.Event()
        if cycles <= 0:
            done.set()
            return done
        self._step_budget = cycles
        self._step_done = done
        return done

    # ------------------------------------------------------------------ operator commands
    def beam_player(self, team: str, unum: int, x: float, y: float, rotation: float) -> str | None:
        player = next((p for p in self.players if p.team == team and p.unum == unum), None)
        if player is None:
            return f"no player {team} #{unum}"
        decision = self.referee.request_beam(player.side, player.unum, x, y, rotation, frame=player.rules.beam_frame)
        if not decision.success:
            return decision.error
        self.engine.teleport_robot(player.robot_id, decision.x, decision.y, decision.yaw_deg)
        return None

    def referee_command(self, command: RefereeCommand) -> str | None:
        outcome = self.referee.command(command)
        return None if outcome.ok else outcome.error

    def set_play_mode(self, name: str) -> str | None:
        return self.referee_command(SetPlayMode(name))

    def move_entity(self, entity: str, position: tuple[float, float, float], rotation: float,
                    velocity: tuple[float, float, float]) -> str | None:
        command = entity_move(entity, position, rotation, velocity, self.referee.registry.side_of)
        return command if isinstance(command, str) else self.referee_command(command)

