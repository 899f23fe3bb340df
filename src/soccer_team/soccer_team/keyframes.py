"""Motions played from key poses: each pose (joint angles in degrees) is reached in its time by
moving every joint evenly from where it stood when the pose began. Get-ups and kicks are such
motions; their poses are data (getup.py, kick.py), tuned on the engine (bench/tune_motion.py).

Poses name the left side only where the robot is mirror-symmetric: `mirrored` adds the right
side, flipping the joints whose axes flip between the sides (rolls and the arms' yaws).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# joints whose right twin turns the other way for a mirror-image motion
_FLIPPED = {"lj2", "lj6", "aj2", "aj3", "aj4"}


def twin(joint: str) -> str:
    """The other side's joint: llj3 <-> rlj3, laj1 <-> raj1."""
    return ("r" + joint[1:]) if joint[0] == "l" else ("l" + joint[1:])


def mirrored(pose: dict[str, float]) -> dict[str, float]:
    """The pose with each left joint's twin on the right (and the other way round)."""
    out = dict(pose)
    for joint, angle in pose.items():
        if joint[0] in "lr" and twin(joint) not in pose:
            out[twin(joint)] = -angle if joint[1:] in _FLIPPED else angle
    return out


def swapped(pose: dict[str, float]) -> dict[str, float]:
    """The mirror image of an asymmetric pose: what the left did, the right does."""
    out: dict[str, float] = {}
    for joint, angle in pose.items():
        other = twin(joint) if joint[0] in "lr" else joint
        out[other] = -angle if joint[1:] in _FLIPPED else angle
    return out


@dataclass(frozen=True, slots=True)
class KeyPose:
    seconds: float
    angles: dict[str, float]  # degrees, by perceptor name


class KeyframeMotion:
    """Plays poses one after the other; `targets` gives each cycle's joint targets (rad)."""

    def __init__(self, name: str, poses: Sequence[KeyPose], cycle: float = 0.02) -> None:
        self.name = name
        self.poses = list(poses)
        self.cycle = cycle
        self._index = 0
        self._elapsed = 0.0
        self._from: dict[str, float] = {}

    @property
    def done(self) -> bool:
        return self._index >= len(self.poses)

    def targets(self, angles_deg: dict[str, float]) -> dict[str, float]:
        """Advance one cycle; the joint targets (rad) for its end. Call while not done."""
        if self.done:
            return {}
        pose = self.poses[self._index]
        if self._elapsed == 0.0:
            self._from = {j: angles_deg.get(j, a) for j, a in pose.angles.items()}
        self._elapsed += self.cycle
        share = min(1.0, self._elapsed / max(pose.seconds, self.cycle))
        out = {j: math.radians(self._from[j] + (a - self._from[j]) * share) for j, a in pose.angles.items()}
        if share >= 1.0 - 1e-9:
            self._index += 1
            self._elapsed = 0.0
        return out
