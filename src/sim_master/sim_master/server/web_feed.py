"""The browser monitor as a loop adapter: a JSON frame every 2nd cycle, fouls as they happen."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sim_master.master.adapters import LoopAdapter
from sim_master.monitor_web.frame import frame_from_server
from sim_master.monitor_web.server import WebMonitor
from soccer_referee.events import GameEvent

if TYPE_CHECKING:
    from sim_master.master.loop import SimulationLoop


class WebMonitorFeed(LoopAdapter):
    name = "browser monitor"

    def __init__(self, monitor: WebMonitor) -> None:
        self.monitor = monitor
        self._fouls: list[dict[str, object]] = []

    def on_cycle(self, loop: SimulationLoop, events: Sequence[GameEvent]) -> None:
        self._fouls += [{"time": e.time, "type": e.detail, "side": e.team, "unum": e.unum}
                        for e in events if e.kind == "foul"]
        if loop.engine.cycle % 2 == 0:
            self.monitor.publish(frame_from_server(loop, self._fouls))
            self._fouls = []

    def close(self) -> None:
        self.monitor.close()
