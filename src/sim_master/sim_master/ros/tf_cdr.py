"""/tf as CDR bytes, computed for every frame at once.

Why: a match's /tf is some 450 transforms (22 Naos' links and the ball). Built as rclpy
messages and serialized, one was most of what the replay log cost the loop (6 of the 11 ms a
22-agent cycle spent writing the log, issue 45). The frames of a match change only when a
robot comes or goes, so their layout is planned once: which pairs of links each transform
joins and where each number sits in the message's bytes. Each cycle then computes the
relative poses with numpy and writes them into a copy of the planned bytes.

The plan is the one description of the match's frames: the live /tf, the log's /tf and the
rclpy messages (`frames.tf_messages`) all come from it, and a test holds these bytes equal to
rclpy's serialization of those messages."""
from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

WORLD_FRAME: Final = "world"
_HEADER: Final = b"\x00\x01\x00\x00"  # CDR, little endian
_WORLD: Final = -1  # parent index of a frame given in the world


@dataclass(frozen=True)
class FrameLink:
    """One transform: parent -> child, with their rows in the engine's frames (parent -1: world)."""
    entity: str  # whose it is ("" for the ball and frames of no known tree)
    parent: str
    child: str
    parent_row: int
    child_row: int


class TfLayout:
    """The transforms of one set of frames, and where their numbers go in the CDR bytes."""

    def __init__(self, links: Sequence[FrameLink]) -> None:
        self.links = tuple(links)
        self._parents = np.array([link.parent_row for link in self.links], dtype=np.intp)
        self._children = np.array([link.child_row for link in self.links], dtype=np.intp)
        self._in_world = self._parents == _WORLD
        template = bytearray(_HEADER)
        _put(template, "I", len(self.links))
        stamps: list[int] = []
        numbers: list[int] = []
        for link in self.links:
            _align(template, 4)
            stamps.append(len(template))
            template += bytes(8)  # sec, nanosec
            _put_string(template, link.parent)
            _put_string(template, link.child)
            _align(template, 8)
            numbers.append(len(template))
            template += bytes(56)  # translation x y z, rotation x y z w
        self._template = bytes(template)
        self._stamp_at = np.array(stamps, dtype=np.intp)
        # byte positions of every double: (n, 7 * 8)
        self._number_bytes = (np.array(numbers, dtype=np.intp)[:, None] + np.arange(56)[None, :]).ravel()
        self._stamp_bytes = (self._stamp_at[:, None] + np.arange(8)[None, :]).ravel()

    def __len__(self) -> int:
        return len(self.links)

    def values(self, poses: np.ndarray) -> np.ndarray:
        """(n, 7) per transform: the child's translation x y z and rotation x y z w in its
        parent's frame (`poses`: the engine's frames, x y z w x y z in the world)."""
        rows = np.asarray(poses, dtype=float)
        if not self.links:
            return np.zeros((0, 7))
        child = rows[self._children]
        parent = np.where(self._in_world[:, None], _IDENTITY, rows[np.where(self._in_world, 0, self._parents)])
        # the parent's rotation undone: conj(qp) * (c - p) * qp, conj(qp) * qc
        pw, pv = parent[:, 3], -parent[:, 4:7]
        offset = child[:, :3] - parent[:, :3]
        twice = 2.0 * np.cross(pv, offset)
        local = offset + pw[:, None] * twice + np.cross(pv, twice)
        cw, cv = child[:, 3], child[:, 4:7]
        qw = pw * cw - np.einsum("ij,ij->i", pv, cv)
        qv = pw[:, None] * cv + cw[:, None] * pv + np.cross(pv, cv)
        norm = np.sqrt(qw * qw + np.einsum("ij,ij->i", qv, qv))
        norm[norm == 0.0] = 1.0
        out = np.empty((len(self.links), 7))
        out[:, :3] = local
        out[:, 3:6] = qv / norm[:, None]
        out[:, 6] = qw / norm
        # a frame in the world is the engine's pose as it is (no round trip through the maths)
        out[self._in_world, :3] = child[self._in_world, :3]
        out[self._in_world, 3:6] = child[self._in_world, 4:7]
        out[self._in_world, 6] = child[self._in_world, 3]
        return out

    def encode(self, values: np.ndarray, sec: int, nanosec: int) -> bytes:
        """A TFMessage's CDR bytes: these transforms at this stamp (`values` from `values`)."""
        data = np.frombuffer(bytearray(self._template), dtype=np.uint8)
        if len(self.links):
            stamp = np.frombuffer(struct.pack("<iI", sec, nanosec), dtype=np.uint8)
            data[self._stamp_bytes] = np.tile(stamp, len(self.links))
            data[self._number_bytes] = np.ascontiguousarray(values, dtype="<f8").view(np.uint8).ravel()
        return data.tobytes()


_IDENTITY: Final = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])


def plan_links(names: Sequence[str], trees: Iterable[tuple[str, str | None, Sequence[tuple[str, str, bool]]]],
               *, fixed: bool) -> tuple[list[FrameLink], list[FrameLink]]:
    """Each robot as a tree (world -> its root link, then parent -> child per joint), the
    ball and the links of robots without a known tree in the world. `trees`: (entity, root
    link or None, (parent, child, is fixed) per joint). Returns (moving, fixed joints): with
    `fixed` the fixed joints are among the moving (a log has no latched /tf_static)."""
    index = {name: i for i, name in enumerate(names)}
    moving: list[FrameLink] = []
    still: list[FrameLink] = []
    placed: set[str] = set()
    for entity, root_link, joints in trees:
        root = f"{entity}/{root_link}" if root_link else ""
        if root not in index:
            continue
        moving.append(FrameLink(entity, WORLD_FRAME, root, _WORLD, index[root]))
        placed.add(root)
        for parent, child, is_fixed in joints:
            p, c = f"{entity}/{parent}", f"{entity}/{child}"
            if p not in index or c not in index:
                continue
            placed.add(c)
            (still if is_fixed and not fixed else moving).append(FrameLink(entity, p, c, index[p], index[c]))
    for name, i in index.items():
        if name not in placed:
            moving.append(FrameLink("", WORLD_FRAME, name, _WORLD, i))
    return moving, still


def _align(buf: bytearray, n: int) -> None:
    buf += bytes(-(len(buf) - len(_HEADER)) % n)


def _put(buf: bytearray, fmt: str, value: int) -> None:
    _align(buf, struct.calcsize(fmt))
    buf += struct.pack("<" + fmt, value)


def _put_string(buf: bytearray, text: str) -> None:
    raw = text.encode() + b"\x00"
    _put(buf, "I", len(raw))
    buf += raw
