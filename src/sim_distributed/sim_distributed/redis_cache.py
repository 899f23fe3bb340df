"""The Redis cache of a distributed run: the latest full snapshot every K steps (a
keyframe) and a stream of deltas since, the node registry, heartbeats and the master's
own state, so that a restarted node or master resumes at the current step.

Keys (prefix soccersim:<run>:): keyframe (bytes), deltas (stream, trimmed at each
keyframe), nodes (hash id -> JSON), heartbeat:<id> (last step, with a TTL), master (JSON)."""
from __future__ import annotations

import json
import time
from typing import Any

import redis
from sim_physics.snapshot import Snapshot


class SnapshotCache:
    def __init__(self, url: str, run_id: str, *, keyframe_every: int = 100) -> None:
        self.url = url
        self.r = redis.Redis.from_url(url)
        self.prefix = f"soccersim:{run_id}:"
        self.keyframe_every = keyframe_every

    def _key(self, name: str) -> str:
        return self.prefix + name

    # ------------------------------------------------------------------ snapshots
    def put(self, world: Snapshot, delta: Snapshot, master_state: dict[str, Any] | None = None,
            delta_bytes: Any = None) -> None:
        """Record one step (one round trip)."""
        pipe = self.r.pipeline(transaction=False)
        for command in self.step_commands(world, delta, master_state, delta_bytes):
            pipe.execute_command(*command)
        pipe.execute()

    def step_commands(self, world: Snapshot, delta: Snapshot, master_state: dict[str, Any] | None = None,
                      delta_bytes: Any = None) -> list[tuple[Any, ...]]:
        """The commands that record one step: the delta always, the whole world on keyframe
        steps, and the master's own state with it. No MULTI: readers skip deltas older than
        the keyframe, so order is enough."""
        commands: list[tuple[Any, ...]] = []
        if master_state is not None:
            commands.append(("SET", self._key("master"), json.dumps(master_state)))
        if world.step % self.keyframe_every == 0:
            full = Snapshot(world.step, world.time, True, world.entities)
            commands.append(("SET", self._key("keyframe"), full.to_bytes()))
            commands.append(("DEL", self._key("deltas")))
        else:
            data = delta.to_bytes() if delta_bytes is None else bytes(delta_bytes)
            commands.append(("XADD", self._key("deltas"), "*", "step", delta.step, "data", data))
        return commands

    def keyframe_commands(self, world: Snapshot, master_state: dict[str, Any] | None,
                          nodes: dict[str, dict[str, Any]]) -> list[tuple[Any, ...]]:
        """Everything again after an outage: the whole world as the keyframe, the master's
        state and the node registry (a restarted Redis has none of it)."""
        full = Snapshot(world.step, world.time, True, world.entities)
        commands: list[tuple[Any, ...]] = [
            ("SET", self._key("keyframe"), full.to_bytes()),
            ("DEL", self._key("deltas")),
        ]
        commands += [self.register_command(node_id, info) for node_id, info in nodes.items()]
        if master_state is not None:
            commands.append(("SET", self._key("master"), json.dumps(master_state)))
        return commands

    def latest(self) -> Snapshot | None:
        """The newest world state: keyframe plus every delta recorded since."""
        raw = self.r.get(self._key("keyframe"))
        if raw is None:
            return None
        world = Snapshot.from_bytes(_as_bytes(raw))
        for _, fields in self.r.xrange(self._key("deltas")) or ():
            delta = Snapshot.from_bytes(_as_bytes((fields or {})[b"data"]))
            if delta.step > world.step:
                world = world.merged(delta)
        return world

    # ------------------------------------------------------------------ registry, heartbeats
    def register_command(self, node_id: str, info: dict[str, Any]) -> tuple[Any, ...]:
        return ("HSET", self._key("nodes"), node_id, json.dumps(info))

    def register_node(self, node_id: str, info: dict[str, Any]) -> None:
        self.r.execute_command(*self.register_command(node_id, info))

    def nodes(self) -> dict[str, dict[str, Any]]:
        return {_as_bytes(k).decode(): json.loads(v) for k, v in self.r.hgetall(self._key("nodes")).items()}

    def heartbeat_command(self, node_id: str, step: int, ttl_s: float = 10.0) -> tuple[Any, ...]:
        return ("SET", self._key(f"heartbeat:{node_id}"), json.dumps({"step": step, "time": time.time()}),
                "PX", int(ttl_s * 1000))

    def heartbeat(self, node_id: str, step: int, ttl_s: float = 10.0) -> None:
        self.r.execute_command(*self.heartbeat_command(node_id, step, ttl_s))

    def last_heartbeat(self, node_id: str) -> dict[str, Any] | None:
        raw = self.r.get(self._key(f"heartbeat:{node_id}"))
        return json.loads(raw) if raw else None

    # ------------------------------------------------------------------ master
    def save_master_state(self, state: dict[str, Any]) -> None:
        self.r.set(self._key("master"), json.dumps(state))

    def load_master_state(self) -> dict[str, Any] | None:
        raw = self.r.get(self._key("master"))
        return json.loads(raw) if raw else None

    def clear(self) -> None:
        keys = list(self.r.scan_iter(self.prefix + "*"))
        if keys:
            self.r.delete(*keys)


def _as_bytes(value: object) -> bytes:
    """Replies of a client without decode_responses are bytes; anything else is a broken store."""
    if not isinstance(value, bytes):
        raise TypeError(f"expected bytes from Redis, got {type(value).__name__}")
    return value
