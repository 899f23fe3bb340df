"""What the API's streams send, made once for every client and only when a client waits for
it: the snapshot hub and the game hub.

Why: twenty viewers of one match must cost one conversion per cycle, not twenty; a viewer
that reads slowly (or not at all, or asks for 10 Hz) must cost nothing and never grow a
queue. A stream registers the step it waits for (`due`, read by the simulation's thread
each cycle): the simulation hands its state in only when some stream waits for that cycle.
The hub keeps the newest world and a short ring of the last hand-ins' changes, each
serialized once (straight from the state vectors: api/wire.py); a client asks for "what
changed since the hand-in I have": the newest changes, the ring's changes chained, or the
whole world when it is further behind. Everything here runs on the API server's event loop
but `due` and `publish_*` (the simulation's side)."""
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

RING: Final = 64  # hand-ins of changes kept: a client further behind is sent the whole world
NEVER: Final = 1 << 62  # the step nobody waits for
EVENTS_KEPT: Final = 256  # game events kept for a client that reads slowly


Make = Callable[[], tuple[int, float, list[EntityVector], tuple[str, ...], bool]]


@dataclass(slots=True)
class _Cycle:
    seq: int
    full: bool
    changed: list[EntityVector]
    removed: tuple[str, ...]
    data: bytes  # the message serialized


class _Waiters:
    """The steps the streams wait for; `due` is the earliest (NEVER: nobody waits)."""

    def __init__(self) -> None:
        self._targets: list[int] = []
        self.due = NEVER
        self._event: asyncio.Event | None = None

    def bind(self) -> None:
        self._event = asyncio.Event()

    def woken(self) -> None:
        """(event loop) Something new arrived: every waiter looks again."""
        if self._event is not None:
            self._event.set()
            self._event = asyncio.Event()

    async def until(self, target: int, now: Callable[[], int]) -> None:
        """Until `now()` reaches `target`, registered as due meanwhile."""
        self._targets.append(target)
        self.due = min(self._targets)
        try:
            while now() < target:
                assert self._event is not None
                await self._event.wait()
        finally:
            self._targets.remove(target)
            self.due = min(self._targets, default=NEVER)


class SnapshotHub:
    """The newest world (entity vectors) and the last RING hand-ins' changes, each serialized
    once (api/wire.py). `due` and `publish_*` from the simulation's thread, the rest on the
    event loop `bind` names."""

    def __init__(self) -> None:
        self.subscribers = 0
        self.waiters = _Waiters()
        self.seq = 0  # hand-ins taken (a stream's place: the ring chains by it)
        self.step = -1  # of the newest world (-1: none yet)
        self.stamp = 0.0
        self.world: dict[str, EntityVector] = {}
        self.owners: dict[str, str] = {}  # entity -> its node (distributed runs)
        self.writer = SnapshotWriter()
        self._ring: deque[_Cycle] = deque(maxlen=RING)
        self._memory: dict[str, np.ndarray] = {}  # what the last capture's delta was taken against
        self._full: tuple[int, bytes] | None = None  # the world serialized, as of a hand-in
        self._aio: asyncio.AbstractEventLoop | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._aio = loop
        self.waiters.bind()

    def due(self, step: int) -> bool:
        """(simulation's thread) Some stream waits for the world of `step`: hand it in."""
        return self.waiters.due <= step

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
        """(event loop) One hand-in's changes into the world and the ring."""
        step, stamp, changed, removed, full = make()
        if full:
            self.world = {}
            self._ring.clear()
        for name in removed:
            self.world.pop(name, None)
            self.owners.pop(name, None)
            self.writer.forget(name)
        for vector in changed:
            self.world[vector[0]] = vector
        self.seq += 1
        data = self.writer.snapshot(step, stamp, full, changed, removed, self.owners)
        self._ring.append(_Cycle(self.seq, full, changed, removed, data))
        self.step, self.stamp = step, stamp
        self.waiters.woken()

    # ------------------------------------------------------------------ clients' side
    async def wait_for_step(self, step: int) -> None:
        """Until the world of `step` (or a newer one) is here; the simulation is asked for it."""
        await self.waiters.until(step, lambda: self.step)

    def since(self, seq: int | None, *, full: bool = False) -> tuple[int, bytes]:
        """(newest hand-in, the message that brings a client at hand-in `seq` there): the
        newest changes, the ring's changes chained, or the whole world (first message, `full`,
        too far behind, or the world started again since)."""
        newest = self.seq
        ring = self._ring
        if seq is not None and not full and ring and ring[0].seq <= seq + 1 and seq < newest:
            missed = [c for c in ring if c.seq > seq]
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
                return newest, self.writer.snapshot(self.step, self.stamp, False, changed.values(),
                                                    tuple(removed), self.owners)
        if self._full is None or self._full[0] != newest:
            self._full = (newest, self.writer.snapshot(self.step, self.stamp, True, self.world.values(), (),
                                                       self.owners))
        return newest, self._full[1]


class GameHub:
    """The game state and the events of the last EVENTS_KEPT, numbered: a client is sent the
    newest state with every event since its last update. The simulation hands in a cycle only
    when the game changed (not its clock) or something happened, and only while somebody
    streams: `wanted` and `changed` are read on its thread."""

    def __init__(self) -> None:
        self.subscribers = 0
        self.seq = 0  # hand-ins taken
        self.step = -1
        self.state: pb.GameState | None = None
        self._events: deque[tuple[int, pb.GameEvent]] = deque(maxlen=EVENTS_KEPT)
        self._count = 0  # events ever published
        self._last_key: tuple[object, ...] | None = None  # (simulation's thread) the game last handed in
        self._aio: asyncio.AbstractEventLoop | None = None
        self.waiters = _Waiters()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._aio = loop
        self.waiters.bind()

    @property
    def wanted(self) -> bool:
        return self.subscribers > 0

    def publish(self, step: int, stamp: float, state: GameStateSnapshot, events: list[GameEvent]) -> None:
        """(simulation's thread) This cycle's game, handed in when it changed or has events."""
        key = game_key(state)
        if not events and key == self._last_key:
            return
        self._last_key = key
        aio = self._aio
        if aio is None or aio.is_closed():
            return
        try:
            aio.call_soon_threadsafe(self._take, step, stamp, state, events)
        except RuntimeError:
            pass

    def _take(self, step: int, stamp: float, state: GameStateSnapshot, events: list[GameEvent]) -> None:
        self.step, self.state = step, convert.game_state(state, stamp)
        self.seq += 1
        for e in events:
            self._count += 1
            self._events.append((self._count, convert.game_event(e, stamp)))
        self.waiters.woken()

    def take_now(self, step: int, state: pb.GameState) -> None:
        """(event loop) The game as read for a new stream, when the hub has none yet."""
        if self.state is None:
            self.step, self.state = step, state
            self.seq += 1

    async def wait_beyond(self, seq: int) -> None:
        await self.waiters.until(seq + 1, lambda: self.seq)

    def since(self, seen: int | None) -> tuple[int, pb.GameUpdate]:
        """(events published so far, the update for a client that has seen `seen` of them)."""
        events = [] if seen is None else [e for n, e in self._events if n > seen]
        return self._count, pb.GameUpdate(step=max(self.step, 0), state=self.state, events=events)


def game_key(s: GameStateSnapshot) -> tuple[object, ...]:
    """What makes a game state worth telling again (everything but the running clock)."""
    return (s.play_mode, s.half, s.team_left, s.team_right, s.score_left, s.score_right, s.last_touch)
