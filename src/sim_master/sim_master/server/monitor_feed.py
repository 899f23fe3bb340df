"""The legacy monitor ports as a loop adapter: a frame every 2nd cycle for each port, in its
dialect (SimSpark's or rcsssmj's RSMP), and the operator commands monitors send.

Why an adapter: monitors watch the finished cycle and hand in referee commands; the loop
does not know they exist."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from sim_physics.scene.monitor_scene import (
    STREAM_STYLES,
    MonitorScene,
    SceneRobot,
    rsmp_frame,
    scene_key,
    simspark_frame,
)

from sim_bridge.monitor_server import KillSim, MonitorServer
from sim_master.master.adapters import LoopAdapter
from soccer_referee.commands import MoveAgent, RefereeCommand
from soccer_referee.events import FoulType, GameEvent

if TYPE_CHECKING:
    from sim_physics.engine.node import EngineView
    from sim_physics.world.spec import ModelSpec

    from sim_master.master.adapters import CycleView, OperatedLoop


class LegacyMonitorFeed(LoopAdapter):
    name = "monitor ports"

    def __init__(self, servers: dict[str, MonitorServer]) -> None:
        self.servers = servers
        self._scenes: dict[str, MonitorScene] = {}
        self._pending_fouls: list[tuple[int, int, int]] = []
        self._sent: dict[str, object] = {}

    def poll(self, loop: OperatedLoop) -> None:
        for monitor in self.servers.values():
            for peer, command in monitor.poll():
                try:
                    self._command(loop, peer, command)
                except Exception as exc:  # noqa: BLE001 - one fault boundary per monitor command
                    loop.log.error("monitor %s: %s on %s: %s; command dropped", peer, type(exc).__name__,
                                   type(command).__name__, exc)

    def _command(self, loop: OperatedLoop, peer: str, command: RefereeCommand | KillSim) -> None:
        if isinstance(command, KillSim):
            loop.log.warning("monitor %s asked to stop the server (killsim)", peer)
            loop.control.request_stop()
            return
        if isinstance(command, MoveAgent):
            team = command.side
            side = {"left": "left", "right": "right"}.get(team.lower()) or loop.referee.registry.side_of(team)
            command = replace(command, side=side or team)
        error = loop.control.referee_command(command)
        if error:
            loop.log.warning("monitor %s: %s refused: %s", peer, type(command).__name__, error)

    def on_cycle(self, loop: CycleView, events: Sequence[GameEvent]) -> None:
        """Every 2nd cycle, as both references: one frame per monitor port."""
        for e in events:
            if e.kind == "foul":
                self._pending_fouls.append((int(FoulType[e.detail.upper()]), 1 if e.team == "left" else 2, e.unum))
        engine = loop.engine
        if engine.cycle % 2:
            return
        if not any(server.count for server in self.servers.values()):
            # Nobody watches: no scene. A monitor that connects gets a full frame.
            self._pending_fouls.clear()
            return
        s = loop.referee.state
        labels = {p.robot_id: (p.team, p.unum, p.side) for p in loop.players.with_robots() if p.registered}
        robots = [SceneRobot(rid, model, engine.model_spec(model), labels.get(rid))
                  for rid in engine.robot_ids() for model in (engine.robot_model(rid),)]
        key = scene_key(robots)
        fouls, self._pending_fouls = self._pending_fouls, []
        rules = loop.referee.rules
        field = loop.referee.field
        names, poses = engine.frames()
        for name, monitor in self.servers.items():
            scene = self._scenes.get(name)
            if scene is None or scene.key != key:
                scene = MonitorScene(self._statics(engine), robots, STREAM_STYLES[name], field=engine.field)
                self._scenes[name] = scene
                monitor.request_full()
            if scene.style.rsmp:
                def rsmp(full: bool, scene: MonitorScene = scene) -> bytes:
                    text = scene.scene(names, poses, full)
                    return rsmp_frame(text, full, engine.time, s, field, fouls, rules).encode()

                monitor.broadcast(lambda: rsmp(False), lambda: rsmp(True))
            else:
                now = {"team_left": s.team_left, "team_right": s.team_right, "half": s.half,
                       "score_left": s.score_left, "score_right": s.score_right, "play_mode": s.play_mode.monitor_index}
                changed = {k: v for k, v in now.items() if self._sent.get(k) != v}
                self._sent = now
                numbered = list(enumerate(fouls))

                def sexp(full: bool, scene: MonitorScene = scene, changed: dict[str, object] = changed,
                         numbered: list[tuple[int, tuple[int, int, int]]] = numbered) -> bytes:
                    text = scene.scene(names, poses, full)
                    return simspark_frame(text, full, s, field, numbered, rules, changed).encode()

                monitor.broadcast(lambda: sexp(False), lambda: sexp(True))

    @staticmethod
    def _statics(engine: EngineView) -> list[ModelSpec]:
        return [m for m in engine.world.models if not m.is_ball]

    def close(self) -> None:
        for monitor in self.servers.values():
            monitor.close()
        self.servers.clear()
