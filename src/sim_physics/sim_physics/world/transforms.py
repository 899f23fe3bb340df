"""Rigid transforms as (position, rotation matrix) pairs; SDF poses are x y z roll pitch yaw."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class Transform:
    pos: np.ndarray  # (3,)
    rot: np.ndarray  # (3, 3)

    @staticmethod
    def identity() -> Transform:
        return Transform(np.zeros(3), np.eye(3))

    @staticmethod
    def from_sdf_pose(text: str) -> Transform:
        values = [float(v) for v in text.split()]
        if len(values) != 6:
            raise ValueError(f"pose needs 6 numbers (x y z roll pitch yaw), got {text!r}")
        x, y, z, roll, pitch, yaw = values
        return Transform(np.array([x, y, z]), rpy_matrix(roll, pitch, yaw))

    def __matmul__(self, other: Transform) -> Transform:
        return Transform(self.pos + self.rot @ other.pos, self.rot @ other.rot)

    def inverse(self) -> Transform:
        rt = self.rot.T
        return Transform(-rt @ self.pos, rt)

    def quat(self) -> np.ndarray:
        """w, x, y, z."""
        return matrix_quat(self.rot)


def rpy_matrix(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """SDF convention: fixed axes, R = Rz(yaw) Ry(pitch) Rx(roll)."""
    cr, sr, cp, sp, cy, sy = (np.cos(roll), np.sin(roll), np.cos(pitch), np.sin(pitch),
                              np.cos(yaw), np.sin(yaw))
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def matrix_quat(r: np.ndarray) -> np.ndarray:
    w = np.sqrt(max(0.0, 1.0 + r[0, 0] + r[1, 1] + r[2, 2])) / 2
    x = np.sqrt(max(0.0, 1.0 + r[0, 0] - r[1, 1] - r[2, 2])) / 2
    y = np.sqrt(max(0.0, 1.0 - r[0, 0] + r[1, 1] - r[2, 2])) / 2
    z = np.sqrt(max(0.0, 1.0 - r[0, 0] - r[1, 1] + r[2, 2])) / 2
    x = np.copysign(x, r[2, 1] - r[1, 2])
    y = np.copysign(y, r[0, 2] - r[2, 0])
    z = np.copysign(z, r[1, 0] - r[0, 1])
    return np.array([w, x, y, z])


def quat_matrix(q: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) -> rotation matrix."""
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The Hamilton product of two (w, x, y, z) quaternions: rotation b, then a."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw])
