"""The SimSpark Nao's legs, solved in closed form: where a foot is for six joint angles, and
the angles that put a foot at a pose.

Why closed form: the walk asks for both feet every cycle for every player, so the solve must
cost microseconds, not a numeric search. The chain is the model's (worlds/models/nao0.sdf):
hip yaw-pitch about an axis tilted 45 degrees, hip roll (x), hip pitch, knee and ankle pitch
(all about -y), ankle roll (x); thigh 0.12 m, shank 0.10 m on type 0. The nao_hetero types 1
and 3 have longer legs: `legs_of(model)` reads a type's lengths from its model file, and
every solve takes them (`legs`, type 0's by default). Angles are radians with the
model's signs: positive hip pitch swings the leg forward, the knee bends negative, positive
ankle pitch lifts the toes. The solve follows the usual route for this leg (published for the
real Nao by several teams): the ankle joints and the knee from the hip seen from the foot, then
the hip's three rotations from what remains, with the tilted axis turned onto z.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Final

import numpy as np

THIGH: Final = 0.12  # type 0: hip to knee, m (the model's 5 mm forward offset of the knee is left out)
SHANK: Final = 0.10  # type 0: knee to ankle, m
HIP_Y: Final = 0.055  # each hip's sideways offset from the torso's centre, m
HIP_X: Final = -0.01
HIP_Z: Final = -0.115
ANKLE_TO_SOLE: Final = 0.05  # ankle joint to the sole, m (foot link 5 mm below, box centre 35 mm, half 10 mm)

# the hip yaw-pitch axes turned onto z: a rotation about x by these angles (left, right)
_TILT: Final = {"l": -3 * math.pi / 4, "r": -math.pi / 4}

# joint limits (rad) from the model, per side: (llj1..llj6) and (rlj1..rlj6)
LIMITS: Final = {
    "l": ((-1.570796, 0.017453), (-0.436332, 0.785398), (-0.436332, 1.745329), (-2.268928, 0.017453),
          (-0.785398, 1.308997), (-0.785398, 0.436332)),
    "r": ((-1.570796, 0.017453), (-0.785398, 0.436332), (-0.436332, 1.745329), (-2.268928, 0.017453),
          (-0.785398, 1.308997), (-0.436332, 0.785398)),
}


def rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array(((1.0, 0.0, 0.0), (0.0, c, -s), (0.0, s, c)))


def rot_y(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array(((c, 0.0, s), (0.0, 1.0, 0.0), (-s, 0.0, c)))


def rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array(((c, -s, 0.0), (s, c, 0.0), (0.0, 0.0, 1.0)))


def _yaw_pitch(side: str, a: float) -> np.ndarray:
    tilt = rot_x(_TILT[side])
    return tilt @ rot_z(a) @ tilt.T


@dataclass(frozen=True, slots=True)
class LegGeometry:
    """A robot type's thigh (hip pitch to knee), shank (knee to ankle pitch) and each hip's
    sideways offset from the torso's centre, m."""

    thigh: float = THIGH
    shank: float = SHANK
    hip_y: float = HIP_Y

    @property
    def reach(self) -> float:
        """How far from the hip the walk and the kick put an ankle at most (1 mm short of the
        stretched leg, so the knee's angle stays defined)."""
        return self.thigh + self.shank - 0.001

    @property
    def stance(self) -> float:
        """How much higher the walk holds the hips than on type 0's legs: 0.6 of the legs'
        extra length (the same height crouched nao3 deep enough to fall within a minute)."""
        return 1.0 + 0.6 * ((self.thigh + self.shank) / (THIGH + SHANK) - 1.0)


NAO0: Final = LegGeometry()


@functools.lru_cache(maxsize=16)
def legs_of(model: str) -> LegGeometry:
    """The legs of a robot model (nao, nao0 ... nao4), read from its model file: the heights of
    the hip pitch, knee and ankle pitch joints (llj3, llj4, llj5) and the hip's place (llj1)."""
    from sim_physics.engine.common import MODEL_ALIASES
    from sim_physics.world.sdf_loader import load_model

    spec = load_model(MODEL_ALIASES.get(model, model))
    at = {j.name: j.pose.pos for j in spec.joints if j.name in ("llj1", "llj3", "llj4", "llj5")}
    if len(at) != 4:
        raise ValueError(f"robot model {model!r} has no Nao leg (llj1, llj3, llj4, llj5)")
    z = {name: float(pos[2]) for name, pos in at.items()}
    return LegGeometry(round(z["llj3"] - z["llj4"], 6), round(z["llj4"] - z["llj5"], 6), round(float(at["llj1"][1]), 6))


@dataclass(frozen=True, slots=True)
class FootPose:
    """The ankle joint's place relative to its hip joint (m, torso axes) and the foot's
    orientation (rad: roll about x, pitch about y as the model's pitch joints count it,
    yaw about z), applied yaw, then roll, then pitch."""

    x: float
    y: float
    z: float
    roll: float = 0.0
    pitch: float = 0.0
    yaw: float = 0.0

    def rotation(self) -> np.ndarray:
        return rot_z(self.yaw) @ rot_x(self.roll) @ rot_y(-self.pitch)


def foot_pose(side: str, q: tuple[float, ...] | list[float],
              legs: LegGeometry = NAO0) -> tuple[np.ndarray, np.ndarray]:
    """Forward kinematics: the ankle's position relative to the hip and the foot's rotation,
    for the joint angles (j1..j6, rad) of leg `side` ("l" or "r")."""
    q1, q2, q3, q4, q5, q6 = q
    hip = _yaw_pitch(side, q1) @ rot_x(q2) @ rot_y(-q3)
    shank = hip @ rot_y(-q4)
    ankle = hip @ np.array((0.0, 0.0, -legs.thigh)) + shank @ np.array((0.0, 0.0, -legs.shank))
    return ankle, shank @ rot_y(-q5) @ rot_x(q6)


class Unreachable(ValueError):
    """The foot pose is farther from the hip than the stretched leg."""


def solve_leg(side: str, target: FootPose,
              legs: LegGeometry = NAO0) -> tuple[float, float, float, float, float, float]:
    """The six joint angles (rad) that put leg `side`'s ankle and foot at `target`. A target
    out of reach raises Unreachable; angles are not clipped to the limits (clip_to_limits)."""
    return solve_leg_at(side, np.array((target.x, target.y, target.z)), target.rotation(), legs)


def solve_leg_at(side: str, ankle: np.ndarray, foot: np.ndarray,
                 legs: LegGeometry = NAO0) -> tuple[float, float, float, float, float, float]:
    """solve_leg for an ankle position (m, from the hip) and a foot rotation matrix."""
    thigh, shank = legs.thigh, legs.shank
    hip_from_ankle = foot.T @ -ankle  # in the foot's frame
    hx, hy, hz = (float(v) for v in hip_from_ankle)
    q6 = math.atan2(hy, hz)
    reach = math.sqrt(hx * hx + hy * hy + hz * hz)
    if reach > thigh + shank - 1e-9:
        raise Unreachable(f"foot {reach:.3f} m from the hip, the leg reaches {thigh + shank:.3f}")
    cos_knee = (thigh * thigh + shank * shank - reach * reach) / (2 * thigh * shank)
    q4 = -(math.pi - math.acos(max(-1.0, min(1.0, cos_knee))))
    q5 = math.atan2(hx, math.hypot(hy, hz)) - math.atan2(thigh * math.sin(q4), shank + thigh * math.cos(q4))
    # what the hip's three joints must do: R_ap(q1) R_x(q2) R_-y(q3)
    hip = foot @ rot_x(q6).T @ rot_y(-(q4 + q5)).T
    n = rot_x(_TILT[side]).T @ hip  # = R_z(q1) R_x(beta) R_y(-q3), beta = q2 - tilt
    cos_beta = -math.sqrt(max(0.0, 1.0 - float(n[2, 1]) ** 2))  # beta near 135 (left) or 45 (right)
    if side == "r":
        cos_beta = -cos_beta
    beta = math.atan2(float(n[2, 1]), cos_beta)
    q1 = math.atan2(-float(n[0, 1]) / cos_beta, float(n[1, 1]) / cos_beta)
    q3 = -math.atan2(-float(n[2, 0]) / cos_beta, float(n[2, 2]) / cos_beta)
    q2 = beta + _TILT[side]
    q2 = math.atan2(math.sin(q2), math.cos(q2))
    return q1, q2, q3, q4, q5, q6


def solve_leg_reaching(side: str, ankle: np.ndarray, foot: np.ndarray,
                       legs: LegGeometry = NAO0) -> tuple[float, float, float, float, float, float]:
    """solve_leg_at, but an ankle place out of reach stretches the leg towards it (`legs.reach`
    from the hip) instead of raising: what the walk and the kick ask for at their extremes."""
    try:
        return solve_leg_at(side, ankle, foot, legs)
    except Unreachable:
        return solve_leg_at(side, ankle * (legs.reach / float(np.linalg.norm(ankle))), foot, legs)


def clip_to_limits(side: str, q: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(min(hi, max(lo, a)) for a, (lo, hi) in zip(q, LIMITS[side], strict=True))
