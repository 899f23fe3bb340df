"""The precision the replay log keeps: positions and angles to about a micrometre and a
microradian, velocities to about 0.06 mm/s (rad/s), on binary grids.

Why: a double's low mantissa bits are noise that no compressor can shrink, and they were most
of a match's log (issue 45: 0.55 GB for 2 x 300 s, the limit is 100 MB). Rounded to a power of
two, those bits are zeros and zstd takes them away; what a replay shows (and what any viewer
can draw) does not change. The live server's topics keep full precision: only the file is
rounded, here, for the snapshot and the frames alike."""
from __future__ import annotations

from dataclasses import replace
from typing import Final

import numpy as np
from sim_physics.snapshot import Snapshot

POSITION_STEP: Final = 2.0 ** -20  # m and rad: 0.95 um, 0.95 urad
ROTATION_STEP: Final = 2.0 ** -24  # quaternion components: 6e-8
VELOCITY_STEP: Final = 2.0 ** -14  # m/s and rad/s: 6.1e-5


def rounded(values: np.ndarray, step: float) -> np.ndarray:
    """`values` on the grid of `step` (a power of two: the result is exact in binary)."""
    return np.round(np.asarray(values, dtype=float) / step) * step


def snapshot_for_log(snapshot: Snapshot) -> Snapshot:
    """The snapshot as the log keeps it (one numpy pass per kind of number)."""
    entities = list(snapshot.entities.values())
    if not entities:
        return snapshot
    positions = rounded(np.array([e.position for e in entities]), POSITION_STEP)
    rotations = rounded(np.array([e.orientation for e in entities]), ROTATION_STEP)
    twists = rounded(np.array([(*e.linear_velocity, *e.angular_velocity) for e in entities]), VELOCITY_STEP)
    angles = rounded(np.fromiter((q for e in entities for q in e.joint_positions), dtype=float), POSITION_STEP)
    speeds = rounded(np.fromiter((v for e in entities for v in e.joint_velocities), dtype=float), VELOCITY_STEP)
    out = {}
    at_angle = at_speed = 0
    for i, e in enumerate(entities):
        n, m = len(e.joint_positions), len(e.joint_velocities)
        twist = twists[i].tolist()
        out[e.name] = replace(e, position=tuple(positions[i].tolist()), orientation=tuple(rotations[i].tolist()),
                              linear_velocity=tuple(twist[:3]), angular_velocity=tuple(twist[3:]),
                              joint_positions=tuple(angles[at_angle:at_angle + n].tolist()),
                              joint_velocities=tuple(speeds[at_speed:at_speed + m].tolist()))
        at_angle, at_speed = at_angle + n, at_speed + m
    return replace(snapshot, entities=out)


def frames_for_log(values: np.ndarray) -> np.ndarray:
    """/tf values (n, 7: translation x y z, rotation x y z w) as the log keeps them."""
    out = np.empty_like(values)
    out[:, :3] = rounded(values[:, :3], POSITION_STEP)
    out[:, 3:] = rounded(values[:, 3:], ROTATION_STEP)
    return out
