"""sim_msgs/Snapshot as CDR bytes, straight from the entities' state vectors.

Why: the replay log writes one every cycle. Built as rclpy messages (a message per entity,
lists of joint names and numbers) and serialized, a 22-robot snapshot cost its writer about
a millisecond of interpreter time a cycle, which the loop's thread felt through the GIL
(issue 45). Here each entity's fixed part (its names) is laid out once per alignment and the
numbers are packed in one call; a test holds the bytes equal to rclpy's serialization of
`convert.snapshot_to_msg` for the same snapshot."""
from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np
from sim_physics.snapshot import EntityVector

_HEADER = b"\x00\x01\x00\x00"  # CDR, little endian; alignment counts from the byte after it


class _Cdr:
    __slots__ = ("buf",)

    def __init__(self) -> None:
        self.buf = bytearray(_HEADER)

    def align(self, n: int) -> None:
        self.buf += bytes(-(len(self.buf) - 4) % n)

    def u32(self, value: int) -> None:
        self.align(4)
        self.buf += struct.pack("<I", value)

    def string(self, text: str) -> None:
        raw = text.encode() + b"\x00"
        self.u32(len(raw))
        self.buf += raw

    def strings(self, texts: Sequence[str]) -> None:
        self.u32(len(texts))
        for text in texts:
            self.string(text)

    def doubles(self, values: np.ndarray) -> None:
        self.align(8)
        self.buf += np.ascontiguousarray(values, dtype="<f8").tobytes()


@lru_cache(maxsize=1024)
def _entity_head(name: str, model: str, at: int) -> bytes:
    """An EntityState's bytes before its pose, when it starts `at` bytes (mod 8) into the
    payload: header (stamp 0, frame_id = the model), name, owner ("": single mode)."""
    cdr = _Cdr()
    cdr.buf += bytes(at)
    cdr.align(4)
    cdr.buf += bytes(8)  # header.stamp: sec, nanosec
    cdr.string(model)
    cdr.string(name)
    cdr.string("")
    cdr.align(8)
    return bytes(cdr.buf[4 + at:])


@lru_cache(maxsize=1024)
def _joint_names(names: tuple[str, ...], at: int) -> bytes:
    cdr = _Cdr()
    cdr.buf += bytes(at)
    cdr.strings(names)
    return bytes(cdr.buf[4 + at:])


# the vector's pose and twist (x y z, w x y z, linear, angular) in the message's order
# (position, orientation x y z w, linear, angular)
_POSE_ORDER = np.array([0, 1, 2, 4, 5, 6, 3, 7, 8, 9, 10, 11, 12])


def snapshot_cdr(step: int, time: float, full: bool, entities: Iterable[EntityVector],
                 removed: Sequence[str] = ()) -> bytes:
    """The Snapshot message of these entities (`StateCapture` vectors) as CDR bytes."""
    cdr = _Cdr()
    cdr.align(8)
    sec, nanosec = _stamp(time)
    cdr.buf += struct.pack("<QiI?", step, sec, nanosec, full)
    listed = list(entities)
    cdr.u32(len(listed))
    for name, model, joints, vec in listed:
        cdr.buf += _entity_head(name, model, (len(cdr.buf) - 4) % 8)
        cdr.buf += np.ascontiguousarray(vec[_POSE_ORDER], dtype="<f8").tobytes()
        cdr.buf += _joint_names(joints, (len(cdr.buf) - 4) % 8)
        n = len(joints)
        cdr.u32(n)
        if n:  # an empty sequence is its count alone (no alignment)
            cdr.doubles(vec[13:13 + n])
        cdr.u32(n)
        if n:
            cdr.doubles(vec[13 + n:13 + 2 * n])
    cdr.strings(removed)
    cdr.u32(0)  # packed: empty (the data plane's form)
    return bytes(cdr.buf)


def _stamp(time: float) -> tuple[int, int]:
    """As convert.stamp makes a builtin_interfaces/Time of a time in seconds."""
    from sim_master.ros.convert import stamp

    t = stamp(time)
    return t.sec, t.nanosec
