"""The core API plugged into a single-mode loop (a loop adapter): its calls run between
cycles within a budget, and its hubs are handed the finished cycle only when a stream waits
for it.

Why a budget: two hundred calls in flight must not stall the match. A poll runs calls for
at most API_SHARE of a cycle's wall time (between MIN_BUDGET_S and MAX_BUDGET_S; a listing's
part on the loop is about 0.1 ms, the rest is done on the API's thread); the others wait for
the next poll."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from sim_master.api.server import ApiServer, Owner, Security
from sim_master.api.single_api import SingleApi
from sim_master.master.adapters import CycleView, LoopAdapter, OperatedLoop
from sim_master.master.loop_calls import LoopCalls
from soccer_referee.events import GameEvent

if TYPE_CHECKING:
    from sim_master.master.loop import SimulationLoop

API_SHARE: Final = 0.05  # of a cycle's wall time, for API calls on the loop's thread
MIN_BUDGET_S: Final = 0.0002
MAX_BUDGET_S: Final = 0.002


class ApiFeed(LoopAdapter):
    name = "gRPC API"

    def __init__(self, loop: SimulationLoop, host: str, port: int, security: Security | None = None, *,
                 drawing: Callable[[], tuple[int, dict[str, Any]]] | None = None) -> None:
        """`drawing`: (version, board) of the agents' drawings now, from any thread (None: no
        drawing port, no Drawings stream)."""
        self.calls = LoopCalls()
        # asked at each use: the league's engine picks its physics when the first robot joins
        self.owner = Owner(SingleApi(loop), self.calls, capture=lambda: loop.engine.capture(), drawing=drawing)
        self.server = ApiServer(self.owner, host, port, security)
        self._handed = -1  # the cycle whose world was last handed to the snapshot hub
        self._cycle_s = 0.02  # wall time of a cycle, a moving mean
        self._cycle_at = 0.0

    def start(self) -> None:
        self.server.start()

    def poll(self, loop: OperatedLoop) -> None:
        self.calls.run_for(min(MAX_BUDGET_S, max(MIN_BUDGET_S, API_SHARE * self._cycle_s)))
        self._hand_in(loop)  # a stream that waits while no cycle runs (paused) is given the world now

    def on_cycle(self, loop: CycleView, events: Sequence[GameEvent]) -> None:
        now = time.perf_counter()
        if self._cycle_at:
            self._cycle_s += 0.1 * (min(now - self._cycle_at, 1.0) - self._cycle_s)  # a moving mean
        self._cycle_at = now
        self._hand_in(loop)
        owner = self.owner
        if owner.game.wanted:
            owner.game.publish(loop.engine.cycle, loop.engine.time, loop.referee.state, list(events))

    def _hand_in(self, loop: CycleView) -> None:
        """The world, once per cycle, when a stream waits for it (an int compare otherwise)."""
        cycle = loop.engine.cycle
        if self._handed < cycle and self.owner.snapshots.due(cycle):
            self._handed = cycle
            self.owner.snapshots.publish_capture(loop.engine.capture())

    def close(self) -> None:
        self.calls.fail_pending("server stopped")
        self.server.close()
