"""World snapshots as plain data: what the engine reports, the master merges, Redis caches
and the log records. Full snapshots hold every entity; deltas hold the changed ones."""
from __future__ import annotations

import hashlib
import itertools
import struct
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Final

import numpy as np

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]  # w, x, y, z

_MAGIC: Final = b"SSN2"
_HEADER: Final = "<qd?II"  # step, time, full, entities, bytes of text
_RS, _US = "\x1e", "\x1f"  # record and unit separators: never in entity or joint names


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


EntityVector = tuple[str, str, tuple[str, ...], np.ndarray]  # name, model, joint names, state vector


class StateCapture:
    """One cycle's state read out of the engine as plain numbers, to become a snapshot or a
    delta later on any thread (the replay log's writer): reading is all the loop pays.
    `read` makes each entity's (name, model, joint names, state vector: pose x y z w x y z,
    twist, joint positions, joint velocities, as an EntitySnapshot orders them) from data the
    engine no longer touches; it is called once, where the capture is used."""

    __slots__ = ("step", "time", "_read", "_entities")

    def __init__(self, step: int, time: float, read: Callable[[], tuple[EntityVector, ...]]) -> None:
        self.step = step
        self.time = time
        self._read = read
        self._entities: tuple[EntityVector, ...] | None = None

    @property
    def entities(self) -> tuple[EntityVector, ...]:
        if self._entities is None:
            self._entities = self._read()
        return self._entities

    def snapshot(self) -> Snapshot:
        return Snapshot(self.step, self.time, True, {name: _entity_of(name, model, joints, vec)
                                                     for name, model, joints, vec in self.entities})

    def delta(self, memory: dict[str, np.ndarray], only: set[str] | None = None) -> Snapshot:
        """What changed since `memory` (updated here): the engines' delta()."""
        changed, removed = self.changes(memory, only)
        return Snapshot(self.step, self.time, False, {name: _entity_of(name, model, joints, vec)
                                                      for name, model, joints, vec in changed}, removed)

    def changes(self, memory: dict[str, np.ndarray],
                only: set[str] | None = None) -> tuple[list[EntityVector], tuple[str, ...]]:
        """The entities whose vectors moved by more than DELTA_TOLERANCE since `memory` (all
        on the first; updated here), and those gone from the world since; `only` limits the
        report to those entities (a distributed node's own assets)."""
        changed: list[EntityVector] = []
        names = set()
        for entity in self.entities:
            name, vec = entity[0], entity[3]
            names.add(name)
            if only is not None and name not in only:
                continue
            before = memory.get(name)
            if before is None or before.shape != vec.shape or np.max(np.abs(before - vec)) > DELTA_TOLERANCE:
                changed.append(entity)
                memory[name] = vec
        removed = tuple(n for n in list(memory) if n not in names)
        for n in removed:
            memory.pop(n)
        return changed, removed


def _entity_of(name: str, model: str, joints: tuple[str, ...], vec: np.ndarray) -> EntitySnapshot:
    n = len(joints)
    v = vec.tolist()
    return EntitySnapshot(name, (v[0], v[1], v[2]), (v[3], v[4], v[5], v[6]), (v[7], v[8], v[9]),
                          (v[10], v[11], v[12]), joints, tuple(v[13:13 + n]), tuple(v[13 + n:13 + 2 * n]), model=model)


DELTA_TOLERANCE: Final = 1e-9  # a state that moved less is not reported again


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
            # + 0.0 folds -0.0 into 0.0: a rigid joint hovers around zero within 1e-12
            h.update((np.round(np.asarray(values, dtype=np.float64), decimals) + 0.0).tobytes())
        return h.hexdigest()[:16]

    def to_bytes(self) -> bytes:
        """Compact binary form for Redis and the distributed data plane (data only, no
        pickle). One text block holds every name, one float64 block every number, so
        decoding is two splits and one array read however many entities there are."""
        entities = list(self.entities.values())
        text = _RS.join([_US.join(self.removed),
                         *(_US.join((e.name, e.owner, e.model, *e.joint_names)) for e in entities)]).encode()
        counts = np.fromiter((len(e.joint_names) for e in entities), dtype="<u4", count=len(entities))
        values = np.fromiter(itertools.chain.from_iterable(
            (*e.position, *e.orientation, *e.linear_velocity, *e.angular_velocity, *e.joint_positions,
             *e.joint_velocities) for e in entities), dtype="<f8")
        header = struct.pack(_HEADER, self.step, self.time, self.full, len(entities), len(text))
        return b"".join((_MAGIC, header, text, counts.tobytes(), values.tobytes()))

    @staticmethod
    def from_bytes(data: bytes) -> Snapshot:
        if data[:4] != _MAGIC:
            raise ValueError("not a snapshot (bad magic)")
        step, time, full, n_ent, n_text = struct.unpack_from(_HEADER, data, 4)
        pos = 4 + struct.calcsize(_HEADER)
        records = bytes(data[pos:pos + n_text]).decode().split(_RS)
        pos += n_text
        counts = np.frombuffer(data, dtype="<u4", count=n_ent, offset=pos).tolist()
        pos += 4 * n_ent
        values = np.frombuffer(data, dtype="<f8", offset=pos).tolist()
        if len(records) != n_ent + 1 or len(values) != 13 * n_ent + 2 * sum(counts):
            raise ValueError("corrupt snapshot (sizes do not match)")
        removed = tuple(records[0].split(_US)) if records[0] else ()
        entities: dict[str, EntitySnapshot] = {}
        i = 0
        for record, n in zip(records[1:], counts):
            name, owner, model, *joints = record.split(_US)
            v = values[i:i + 13 + 2 * n]
            i += 13 + 2 * n
            entities[name] = EntitySnapshot(
                name, (v[0], v[1], v[2]), (v[3], v[4], v[5], v[6]), (v[7], v[8], v[9]), (v[10], v[11], v[12]),
                tuple(joints), tuple(v[13:13 + n]), tuple(v[13 + n:]), owner, model)
        return Snapshot(step=step, time=time, full=full, entities=entities, removed=removed)


