"""What the API's streams send, made once per cycle for every client: the snapshot hub and
the game hub.

Why: twenty viewers of one match must cost one conversion per cycle, not twenty, and a
viewer that reads slowly (or not at all) must cost nothing and never grow a queue. The
hub keeps the newest world and a short ring of the last cycles' deltas, each serialized once;
a client asks for "what changed since the step I have": the newest delta, the ring's deltas
chained, or the whole world when it is further behind. Everything here runs on the API
server's event loop; the simulation only hands in what it read (`publish`, any thread)."""
from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np
from sim_physics.snapshot import Snapshot, StateCapture

from sim_master.api import convert
from soccer_referee.events import GameEvent
from soccer_referee.game_state import GameStateSnapshot
from soccersim_api.v1 import soccersim_pb2 as pb

RING: Final = 64  # cycles of deltas kept: a client further behind is sent the whole world
EVENTS_KEPT: Final = 256  # game events kept for a client that reads slowly


def chain(deltas: list[Snapshot]) -> Snapshot:
    """Consecutive deltas as one: the newest state of what changed, and what is gone."""
    entities: dict[str, object] = {}
    removed: dict[str, None] = {}
    for d in deltas:
        for name in d.removed:
            entities.pop(name, None)
            removed[name] = None
        for name, e in d.entities.items():
            entities[name] = e
            removed.pop(name, None)
    last = deltas[-1]
    return Snapshot(last.step, last.time, False, dict(entities), tuple(removed))  # type: ignore[arg-type]


@dataclass(slots=True)
class _Cycle:
    step: int
    delta: Snapshot
    data: bytes  # the delta serialized


class SnapshotHub:
    """The newest world and the last RING deltas. `publish` from the simulation's thread
    (a capture, or a delta when the world arrives as deltas: the distributed master), the rest
    on the event loop `bind` names."""

    def __init__(self) -> None:
        self.subscribers = 0
        self.world = Snapshot(0, 0.0, True, {})
        self.published = 0  # cycles ingested
        self._ring: deque[_Cycle] = deque(maxlen=RING)
        self.memory: dict[str, np.ndarray] = {}
        self._full: tuple[int, bytes] | None = None  # the world serialized, as of a step
        self._aio: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Condition | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._aio = loop
        self._changed = asyncio.Condition()

    @property
    def wanted(self) -> bool:
        """Somebody streams: the simulation hands its state in (otherwise it pays nothing)."""
        return self.subscribers > 0

    # ------------------------------------------------------------------ simulation's side
    def publish_capture(self, capture: StateCapture) -> None:
        self._hand_in(lambda: capture.delta(self.memory))

    def publish_delta(self, delta: Snapshot) -> None:
        self._hand_in(lambda: delta)

    def _hand_in(self, make: Callable[[], Snapshot]) -> None:
        aio = self._aio
        if aio is None or aio.is_closed():
            return
        try:
            aio.call_soon_threadsafe(self.take, make)
        except RuntimeError:  # the server is closing
            pass

    def take(self, make: Callable[[], Snapshot]) -> None:
        """(event loop) One cycle's delta into the world and the ring."""
        delta = make()
        if delta.full:  # a full snapshot starts the world again: the ring cannot chain across it
            self._ring.clear()
        self.world = self.world.merged(delta)
        if not delta.full and self._ring and self._ring[-1].step != delta.step - 1:
            self._ring.clear()  # a gap (subscribers came back): older deltas do not chain to this one
        self._ring.append(_Cycle(delta.step, delta, convert.snapshot(delta).SerializeToString()))
        self.published += 1
        if self._changed is not None:
            asyncio.ensure_future(self._notify())

    async def _notify(self) -> None:
        assert self._changed is not None
        async with self._changed:
            self._changed.notify_all()

    # ------------------------------------------------------------------ clients' side
    @property
    def step(self) -> int:
        return self.world.step if self.published else -1

    async def wait_beyond(self, step: int) -> None:
        """Until the world is newer than `step`."""
        assert self._changed is not None
        async with self._changed:
            await self._changed.wait_for(lambda: self.step > step)

    def since(self, step: int | None, *, full: bool = False) -> tuple[int, bytes]:
        """(newest step, the message that brings a client at `step` there): the newest delta,
        the ring's deltas chained, or the whole world (first message, `full`, or too far behind)."""
        newest = self.step
        ring = self._ring
        if step is not None and not full and ring and ring[0].step <= step + 1 and step < newest:
            if ring[-1].step == step + 1:
                return newest, ring[-1].data
            missed = [c.delta for c in ring if c.step > step]
            return newest, convert.snapshot(chain(missed)).SerializeToString()
        if self._full is None or self._full[0] != newest:
            self._full = (newest, convert.snapshot(self.world).SerializeToString())
        return newest, self._full[1]


class GameHub:
    """The game state after each cycle and the events of the last EVENTS_KEPT, numbered: a
    client is sent the newest state with every event since its last update."""

    def __init__(self) -> None:
        self.subscribers = 0
        self.step = -1
        self.state: pb.GameState | None = None
        self._events: deque[tuple[int, pb.GameEvent]] = deque(maxlen=EVENTS_KEPT)
        self._count = 0  # events ever published
        self._aio: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Condition | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._aio = loop
        self._changed = asyncio.Condition()

    @property
    def wanted(self) -> bool:
        return self.subscribers > 0

    def publish(self, step: int, stamp: float, state: GameStateSnapshot, events: list[GameEvent]) -> None:
        aio = self._aio
        if aio is None or aio.is_closed():
            return
        try:
            aio.call_soon_threadsafe(self._ingest, step, stamp, state, events)
        except RuntimeError:
            pass

    def _ingest(self, step: int, stamp: float, state: GameStateSnapshot, events: list[GameEvent]) -> None:
        self.step, self.state = step, convert.game_state(state, stamp)
        for e in events:
            self._count += 1
            self._events.append((self._count, convert.game_event(e, stamp)))
        if self._changed is not None:
            asyncio.ensure_future(self._notify())

    async def _notify(self) -> None:
        assert self._changed is not None
        async with self._changed:
            self._changed.notify_all()

    async def wait_beyond(self, step: int) -> None:
        assert self._changed is not None
        async with self._changed:
            await self._changed.wait_for(lambda: self.step > step)

    def since(self, seen: int | None) -> tuple[int, pb.GameUpdate]:
        """(events published so far, the update for a client that has seen `seen` of them)."""
        events = [] if seen is None else [e for n, e in self._events if n > seen]
        return self._count, pb.GameUpdate(step=max(self.step, 0), state=self.state, events=events)
