"""Writes steps to the Redis cache on a thread of its own.

A Redis round trip costs about as much as the whole barrier of a step; the master hands the
step over and goes on while the socket waits (the GIL is released there). The queue is
short, so Redis is never more than a few steps behind; `flush` waits for it, which the
master does before it answers a registration (a rejoining node reads the newest step) and
at exit. A restarted master that finds Redis a step behind the nodes sends them the full
world it resumed from, and they step on from that."""
from __future__ import annotations

import queue
import threading
from typing import Any, Final

from sim_master.snapshot import Snapshot
from sim_master.store.redis_cache import SnapshotCache

QUEUE_STEPS: Final = 4


class BackgroundCacheWriter:
    def __init__(self, cache: SnapshotCache) -> None:
        self.cache = cache
        self._queue: queue.Queue[tuple[Snapshot, Snapshot, dict[str, Any], bytes | None] | None] = \
            queue.Queue(QUEUE_STEPS)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="redis-writer", daemon=True)
        self._thread.start()

    def put(self, world: Snapshot, delta: Snapshot, master_state: dict[str, Any],
            delta_bytes: Any = None) -> None:
        """Queue one step (blocks only when Redis is QUEUE_STEPS steps behind); delta_bytes:
        the delta already packed (Snapshot.to_bytes), if the caller has it."""
        self._raise_error()
        self._queue.put((world, delta, master_state, delta_bytes))

    def flush(self) -> None:
        """Wait until every queued step is in Redis."""
        self._queue.join()
        self._raise_error()

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=10)
        self._raise_error()

    def _raise_error(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise RuntimeError(f"writing to Redis failed: {error}") from error

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is None:
                    return
                world, delta, state, packed = item
                self.cache.put(world, delta, master_state=state, delta_bytes=packed)
            except BaseException as exc:  # noqa: BLE001 - handed to the master's thread
                self._error = exc
            finally:
                self._queue.task_done()
