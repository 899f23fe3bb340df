"""The text service port's handlers: referee and simulation control for scripts/telnet."""
from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from sim_physics.engine.league import robots_physics

from sim_bridge.service_port import ServiceError, ServicePort
from sim_master.master.loop import MAX_STEP_CYCLES
from soccer_referee.checks import MAX_SCORE
from soccer_referee.commands import DropBall, KickOff, MoveBall, RefereeCommand, SetScore, SetTime

if TYPE_CHECKING:
    from sim_master.master.loop import SimulationLoop
    from sim_master.server.draw_feed import DrawingFeed


def _floats(params: list[str], n: int, usage: str) -> list[float]:
    """n finite numbers (no inf, nan, 1e400) or a usage error."""
    try:
        values = [float(p) for p in params]
    except ValueError:
        raise ServiceError(f"usage: {usage}") from None
    if len(values) != n or not all(math.isfinite(v) for v in values):
        raise ServiceError(f"usage: {usage} (finite numbers)")
    return values


def _ints(params: list[str], n: int, low: int, high: int, usage: str) -> list[int]:
    values = _floats(params, n, usage)
    if not all(v == int(v) and low <= v <= high for v in values):
        raise ServiceError(f"usage: {usage} (integers in {low}..{high})")
    return [int(v) for v in values]


def register_services(port: ServicePort, server: SimulationLoop, *, drawing: DrawingFeed | None = None) -> None:
    """The service port's commands over the loop (`drawing`: the agents' drawings, when their
    port is open)."""
    def checked(error: str | None, ok: str = "") -> str:
        if error:
            raise ServiceError(error)
        return ok

    def referee(cmd: RefereeCommand) -> str:
        return checked(server.control.referee_command(cmd))

    def game_state(_: list[str]) -> str:
        s = server.referee.state
        return json.dumps({"play_mode": s.play_mode.value, "time": round(s.game_time, 3), "half": s.half,
                           "left": s.team_left, "right": s.team_right,
                           "score": [s.score_left, s.score_right]})

    def step(params: list[str]) -> str:
        if not server.paused:
            raise ServiceError("simulation is not paused")
        (n,) = _ints(params, 1, 1, MAX_STEP_CYCLES, "simulation step <cycles>")
        server.control.step_paused(n)
        return f"stepping {n}"

    port.register("referee", "set_play_mode", lambda p: checked(server.control.set_play_mode(" ".join(p))))
    port.register("referee", "kick_off", lambda p: referee(KickOff(p[0] if p else None)))
    port.register("referee", "drop_ball", lambda p: referee(DropBall()))
    def move_ball(params: list[str]) -> str:
        x, y, z = _floats(params, 3, "referee move_ball x y z")
        return referee(MoveBall((x, y, z)))

    port.register("referee", "move_ball", move_ball)
    port.register("referee", "set_score",
                  lambda p: referee(SetScore(*_ints(p, 2, 0, MAX_SCORE, "referee set_score l r"))))
    port.register("referee", "set_time", lambda p: referee(SetTime(*_floats(p, 1, "referee set_time t"))))
    port.register("referee", "game_state", game_state)
    def run(action: Callable[[], None], answer: str) -> Callable[[list[str]], str]:
        def handler(_: list[str]) -> str:
            action()
            return answer
        return handler

    port.register("simulation", "pause", run(server.control.pause, "paused"))
    port.register("simulation", "play", run(server.control.play, "playing"))
    port.register("simulation", "step", step)
    port.register("simulation", "state", lambda p: "paused" if server.paused else "playing")
    port.register("simulation", "time", lambda p: f"{server.engine.time:.2f}")
    port.register("simulation", "stats", lambda p: json.dumps(
        {"cycles": server.stats.cycles, "phase_s": {k: round(v, 6) for k, v in server.stats.phase_s.items()},
         # real time: game time over wall time in the last 10 s (below 0.9 the server has said so)
         "realtime_ratio": None if server.stats.realtime_ratio is None else round(server.stats.realtime_ratio, 3),
         # inside the physics library's own step (part of "physics"), where the engine counts it
         "library_step_s": round(server.engine.library_step_s, 6),
         # each robot's model, league and the physics it runs on (a league's robots may run on
         # the other's: the first robot to join an empty world picks its physics)
         "robots": robots_physics(server.engine),
         # threads the physics steps on (ODE's islands; the same results on any number)
         "physics_threads": getattr(server.engine, "step_threads", 1),
         # the world's state hash (snapshot.py): equal in two runs that should be the same
         "state_hash": server.engine.snapshot().digest()}))
    port.register("simulation", "stop", run(server.request_stop, "stopping"))
    def picture(_: list[str]) -> str:
        """The browser's frame of this cycle plus the field and its drawing (one line of JSON)."""
        from sim_master.monitor_web.frame import field_message, frame_from_server

        frame = frame_from_server(server, [], drawings=drawing.view.board if drawing else None).to_dict()
        frame["field"] = field_message(server.engine.field)
        return json.dumps(frame, separators=(",", ":"))

    port.register("simulation", "frame", picture)
    port.register("agents", "list", lambda p: json.dumps(
        [{"agent": a.agent_id, "team": a.team, "unum": a.unum, "side": a.side, "model": a.model}
         for a in server.players]))
