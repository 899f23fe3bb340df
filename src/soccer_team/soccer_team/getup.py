"""Getting up: knowing that the robot lies, on which side, and the key poses that stand it up.

Why from the accelerometer: the ACC perceptor is what every robot has (no ground-truth
perceptors); lying, gravity's reaction points along the torso's front (face up) or back (face
down) instead of up. The poses are mirror-symmetric (keyframes.mirrored) and were tuned on the
engine (bench/tune_motion.py); the walk's standing pose ends each get-up.
"""
from __future__ import annotations

import math

from soccer_team.keyframes import KeyframeMotion, KeyPose, mirrored

# the left side's joints a get-up pose sets (the right mirrors them), in the tuner's order
GETUP_JOINTS = ("llj1", "llj2", "llj3", "llj4", "llj5", "laj1", "laj2", "laj3", "laj4")

# key poses: (seconds, angles in GETUP_JOINTS' order, degrees). The first ones reach a known
# state (face down: on knees and hands); the rest are tuned.
FRONT: tuple[tuple[float, tuple[float, ...]], ...] = (
    (0.300, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
    (0.400, (0.0, 0.0, 100.0, -130.0, 70.0, 0.0, 0.0, 0.0, 0.0)),
    (0.222, (-64.5, 48.1, 109.4, -121.8, 123.0, -105.5, -61.3, -126.9, 40.1)),
    (0.181, (-55.8, 84.2, 101.3, -85.3, 26.4, -88.4, 7.3, -91.0, 10.0)),
    (0.423, (-4.3, 69.2, 64.5, -83.0, 53.2, -114.2, -13.8, -11.1, -11.7)),
)
FIXED = {"front": 2, "after_roll": 2}  # leading poses the tuner keeps (after_roll: FRONT, from the roll's end)

# Face up, the robot first rolls onto its front (over its right side), then gets up as from the
# front: asymmetric poses over both sides' joints, in ROLL_JOINTS' order.
ROLL_JOINTS = ("llj1", "llj2", "llj3", "llj4", "laj1", "laj2", "laj3", "laj4",
               "rlj1", "rlj2", "rlj3", "rlj4", "raj1", "raj2", "raj3", "raj4")
ROLL: tuple[tuple[float, tuple[float, ...]], ...] = (
    (0.437, (-66.2, -22.0, 88.0, 7.8, 97.0, 114.4, -29.8, -48.1, 41.2, 12.1, -50.0, 34.9, -99.8, -1.9, 14.2, 14.1)),
    (0.268, (-19.1, 17.6, -12.9, 42.7, 82.8, -16.2, 71.2, 21.2,
             30.6, -73.4, -113.0, -71.1, -108.7, 18.2, -33.0, -28.3)),
    (0.269, (-26.7, -62.5, -17.1, -11.7, -73.0, 6.6, 68.7, -15.6, 93.0, 2.9, -56.7, -56.3, -37.6, -31.6, -5.2, 10.3)),
    (0.391, (25.7, -59.8, -6.4, -5.8, 91.2, -61.9, 24.0, -14.8, -93.5, -26.3, 64.0, 1.6, 63.5, 29.9, 13.9, 70.7)),
)


def lying(accel_body: tuple[float, float, float]) -> str:
    """"front" (face down), "back", "side" or "" (upright), from the ACC reading in the
    model's axes (x forward, z up). Falling or jolted readings can mislead for a cycle: the
    caller asks for a few cycles in a row."""
    ax, ay, az = accel_body
    g = math.sqrt(ax * ax + ay * ay + az * az)
    if g < 3.0 or az > 0.6 * g:
        return ""
    if ax < -0.6 * g:
        return "front"
    if ax > 0.6 * g:
        return "back"
    return "side"


def motion_from(name: str, table: tuple[tuple[float, tuple[float, ...]], ...]) -> KeyframeMotion:
    poses = [KeyPose(seconds, mirrored(dict(zip(GETUP_JOINTS, angles, strict=True)))) for seconds, angles in table]
    return KeyframeMotion(name, poses)


ROLL_SETTLE = 1.0  # s the roll's last pose is held: the body comes to rest on its front
# After the roll the limbs lie where the roll left them, not where a fall on the front leaves
# them: lying flat with the arms stretched overhead for a second gives FRONT the start it
# expects (unseen starts: 37 of 40 stood, against 21 of 40 with poses tuned for the roll's end).
FLATTEN = KeyPose(1.0, mirrored({"laj1": -120.0, "laj2": 0.0, "laj3": 0.0, "laj4": 0.0, "llj1": 0.0, "llj2": 0.0,
                                 "llj3": 0.0, "llj4": 0.0, "llj5": 0.0}))


def roll_poses(table: tuple[tuple[float, tuple[float, ...]], ...] = ROLL) -> list[KeyPose]:
    return [KeyPose(seconds, dict(zip(ROLL_JOINTS, angles, strict=True))) for seconds, angles in table]


def roll_motion(table: tuple[tuple[float, tuple[float, ...]], ...] = ROLL) -> KeyframeMotion:
    """Face up to face down: the roll, its last pose held while the body comes to rest."""
    poses = roll_poses(table)
    return KeyframeMotion("getup_roll", [*poses, KeyPose(ROLL_SETTLE, poses[-1].angles)])


def getup_motion(side: str, front: tuple[tuple[float, tuple[float, ...]], ...] = FRONT,
                 roll: tuple[tuple[float, tuple[float, ...]], ...] = ROLL) -> KeyframeMotion:
    """The get-up for a robot lying on `side`: from the front, `front`'s poses; from the back
    (or a side), the roll onto the front, lying flat (FLATTEN), then `front`'s poses. The
    tables are the tuned ones unless a tuner tries others."""
    up = motion_from(f"getup_{'front' if side == 'front' else 'back'}", front)
    if side == "front":
        return up
    return KeyframeMotion("getup_back", [*roll_motion(roll).poses, FLATTEN, *up.poses])
