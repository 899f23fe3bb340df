"""World snapshots as plain data: what the engine reports, the master merges, Redis caches
and the log records. Full snapshots hold every entity; deltas hold the changed ones."""
from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field, replace
from typing import Final

import numpy as np

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]  # w, x, y, z

_MAGIC: Final = b"SSN1"


@dataclass(slots=True)
class EntitySnapshot:
    """Ground-truth state of one entity (robot, ball, or any spawned model)."""

    name: str
    position: Vec3
    orientation: Quat = (1.0, 0.0, 0.0, 0.0)
    linear_velocity: Vec3 = (0.0, 0.0, 0.0)
    angular_velocity: Vec3 = (0.0, 0.0, 0.0)
    joint_names: tuple[str, ...] = ()
    joint_positions: tuple[float, ...] = ()  # rad
    joint_velocities: tuple[float, ...] = ()  # rad/s
    owner: str = ""  # simulating node (distributed mode); "" in single mode
    model: str = ""  # nao0, pusher, ball, ... (needed to respawn it)


@dataclass(slots=True)
class Snapshot:
    """World state at `step` (time in s). `removed` lists entities deleted since the base."""

    step: int
    time: float
    full: bool
    entities: dict[str, EntitySnapshot] = field(default_factory=dict)
    removed: tuple[str, ...] = ()

    def merged(self, delta: Snapshot) -> Snapshot:
        """Apply a delta (or a full snapshot, which replaces everything) to this snapshot."""
        if delta.full:
            return replace(delta, entities=dict(delta.entities))
        entities = dict(self.entities)
        for name in delta.removed:
            entities.pop(name, None)
        entities.update(delta.entities)
        return Snapshot(step=delta.step, time=delta.time, full=True, entities=entities)

    def owned_by(self, owner: str) -> Snapshot:
        """The part of this snapshot that one node simulates."""
        kept = {n: e for n, e in self.entities.items() if e.owner == owner}
        return Snapshot(self.step, self.time, self.full, kept, self.removed)

    def digest(self, decimals: int = 6) -> str:
        """Order-independent hash of the state, rounded so equal worlds hash equal."""
        h = hashlib.sha256()
        h.update(struct.pack("<q", self.step))
        for name in sorted(self.entities):
            e = self.entities[name]
            h.update(name.encode())
            h.update(e.owner.encode())
            values = (*e.position, *e.orientation, *e.linear_velocity, *e.angular_velocity,
                      *e.joint_positions, *e.joint_velocities)
            h.update(np.round(np.asarray(values, dtype=np.float64), decimals).tobytes())
        return h.hexdigest()[:16]

    def to_bytes(self) -> bytes:
        """Compact binary form for Redis and logs (no pickle: data only)."""
        out = bytearray(_MAGIC)
        out += struct.pack("<qd?II", self.step, self.time, self.full, len(self.entities),
                           len(self.removed))
        for name in self.removed:
            _put_str(out, name)
        for e in self.entities.values():
            _put_str(out, e.name)
            _put_str(out, e.owner)
            _put_str(out, e.model)
            out += struct.pack("<13d", *e.position, *e.orientation, *e.linear_velocity,
                               *e.angular_velocity)
            n = len(e.joint_names)
            out += struct.pack("<I", n)
            for j in e.joint_names:
                _put_str(out, j)
            out += struct.pack(f"<{2 * n}d", *e.joint_positions, *e.joint_velocities)
        return bytes(out)

    @staticmethod
    def from_bytes(data: bytes) -> Snapshot:
        if data[:4] != _MAGIC:
            raise ValueError("not a snapshot (bad magic)")
        view = memoryview(data)
        step, time, full, n_ent, n_rem = struct.unpack_from("<qd?II", view, 4)
        pos = 4 + struct.calcsize("<qd?II")
        removed = []
        for _ in range(n_rem):
            name, pos = _get_str(view, pos)
            removed.append(name)
        entities: dict[str, EntitySnapshot] = {}
        for _ in range(n_ent):
            name, pos = _get_str(view, pos)
            owner, pos = _get_str(view, pos)
            model, pos = _get_str(view, pos)
            v = struct.unpack_from("<13d", view, pos)
            pos += 13 * 8
            (n,) = struct.unpack_from("<I", view, pos)
            pos += 4
            joints = []
            for _ in range(n):
                j, pos = _get_str(view, pos)
                joints.append(j)
            q = struct.unpack_from(f"<{2 * n}d", view, pos)
            pos += 2 * n * 8
            entities[name] = EntitySnapshot(
                name=name, position=v[0:3], orientation=v[3:7], linear_velocity=v[7:10],
                angular_velocity=v[10:13], joint_names=tuple(joints),
                joint_positions=tuple(q[:n]), joint_velocities=tuple(q[n:]), owner=owner,
                model=model)
        return Snapshot(step=step, time=time, full=full, entities=entities,
                        removed=tuple(removed))


def _put_str(out: bytearray, text: str) -> None:
    raw = text.encode()
    out += struct.pack("<H", len(raw))
    out += raw


def _get_str(view: memoryview, pos: int) -> tuple[str, int]:
    (n,) = struct.unpack_from("<H", view, pos)
    return bytes(view[pos + 2:pos + 2 + n]).decode(), pos + 2 + n
