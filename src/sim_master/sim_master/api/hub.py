"""What the API's streams send, made once per cycle for every client: the snapshot hub and
the game hub.

Why: twenty viewers of one match must cost one conversion per cycle, not twenty, and a
viewer that reads slowly (or not at all) must cost nothing and never grow a queue. The
hub keeps the newest world and a short ring of the last cycles' changes, each serialized once
(straight from the state vectors: api/wire.py);
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
from sim_physics.snapshot import EntityVector, Snapshot, StateCapture

from sim_master.api import convert
from sim_master.api.wire import SnapshotWriter, vector_of
from soccer_referee.events import GameEvent
from soccer_referee.game_state import GameStateSnapshot
from soccersim_api.v1 import soccersim_pb2 as pb

RING: Final = 64  # cycles of deltas kept: a client further behind is sent the whole world
EVENTS_KEPT: Final = 256  # game events kept for a client that reads slowly


Make = Callable[[], tuple[int, float, list[EntityVector], tuple[str, ...], bool]]


@dataclass(slots=True)
class _Cycle:
    step: int
    full: bool
    changed: list[EntityVector]
    removed: tuple[str, ...]
    data: bytes  # the message serialized


class SnapshotHub:
    """The newest world (entity vectors) and the last RING cycles' changes, each serialized
    once (api/wire.py). `publish_*` from the simulation's thread, the rest on the event loop
    `bind` names."""

    def __init__(self) -> None:
        self.subscribers = 0
        self.step = -1  # of the newest world (-1: none yet)
        self.stamp = 0.0
        self.world: dict[str, EntityVector] = {}
        self.owners: dict[str, str] = {}  # entity -> its node (distributed runs)
        self.published = 0  # cycles taken in
        self.writer = SnapshotWriter()
        self._ring: deque[_Cycle] = deque(maxlen=RING)
        self._memory: dict[str, np.ndarray] = {}  # what the last capture's delta was taken against
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
        self._hand_in(lambda: self._of_capture(capture, full=False))

    def publish_delta(self, delta: Snapshot) -> None:
        self._hand_in(lambda: self._of_snapshot(delta))

    def _hand_in(self, make: Make) -> None:
        aio = self._aio
        if aio is None or aio.is_closed():
            return
        try:
            aio.call_soon_threadsafe(self.take, make)
        except RuntimeError:  # the server is closing
            pass

    def _of_capture(self, capture: StateCapture, *, full: bool) -> tuple[int, float, list[EntityVector],
                                                                            tuple[str, ...], bool]:
        if full:
            self._memory = {}
        changed, removed = capture.changes(self._memory)
        return capture.step, capture.time, changed, removed, full

    def _of_snapshot(self, snap: Snapshot) -> tuple[int, float, list[EntityVector], tuple[str, ...], bool]:
        for e in snap.entities.values():
            self.owners[e.name] = e.owner
        return snap.step, snap.time, [vector_of(e) for e in snap.entities.values()], snap.removed, snap.full

    def take_now(self, now: StateCapture | Snapshot) -> None:
        """(event loop) The world as read for a new stream, when newer than the hub's: whole."""
        if now.step <= self.step:
            return
        if isinstance(now, StateCapture):
            self.take(lambda: self._of_capture(now, full=True))
        else:
            self.take(lambda: self._of_snapshot(Snapshot(now.step, now.time, True, now.entities)))

    def take(self, make: Make) -> None:
        """(event loop) One cycle's changes into the world and the ring."""
        step, stamp, changed, removed, full = make()
        if full:
            self.world = {}
            self._ring.clear()
        elif self._ring and self._ring[-1].step != step - 1:
            self._ring.clear()  # a gap (nobody streamed meanwhile): older changes do not chain to these
        for name in removed:
            self.world.pop(name, None)
            self.owners.pop(name, None)
            self.writer.forget(name)
        for vector in changed:
            self.world[vector[0]] = vector
        data = self.writer.snapshot(step, stamp, full, changed, removed, self.owners)
        self._ring.append(_Cycle(step, full, changed, removed, data))
        self.step, self.stamp = step, stamp
        self.published += 1
        if self._changed is not None:
            asyncio.ensure_future(self._notify())

    async def _notify(self) -> None:
        assert self._changed is not None
        async with self._changed:
            self._changed.notify_all()

    # ------------------------------------------------------------------ clients' side
    async def wait_beyond(self, step: int) -> None:
        """Until the world is newer than `step`."""
        assert self._changed is not None
        async with self._changed:
            await self._changed.wait_for(lambda: self.step > step)

    def since(self, step: int | None, *, full: bool = False) -> tuple[int, bytes]:
        """(newest step, the message that brings a client at `step` there): the newest changes,
        the ring's changes chained, or the whole world (first message, `full`, too far behind,
        or the world started again since)."""
        newest = self.step
        ring = self._ring
        if step is not None and not full and ring and ring[0].step <= step + 1 and step < newest:
            missed = [c for c in ring if c.step > step]
            if not any(c.full for c in missed):
                if len(missed) == 1:
                    return newest, missed[0].data
                changed: dict[str, EntityVector] = {}
                removed: dict[str, None] = {}
                for c in missed:
                    for name in c.removed:
                        changed.pop(name, None)
                        removed[name] = None
                    for vector in c.changed:
                        changed[vector[0]] = vector
                        removed.pop(vector[0], None)
                return newest, self.writer.snapshot(newest, self.stamp, False, changed.values(), tuple(removed),
                                                    self.owners)
        if self._full is None or self._full[0] != newest:
            self._full = (newest, self.writer.snapshot(newest, self.stamp, True, self.world.values(), (),
                                                       self.owners))
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
