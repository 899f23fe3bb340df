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
# state (face down: on knees and hands; face up: sitting on the arms); the rest are tuned.
FRONT: tuple[tuple[float, tuple[float, ...]], ...] = (
    (0.300, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
    (0.400, (0.0, 0.0, 100.0, -130.0, 70.0, 0.0, 0.0, 0.0, 0.0)),
    (0.222, (-64.5, 48.1, 109.4, -121.8, 123.0, -105.5, -61.3, -126.9, 40.1)),
    (0.181, (-55.8, 84.2, 101.3, -85.3, 26.4, -88.4, 7.3, -91.0, 10.0)),
    (0.423, (-4.3, 69.2, 64.5, -83.0, 53.2, -114.2, -13.8, -11.1, -11.7)),
)
BACK: tuple[tuple[float, tuple[float, ...]], ...] = (
    (0.3, (0.0, 0.0, 90.0, 0.0, 0.0, -120.0, 0.0, 0.0, 0.0)),
    (0.3, (0.0, 0.0, 0.0, 0.0, 0.0, -120.0, 0.0, 0.0, 0.0)),
    (0.5, (0.0, 0.0, 100.0, -130.0, 70.0, -120.0, 0.0, 0.0, 0.0)),
    (0.5, (-60.0, 20.0, 100.0, -130.0, 70.0, -120.0, 0.0, 80.0, -60.0)),
    (0.5, (-60.0, 0.0, 100.0, -130.0, 70.0, -60.0, 0.0, 80.0, 0.0)),
    (0.8, (0.0, 0.0, 30.0, -69.0, 43.0, -90.0, 10.0, -80.0, -20.0)),
)
FIXED = {"front": 2, "back": 3}  # leading poses the tuner keeps

# Face up, the robot first rolls onto its front (over its right side), then gets up as from the
# front: asymmetric poses over both sides' joints, in ROLL_JOINTS' order.
ROLL_JOINTS = ("llj1", "llj2", "llj3", "llj4", "laj1", "laj2", "laj3", "laj4",
               "rlj1", "rlj2", "rlj3", "rlj4", "raj1", "raj2", "raj3", "raj4")
ROLL: tuple[tuple[float, tuple[float, ...]], ...] = (
    (0.305, (-57.9, 11.6, 91.4, -0.0, 92.2, 89.9, -65.8, -28.7, 23.4, 22.4, -13.7, 35.1, -108.5, 21.5, -8.0, 2.9)),
    (0.280, (-10.7, 38.6, -1.2, 16.0, 85.0, -22.1, 30.5, 8.0, 7.3, -93.0, -101.1, -61.3, -80.0, -23.9, -40.4, -35.2)),
    (0.334, (-14.6, -70.6, -18.5, -12.6, -65.0, 26.7, 59.9, -22.6,
             64.6, -13.2, -77.2, -72.0, -52.8, -17.4, -7.0, -8.1)),
    (0.414, (37.7, -36.2, -43.8, -26.0, 79.0, -32.6, 31.6, 6.5, -93.6, -37.1, 57.9, 31.1, 76.2, -10.6, 12.5, 9.7)),
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


def roll_poses(table: tuple[tuple[float, tuple[float, ...]], ...] = ROLL) -> list[KeyPose]:
    return [KeyPose(seconds, dict(zip(ROLL_JOINTS, angles, strict=True))) for seconds, angles in table]


def getup_motion(side: str) -> KeyframeMotion:
    """The get-up for a robot lying on `side`: from the front, FRONT's poses; from the back (or
    a side), the roll onto the front; the motion layer then finds it lying on its front."""
    if side == "front":
        return motion_from("getup_front", FRONT)
    poses = roll_poses()
    return KeyframeMotion("getup_roll", [*poses, KeyPose(ROLL_SETTLE, poses[-1].angles)])
