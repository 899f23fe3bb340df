"""Joint targets to the server's joint speeds: SimSpark's motors take a speed per cycle, so a
player that wants an angle asks for the speed that reaches it by the end of the next step."""
from __future__ import annotations

import math

MAX_SPEED = 6.1395  # rad/s, the Nao model's motor limit


def effector_of(joint: str) -> str:
    """The effector that drives a perceptor's joint: llj3 -> lle3, hj1 -> he1."""
    return joint[:-2] + "e" + joint[-1]


def joint_of(effector: str) -> str:
    """The perceptor of an effector's joint: lle3 -> llj3, he1 -> hj1."""
    return effector[:-2] + "j" + effector[-1]


def speeds_toward(targets: dict[str, float], angles_deg: dict[str, float], gain: float = 0.9,
                  cycle: float = 0.02) -> dict[str, float]:
    """Speeds (rad/s, by effector) that close `gain` of each joint's gap to its target (rad)
    in one cycle, within the motors' limit. Joints without a reading are left alone."""
    out: dict[str, float] = {}
    for joint, target in targets.items():
        now = angles_deg.get(joint)
        if now is None:
            continue
        speed = gain * (target - math.radians(now)) / cycle
        out[effector_of(joint)] = MAX_SPEED if speed > MAX_SPEED else -MAX_SPEED if speed < -MAX_SPEED else speed
    return out
