"""The precision the replay log keeps: positions and angles to 15 micrometres and microradians
(what /tf keeps), velocities to an eighth of a metre (radian) per second, on binary grids.

Why: a double's low mantissa bits are noise that no compressor can shrink, and they were most
of a match's log (issue 45: 0.55 GB for 2 x 300 s, the limit is 100 MB). Rounded to a power of
two, those bits are zeros and zstd takes them away; what a replay shows (and what any viewer
can draw) does not change. The live server's topics keep full precision: only the file is
rounded, here, for the snapshot and the frames alike. The grids were widened when the base team
played full matches: 22 walking Naos move every link every cycle, and the log of 2 x 300 s
took 123 MB at 1 um / 1 mm/s, and 101.7 MB at 4 um / 0.03 m/s; at these grids 5 % less again.
What remains is the snapshot's entropy (about 94 bytes per walking robot per cycle after zstd):
more margin would take a log of differences between cycles, which standard tools cannot read."""
from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Final

import numpy as np
from sim_physics.snapshot import EntityVector

POSITION_STEP: Final = 2.0 ** -16  # m and rad: 15 um, 15 urad
ROTATION_STEP: Final = 2.0 ** -20  # quaternion components: 1e-6 (2 urad)
VELOCITY_STEP: Final = 2.0 ** -3  # m/s and rad/s: 0.125
FRAME_POSITION_STEP: Final = 2.0 ** -16  # /tf: 15 um
FRAME_ROTATION_STEP: Final = 2.0 ** -20  # /tf quaternions: 1e-6


def rounded(values: np.ndarray, step: float | np.ndarray) -> np.ndarray:
    """`values` on the grid of `step` (powers of two, one or one per value: exact in binary)."""
    return np.round(np.asarray(values, dtype=float) / step) * step


def frames_for_log(values: np.ndarray) -> np.ndarray:
    """/tf values (n, 7: translation x y z, rotation x y z w) as the log keeps them: for a
    viewer's 3D panel, to 15 um and 1e-6 (the snapshot keeps the finer grids)."""
    out = np.empty_like(values)
    out[:, :3] = rounded(values[:, :3], FRAME_POSITION_STEP)
    out[:, 3:] = rounded(values[:, 3:], FRAME_ROTATION_STEP)
    return out


@lru_cache(maxsize=64)
def _vector_steps(joints: int) -> np.ndarray:
    """The grid of each number of a state vector with this many joints (snapshot.py's layout)."""
    return np.array([POSITION_STEP] * 3 + [ROTATION_STEP] * 4 + [VELOCITY_STEP] * 6
                    + [POSITION_STEP] * joints + [VELOCITY_STEP] * joints)


def vectors_for_log(entities: Iterable[EntityVector]) -> list[EntityVector]:
    """StateCapture's entity vectors as the log keeps them."""
    return [(name, model, joints, rounded(vec, _vector_steps(len(joints)))) if len(vec) == 13 + 2 * len(joints)
            else (name, model, joints, vec) for name, model, joints, vec in entities]
