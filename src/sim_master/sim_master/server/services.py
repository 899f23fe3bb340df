"""The text service port's handlers: referee and simulation control for scripts/telnet."""
from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

from sim_bridge.service_port import ServiceError, ServicePort
from soccer_referee.commands import DropBall, KickOff, MoveBall, SetScore, SetTime

from sim_master.master.loop import MAX_STEP_CYCLES

if TYPE_CHECKING:
    from sim_master.master.loop import SimulationLoop


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


def register_services(port: ServicePort, server: SimulationLoop) -> None:
    def checked(error: str | None, ok: str = "") -> str:
        if error:
            raise ServiceError(error)
        return ok

    def referee(cmd: object) -> str:
        return checked(server.referee_command(cmd))

    def game_state(_: list[str]) -> str:
        s = server.referee.state
        return json.dumps({"play_mode": s.play_mode.value, "time": round(s.game_time, 3), "half": s.half,
                           "left": s.team_left, "right": s.team_right,
                           "score": [s.score_left, s.score_right]})

    def step(params: list[str]) -> str:
        if not server.paused:
            raise ServiceError("simulation is not paused")
        (n,) = _ints(params, 1, 1, MAX_STEP_CYCLES, "simulation step <cycles>")
        server.step_paused(n)
        return f"stepping {n}"

    port.register("referee", "set_play_mode", lambda p: checked(server.set_play_mode(" ".join(p))))
    port.register("referee", "kick_off", lambda p: referee(KickOff(p[0] if p else None)))
    port.register("referee", "drop_ball", lambda p: referee(DropBall()))
    port.register("referee", "move_ball", lambda p: referee(MoveBall(tuple(_floats(p, 3, "referee move_ball x y z")))))  # type: ignore[arg-type]
    port.register("referee", "set_score", lambda p: referee(SetScore(*_ints(p, 2, 0, 999, "referee set_score l r"))))
    port.register("referee", "set_time", lambda p: referee(SetTime(*_floats(p, 1, "referee set_time t"))))
    port.register("referee", "game_state", game_state)
    port.register("simulation", "pause", lambda p: (server.pause(), "paused")[1])
    port.register("simulation", "play", lambda p: (server.play(), "playing")[1])
    port.register("simulation", "step", step)
    port.register("simulation", "state", lambda p: "paused" if server.paused else "playing")
    port.register("simulation", "time", lambda p: f"{server.engine.time:.2f}")
    port.register("simulation", "stop", lambda p: (server.request_stop(), "stopping")[1])
    def picture(_: list[str]) -> str:
        from sim_master.monitor_web.frame import frame_from_server

        return frame_from_server(server, []).to_json()

    port.register("simulation", "frame", picture)
    port.register("agents", "list", lambda p: json.dumps(
        [{"agent": a.agent_id, "team": a.team, "unum": a.unum, "side": a.side, "model": a.model}
         for a in server.players]))
