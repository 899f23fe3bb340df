"""The browser monitor as a loop adapter: the scene (field, robot models) when it changes, a
JSON frame every 2nd cycle, fouls as they happen, and the page's referee buttons applied on
the loop's thread like a legacy monitor's commands."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sim_master.master.adapters import LoopAdapter
from sim_master.monitor_web.commands import CommandError, Control, parse_referee
from sim_master.monitor_web.frame import JsonText, LinkRows, frame_from_server, scene_message
from sim_master.monitor_web.server import WebMonitor
from sim_master.server.draw_feed import DrawingFeed
from soccer_referee.events import GameEvent

if TYPE_CHECKING:
    from sim_master.master.adapters import CycleView, OperatedLoop


class WebMonitorFeed(LoopAdapter):
    name = "browser monitor"

    def __init__(self, monitor: WebMonitor, drawing: DrawingFeed | None = None) -> None:
        self.monitor = monitor
        self.drawing = drawing  # agents' RoboViz drawings, if their port is open
        self._drawn_version = -1
        self._shown_paused = False
        self._fouls: list[dict[str, object]] = []
        self._said: list[dict[str, object]] = []  # say messages since the last frame
        self._models: tuple[str, ...] | None = None
        self._link_rows = LinkRows()

    def poll(self, loop: OperatedLoop) -> None:
        # a page connected (perhaps while paused), or the simulation paused or resumed: show it
        if self.monitor.wants_frame or (self.monitor.clients and loop.paused != self._shown_paused):
            self._shown_paused = loop.paused
            self.monitor.publish(frame_from_server(loop, [], self._link_rows, drawings=self._drawings(force=True)))
        for item in self.monitor.take_commands():
            try:
                command = parse_referee(item.command, loop.engine.field)
                if isinstance(command, Control):
                    (loop.control.pause if command.name == "pause" else loop.control.play)()
                    continue
                error = loop.control.referee_command(command)
                if error:
                    loop.log.warning("browser %s: %s refused: %s", item.peer, type(command).__name__, error)
                    self.monitor.tell(item.peer, f"{item.command.get('cmd')} refused: {error}")
            except CommandError as exc:
                loop.log.warning("browser %s: %s", item.peer, exc)
                self.monitor.tell(item.peer, str(exc))

    def on_cycle(self, loop: CycleView, events: Sequence[GameEvent]) -> None:
        self._fouls += [{"time": e.time, "type": e.detail, "side": e.team, "unum": e.unum}
                        for e in events if e.kind == "foul"]
        self._said += [{"time": round(loop.referee.state.game_time, 2), "side": s.side, "unum": s.unum,
                        "team": s.team, "message": s.message, "heard_by": [u for _, u in s.heard_by]}
                       for s in loop.said]
        if loop.engine.cycle % 2 == 0:
            models = tuple(sorted({p.model for p in loop.players.with_robots()}))
            if models != self._models:
                self._models = models
                specs = {m: loop.engine.model_spec(m) for m in models}
                self.monitor.set_scene(scene_message("live", loop.engine.field, specs, commands=False))
            if self.monitor.clients:  # nobody watching: no frame to build
                self._shown_paused = loop.paused
                force = loop.engine.cycle % 50 == 0  # once a second in any case: a page that joined since
                self.monitor.publish(frame_from_server(loop, self._fouls, self._link_rows, said=self._said,
                                                       drawings=self._drawings(force=force)))
            self._fouls, self._said = [], []

    def _drawings(self, *, force: bool) -> JsonText | None:
        """The agents' drawings when they changed since the last frame (or `force`), else None
        (the page keeps what it has)."""
        if self.drawing is None:
            return None
        view = self.drawing.view  # drawn on the drawing port's thread
        if not force and view.version == self._drawn_version:
            return None
        self._drawn_version = view.version
        return JsonText(view.board_json)

    def close(self) -> None:
        self.monitor.close()
