"""The motion layer of one player: the walk and the arms' posture turned into joint speeds, each
cycle, from the percept's joint angles and gyro. The behaviour above it only says where to walk
(`walk.set_command`)."""
from __future__ import annotations

import math

from sim_contracts.percept import Percept
from soccer_team.joints import speeds_toward
from soccer_team.walk import Walk, WalkParams

# arms hang beside the body, elbows slightly bent (rad, by perceptor name)
ARMS = {"laj1": -1.6, "laj2": 0.15, "laj3": -1.4, "laj4": -0.4,
        "raj1": -1.6, "raj2": -0.15, "raj3": 1.4, "raj4": 0.4, "hj1": 0.0, "hj2": 0.0}


class MotionBrain:
    """Walks where it is told; the smallest player (no vision, no strategy)."""

    def __init__(self, params: WalkParams | None = None) -> None:
        self.walk = Walk(params or WalkParams())
        self.posture = dict(ARMS)

    def act(self, percept: Percept) -> dict[str, float]:
        angles = dict(zip(percept.joint_names, percept.joint_angles, strict=True))
        gyro = tuple(math.radians(g) for g in percept.gyro)
        targets = self.walk.tick((gyro[0], gyro[1], gyro[2]))
        targets.update(self.posture)
        return speeds_toward(targets, angles)
