"""Get-ups tried on a real engine: a robot laid on its front or back in one of several ways
(seeded tilts, turns and limb poses), then the get-up, then standing: did it stand?"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from soccer_team import getup
from soccer_team.motion import MotionBrain
from soccer_team.trial import make_engine, run_robot, torso_up

Table = tuple[tuple[float, tuple[float, ...]], ...] | list[tuple[float, list[float]]]


@dataclass(frozen=True, slots=True)
class GetupResult:
    stood: bool
    score: float  # the tuner's: uprightness and height at the end, less the time taken
    seconds: float  # from the first cycle lying to standing (or the trial's end)


def _quat_mul(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, float, float, float]:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


def _axis_angle(axis: tuple[float, float, float], angle: float) -> tuple[float, float, float, float]:
    s = math.sin(angle / 2)
    return (math.cos(angle / 2), axis[0] * s, axis[1] * s, axis[2] * s)


def lay_down(engine: Any, robot: str, side: str, variant: int) -> None:
    """`robot` on its front or back; variant 0 lies straight, others are tilted (roll up to
    25 deg, pitch 75-100 deg), turned, and have their limbs moved, from a seed."""
    rng = np.random.default_rng(variant)
    pitch = math.radians(90.0 if variant == 0 else rng.uniform(75.0, 100.0)) * (1 if side == "front" else -1)
    roll = 0.0 if variant == 0 else math.radians(rng.uniform(-25.0, 25.0))
    yaw = 0.0 if variant == 0 else rng.uniform(-math.pi, math.pi)
    q = _quat_mul(_axis_angle((0.0, 0.0, 1.0), yaw), _quat_mul(_axis_angle((0.0, 1.0, 0.0), pitch),
                                                                _axis_angle((1.0, 0.0, 0.0), roll)))
    engine.carry_robot(robot, 0.0, 0.0, None, z=0.2, orientation=q)
    limbs = {} if variant == 0 else {e: float(rng.uniform(-2.0, 2.0)) for e in engine.effector_names(robot)}
    for _ in range(25):  # limbs flung for a moment, then half a second to come to rest
        engine.set_joint_velocities(robot, limbs)
        engine.step()
        limbs = {e: 0.0 for e in limbs}


def getup_trial(side: str, variant: int, table: Table | None = None, engine_name: str = "ode",
                stand_after: float = 1.5) -> GetupResult:
    engine = make_engine(engine_name)
    engine.add_robot("a", "nao", 0.0, 0.0, 0.0)
    engine.step()
    lay_down(engine, "a", side, variant)
    brain = MotionBrain()
    if table is not None:
        brain.get_up = False
        brain.play(getup.motion_from(f"getup_{side}", tuple((s, tuple(a)) for s, a in table)))
    lying_cycles = int(4.0 / 0.02)  # a get-up must be done within this
    stood_at = -1
    highest = 0.0  # the best uprightness and height on the way: a tuner's hint of progress
    for cycle in range(lying_cycles + int(stand_after / 0.02)):
        run_robot(engine, "a", brain.act, 1, stop_on_fall=False)
        (_, _, z), q = engine.robot_pose("a")
        highest = max(highest, 0.5 * torso_up(q) + min(z, 0.36) / 0.36)
        if stood_at < 0 and not brain.busy and brain.getups + (table is not None) > 0:
            stood_at = cycle
        if stood_at >= 0 and cycle - stood_at >= int(stand_after / 0.02):
            break
    (_, _, z), q = engine.robot_pose("a")
    up = torso_up(q)
    stood = up > 0.9 and z > 0.28 and stood_at >= 0
    seconds = (stood_at + 1) * 0.02 if stood_at >= 0 else lying_cycles * 0.02
    return GetupResult(stood, up + 2.0 * min(z, 0.36) / 0.36 + 0.5 * highest + 2.0 * stood - 0.1 * seconds, seconds)
