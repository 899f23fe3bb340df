"""Control of a running simulation: pause, step while paused, stop, live settings, and the
operator's commands to the referee (play modes, beams, trainer moves).

Why an object of its own: operators (monitors, the browser, the service port, ROS services)
steer the loop between cycles; the cycle core (loop.py) owns one `SimulationControl` and only
asks it whether to cycle (`holds`) and tells it a cycle is done. Everything here runs on the
loop's thread (other threads come through LoopCalls)."""
from __future__ import annotations

from typing import Protocol

from sim_master.master.config import ServerConfig
from sim_master.master.loop_parts import LoopParts
from sim_master.master.stepping import PausedStepping
from soccer_referee.commands import RefereeCommand, SetPlayMode, entity_move


class ControlHost(LoopParts, Protocol):
    """What control steers: the loop's parts, its settings and adapters."""

    @property
    def config(self) -> ServerConfig: ...
    def tell_setting(self, name: str, value: object) -> None:
        """Every adapter's `on_setting`, each through the loop's fault boundary."""
        ...
    def request_stop(self) -> None: ...


class SimulationControl(PausedStepping):
    """Owned by the loop (`loop.control`); the adapters' `LoopCommands`."""

    def __init__(self, host: ControlHost) -> None:
        super().__init__()  # paused, step requests (master/stepping.py)
        self._host = host
        self.speed = 1.0  # real-time mode's pace: cycles per 20 ms of wall time (an operator's)

    # ------------------------------------------------------------------ operators
    def pause(self) -> None:
        self.paused = True
        self.cancel_steps()

    def play(self) -> None:
        self.paused = False

    def request_stop(self) -> None:
        self._host.request_stop()

    def change_setting(self, name: str, value: object) -> None:
        """A setting changed while running (a dynamic ROS parameter, already checked): the
        config, the agent ports' waits, and every adapter's `on_setting`. Settings not listed
        here do not change live."""
        config = self._host.config
        if name == "sync_timeout":
            config.sync_timeout = float(str(value))
            for transport in self._host.transports.values():
                transport.sync_timeout = config.sync_timeout
        elif name == "log_players":
            config.log_players = bool(value)
        elif name == "tf_rate":
            config.tf_rate = float(str(value))
        else:
            return
        self._host.tell_setting(name, getattr(config, name))

    def beam_player(self, team: str, unum: int, x: float, y: float, rotation: float) -> str | None:
        player = next((p for p in self._host.players if p.team == team and p.unum == unum), None)
        if player is None:
            return f"no player {team} #{unum}"
        decision = self._host.referee.request_beam(player.side, player.unum, x, y, rotation,
                                                   frame=player.rules.beam_frame)
        if not decision.success:
            return decision.error
        self._host.engine.teleport_robot(player.robot_id, decision.x, decision.y, decision.yaw_deg)
        return None

    def referee_command(self, command: RefereeCommand) -> str | None:
        outcome = self._host.referee.command(command)
        return None if outcome.ok else outcome.error

    def set_play_mode(self, name: str) -> str | None:
        return self.referee_command(SetPlayMode(name))

    def move_entity(self, entity: str, position: tuple[float, float, float], rotation: float,
                    velocity: tuple[float, float, float]) -> str | None:
        command = entity_move(entity, position, rotation, velocity, self._host.referee.registry.side_of)
        return command if isinstance(command, str) else self.referee_command(command)

