"""The master's writes to the Redis cache, overlapped with the nodes' stepping.

A step's commands go out in one send right after StepStart; their replies are read when the
next step is written (or on flush), so the master never waits for Redis and Redis is never
more than one step behind. `flush` is called before answering a registration (a rejoining
node reads the newest step) and at exit. A restarted master that finds Redis a step behind
the nodes sends them the full world it resumed from, and they step on from that."""
from __future__ import annotations

from typing import Any, Final

from sim_master.snapshot import Snapshot
from sim_master.store.redis_cache import SnapshotCache
from sim_master.store.resp import PipelinedConnection

QUEUE_STEPS: Final = 1  # steps Redis may be behind the master


class PipelinedCacheWriter:
    def __init__(self, cache: SnapshotCache, url: str) -> None:
        self.cache = cache
        self._conn = PipelinedConnection(url)

    def put(self, world: Snapshot, delta: Snapshot, master_state: dict[str, Any], delta_bytes: Any = None) -> None:
        """Send one step's commands (after collecting the replies of the previous one)."""
        self._conn.drain()
        self._conn.send(self.cache.step_commands(world, delta, master_state, delta_bytes))

    def flush(self) -> None:
        """Wait until every step sent is in Redis."""
        self._conn.drain()

    def close(self) -> None:
        self._conn.drain()
        self._conn.close()
