"""The master's writes to the Redis cache, overlapped with the nodes' stepping, and a run
that outlives its cache.

A step's commands go out in one send right after StepStart; their replies are read when the
next step is written (or on flush), so the master never waits for Redis and Redis is never
more than one step behind. `flush` is called before answering a registration (a rejoining
node reads the newest step) and at exit. A restarted master that finds Redis a step behind
the nodes sends them the full world it resumed from, and they step on from that.

Redis is a cache, not the match: when it goes away the run goes on without it (one warning),
a background thread reconnects, and the first step after that writes the whole world and the
node registry again, so resume works from then on."""
from __future__ import annotations

import logging
import threading
from typing import Any, Final

from sim_physics.snapshot import Snapshot

from sim_distributed.redis_cache import SnapshotCache
from sim_distributed.resp import PipelinedConnection, RedisReplyError

QUEUE_STEPS: Final = 1  # steps Redis may be behind the master
RETRY_EVERY_S: Final = 1.0
IO_TIMEOUT_S: Final = 1.0  # a Redis that stops answering counts as lost after this

log = logging.getLogger("soccersim.cache")


class PipelinedCacheWriter:
    def __init__(self, cache: SnapshotCache, url: str) -> None:
        self.cache = cache
        self.url = url
        self.outages = 0  # times Redis was lost
        self._conn: PipelinedConnection | None = None
        self._reconnected: PipelinedConnection | None = None  # handed over by the reconnector
        self._rewrite = False  # the next put writes the whole world (Redis missed steps)
        self._nodes: dict[str, dict[str, Any]] = {}
        self._queued: list[tuple[Any, ...]] = []  # registry and heartbeats, sent with the next step
        self._closed = threading.Event()
        self._reconnector: threading.Thread | None = None
        try:
            self._conn = PipelinedConnection(url, timeout_s=IO_TIMEOUT_S)
        except OSError as exc:
            self._lost(exc)

    @property
    def connected(self) -> bool:
        return self._conn is not None

    def put(self, world: Snapshot, delta: Snapshot, master_state: dict[str, Any], delta_bytes: Any = None) -> None:
        """Send one step's commands (after collecting the replies of the previous one)."""
        if not self._ready():
            return
        assert self._conn is not None
        rewrite = self._rewrite
        commands = (self.cache.keyframe_commands(world, master_state, self._nodes) if rewrite
                    else self.cache.step_commands(world, delta, master_state, delta_bytes))
        commands, self._queued = self._queued + commands, []
        try:
            self._drain()
            self._conn.send(commands)
        except OSError as exc:
            self._lost(exc)
            return
        if rewrite:
            self._rewrite = False
            log.warning("Redis at %s is back: the world of step %d and %d nodes written again", self.url,
                        world.step, len(self._nodes))

    def register_node(self, node_id: str, info: dict[str, Any]) -> None:
        self._nodes[node_id] = info
        if self._conn is not None:
            self._queued.append(self.cache.register_command(node_id, info))

    def heartbeat(self, node_id: str, step: int) -> None:
        if self._conn is not None and len(self._queued) < 1000:  # heartbeats are worthless late
            self._queued.append(self.cache.heartbeat_command(node_id, step))

    def flush(self) -> None:
        """Wait until every step sent is in Redis (nothing to wait for while it is away)."""
        if self._conn is not None:
            try:
                self._drain()
            except OSError as exc:
                self._lost(exc)

    def close(self) -> None:
        self.flush()
        self._closed.set()
        for conn in (self._conn, self._reconnected):
            if conn is not None:
                conn.close()
        self._conn = self._reconnected = None

    # ------------------------------------------------------------------ outage handling
    def _drain(self) -> None:
        assert self._conn is not None
        try:
            self._conn.drain()
        except RedisReplyError as exc:  # Redis refused a command (e.g. out of memory): the link is fine
            log.warning("Redis refused a write: %s", exc)

    def _ready(self) -> bool:
        if self._conn is None and self._reconnected is not None:
            self._conn, self._reconnected = self._reconnected, None
        return self._conn is not None

    def _lost(self, exc: BaseException) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn, self._queued, self._rewrite = None, [], True
        self.outages += 1
        log.warning("Redis at %s unreachable (%s): the run goes on without the cache (no resume until it "
                    "is back); retrying every %.0f s", self.url, exc, RETRY_EVERY_S)
        if self._reconnector is None or not self._reconnector.is_alive():
            self._reconnector = threading.Thread(target=self._reconnect, name="redis-reconnect", daemon=True)
            self._reconnector.start()

    def _reconnect(self) -> None:
        """Background: try again every RETRY_EVERY_S until connected or closed."""
        while not self._closed.wait(RETRY_EVERY_S):
            try:
                self._reconnected = PipelinedConnection(self.url, timeout_s=IO_TIMEOUT_S)
                return
            except OSError:
                continue
