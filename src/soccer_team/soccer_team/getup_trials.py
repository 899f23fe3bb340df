"""Get-ups tried on a real engine: a robot laid on its front or back in one of several ways
(seeded tilts, turns and limb poses), then the get-up, then standing: did it stand?"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from soccer_team import getup
from soccer_team.keyframes import KeyframeMotion
from soccer_team.motion import MotionBrain
from soccer_team.trial import make_engine, run_robot, torso_up

Table = tuple[tuple[float, tuple[float, ...]], ...] | list[tuple[float, list[float]]]
AFTER_ROLL = 100  # front variants from here on: face down as the roll from the back leaves the robot


@dataclass(frozen=True, slots=True)
class GetupResult:
    stood: bool
    score: float  # the tuner's: uprightness and height at the end, less the time taken
    seconds: float  # from the first cycle lying to standing (or the trial's end)


def _rows(table: Table | None, tuned: tuple[tuple[float, tuple[float, ...]], ...]) -> tuple[
        tuple[float, tuple[float, ...]], ...]:
    """A tuner's table (lists from JSON) as key-pose rows, or the tuned rows without one."""
    return tuned if table is None else tuple((s, tuple(a)) for s, a in table)


def _quat_mul(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, float, float, float]:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


def _axis_angle(axis: tuple[float, float, float], angle: float) -> tuple[float, float, float, float]:
    s = math.sin(angle / 2)
    return (math.cos(angle / 2), axis[0] * s, axis[1] * s, axis[2] * s)


def lay_down(engine: Any, robot: str, side: str, variant: int) -> None:
    """`robot` on its front or back as a fall leaves a player: it stands in the walk's
    posture (arms beside the body), is laid down, and its limbs are flung for a fifth of a
    second. Variant 0 lies straight and still; others are tilted (roll up to 25 deg, pitch
    75-100 deg), turned and flung, from a seed."""
    standing = MotionBrain(get_up=False)
    run_robot(engine, robot, standing.act, 25, stop_on_fall=False)
    rng = np.random.default_rng(variant)
    pitch = math.radians(90.0 if variant == 0 else rng.uniform(75.0, 100.0)) * (1 if side == "front" else -1)
    roll = 0.0 if variant == 0 else math.radians(rng.uniform(-25.0, 25.0))
    yaw = 0.0 if variant == 0 else rng.uniform(-math.pi, math.pi)
    q = _quat_mul(_axis_angle((0.0, 0.0, 1.0), yaw), _quat_mul(_axis_angle((0.0, 1.0, 0.0), pitch),
                                                                _axis_angle((1.0, 0.0, 0.0), roll)))
    engine.carry_robot(robot, 0.0, 0.0, None, z=0.2, orientation=q)
    names = engine.effector_names(robot)
    flung = {e: 0.0 for e in names} if variant == 0 else {e: float(rng.uniform(-3.0, 3.0)) for e in names}
    for cycle in range(35):  # limbs flung for a fifth of a second, then half a second to come to rest
        engine.set_joint_velocities(robot, flung if cycle < 10 else {e: 0.0 for e in names})
        engine.step()


def getup_trial(side: str, variant: int, table: Table | None = None, engine_name: str = "ode",
                stand_after: float = 1.5, within: float = 6.0, roll: Table | None = None,
                model: str = "nao0") -> GetupResult:
    """A robot laid on `side` gets up: with `table` that motion is played at once (the tuner's
    way; face up, after the roll (`roll` or getup.ROLL) and lying flat); without, the motion layer finds the
    robot lying and plays its own get-ups (face up: the roll onto the front, then the front's
    get-up). It stood if, `stand_after` s after its last motion ended (within `within` s), it
    stands upright. `model`: the robot type (nao0 ... nao4)."""
    from soccer_team.leg_kinematics import legs_of

    engine = make_engine(engine_name)
    engine.add_robot("a", model, 0.0, 0.0, 0.0)
    engine.step()
    brain = MotionBrain(legs=legs_of(model))
    if side == "front" and variant >= AFTER_ROLL:  # face down as the roll from the back leaves it
        lay_down(engine, "a", "back", variant - AFTER_ROLL)
        first = KeyframeMotion("roll", [*getup.roll_motion(_rows(roll, getup.ROLL)).poses, getup.FLATTEN])
        brain.play(first)
        run_robot(engine, "a", brain.act, int(sum(p.seconds for p in first.poses) / 0.02) + 1, stop_on_fall=False)
    else:
        lay_down(engine, "a", side, variant)
    if table is not None:
        brain.get_up = False
        brain.play(getup.getup_motion(side, _rows(table, getup.FRONT), _rows(roll, getup.ROLL)))
    last_busy = -1
    highest = 0.0  # the best uprightness and height on the way: a tuner's hint of progress
    total = int((within + stand_after) / 0.02)
    for cycle in range(total):
        run_robot(engine, "a", brain.act, 1, stop_on_fall=False)
        if brain.busy:
            last_busy = cycle
        (_, _, z), q = engine.robot_pose("a")
        highest = max(highest, 0.5 * torso_up(q) + min(z, 0.36) / 0.36)
        if last_busy >= 0 and not brain.busy and cycle - last_busy >= int(stand_after / 0.02):
            break
    (_, _, z), q = engine.robot_pose("a")
    up = torso_up(q)
    rested = last_busy >= 0 and not brain.busy and cycle - last_busy >= int(stand_after / 0.02)
    stood = up > 0.9 and z > 0.28 and rested
    seconds = (last_busy + 1) * 0.02 if last_busy >= 0 else within
    return GetupResult(stood, up + 2.0 * min(z, 0.36) / 0.36 + 0.5 * highest + 2.0 * stood - 0.1 * seconds, seconds)


def facing_down(quaternion: tuple[float, float, float, float]) -> float:
    """1 when the torso's front faces the ground, -1 when it faces the sky."""
    w, x, y, z = quaternion
    return -2.0 * (x * z - w * y)


def roll_trial(variant: int, table: Table | None = None, engine_name: str = "ode") -> tuple[float, bool]:
    """A robot laid on its back plays the roll onto its front; (how far it faces down at the
    end, -1..1, and whether it lies on its front)."""
    engine = make_engine(engine_name)
    engine.add_robot("a", "nao", 0.0, 0.0, 0.0)
    engine.step()
    lay_down(engine, "a", "back", variant)
    brain = MotionBrain()
    brain.get_up = False
    rolling = getup.roll_motion(_rows(table, getup.ROLL))
    brain.play(rolling)
    run_robot(engine, "a", brain.act, int(sum(p.seconds for p in rolling.poses) / 0.02) + 1, stop_on_fall=False)
    down = facing_down(engine.robot_pose("a")[1])
    return down, down > 0.8
