"""The core API plugged into a single-mode loop (a loop adapter): its calls run between
cycles within a budget, and its hubs are fed the finished cycle only while somebody streams.

Why a budget: two hundred calls in flight must not stall a cycle; API_BUDGET_S of each poll
is theirs (a listing of the world is about 0.1 ms), the rest wait for the next poll."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from sim_master.api.server import ApiServer, Owner, Security
from sim_master.api.single_api import SingleApi
from sim_master.master.adapters import CycleView, LoopAdapter, OperatedLoop
from sim_master.master.loop_calls import LoopCalls
from soccer_referee.events import GameEvent

if TYPE_CHECKING:
    from sim_master.master.loop import SimulationLoop

API_BUDGET_S: Final = 0.002  # of the loop's thread per poll for API calls


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

    def start(self) -> None:
        self.server.start()

    def poll(self, loop: OperatedLoop) -> None:
        self.calls.run_for(API_BUDGET_S)

    def on_cycle(self, loop: CycleView, events: Sequence[GameEvent]) -> None:
        owner = self.owner
        if owner.snapshots.wanted:
            owner.snapshots.publish_capture(loop.engine.capture())
        if owner.game.wanted:
            owner.game.publish(loop.engine.cycle, loop.engine.time, loop.referee.state, list(events))

    def close(self) -> None:
        self.calls.fail_pending("server stopped")
        self.server.close()
