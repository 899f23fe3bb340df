"""The motion layer of one player: the walk, the get-ups and the kicks turned into joint speeds
each cycle, from the percept's joint angles, gyro and accelerometer. The behaviour above it says
where to walk (`walk.set_command`) and when to kick (`kick`); getting up is the motion layer's
own business: a robot found lying gets up before it does anything else.
"""
from __future__ import annotations

import math
from collections import deque

from sim_contracts.percept import Percept
from soccer_team.getup import getup_motion, lying
from soccer_team.joints import effector_of, joint_of, speeds_toward
from soccer_team.keyframes import KeyframeMotion
from soccer_team.leg_kinematics import NAO0, LegGeometry
from soccer_team.walk import CYCLE, Walk, WalkParams

# arms hang beside the body, elbows slightly bent; head straight (rad, by perceptor name)
ARMS = {"laj1": -1.6, "laj2": 0.15, "laj3": -1.4, "laj4": -0.4,
        "raj1": -1.6, "raj2": -0.15, "raj3": 1.4, "raj4": 0.4, "hj1": 0.0, "hj2": 0.0}
LYING_CYCLES = 5  # cycles in a row the accelerometer must say "lying" before a get-up starts
# A joint that neither the walk, the kicks, the get-ups nor the posture sets (type 4's toes,
# llj7 and rlj7) is brought back straight when something bent it: an uncommanded SimSpark motor
# keeps its last speed and is pushed around by every fall, and toes left bent at their 70 deg
# limit (a fall, a physics roll-back) kept two type-4 midfielders from ever standing again in a
# full match (59 and 108 falls). Within SPARE_DEADBAND it is left still (speed 0, as before):
# held tightly, a cycle late, toes under the body's weight chatter and the walk falls.
NEUTRAL = 0.0
SPARE_DEADBAND = math.radians(3.0)
SPARE_GAIN = 0.3  # of the gap closed per cycle


def body_rates(gyro_deg: tuple[float, float, float]) -> tuple[float, float, float]:
    """The GYR perceptor's rates (deg/s about SimSpark's torso axes: x right, y forward, z up)
    as rad/s about the model's axes (x forward, y left, z up): roll, pitch, yaw rates."""
    return math.radians(gyro_deg[1]), -math.radians(gyro_deg[0]), math.radians(gyro_deg[2])


def body_accel(acc: tuple[float, float, float]) -> tuple[float, float, float]:
    """The ACC perceptor's reading in the model's axes (upright at rest: (0, 0, 9.81))."""
    return acc[1], -acc[0], acc[2]


class MotionBrain:
    """Walks where it is told, gets up when it lies, kicks when asked. Every joint is commanded
    every cycle (a joint left out would keep its last speed)."""

    def __init__(self, params: WalkParams | None = None, *, get_up: bool = True, effector_delay: int = 0,
                 legs: LegGeometry = NAO0) -> None:
        self.legs = legs  # the robot type's: the walk and the kicks put the feet for them
        self.walk = Walk(params or WalkParams(), legs)
        self.effector_delay = effector_delay  # cycles between an answer and the step it acts in
        self._pending: deque[dict[str, float]] = deque(maxlen=max(1, effector_delay))
        self.posture = dict(ARMS)
        self.motion: KeyframeMotion | None = None
        self.get_up = get_up
        self.getups = 0  # get-ups started
        self._lying_for = 0
        self._held: dict[str, float] = {}

    @property
    def busy(self) -> bool:
        """A get-up or kick is playing: walking commands wait."""
        return self.motion is not None

    def play(self, motion: KeyframeMotion) -> None:
        self.motion = motion
        self.walk.reset()

    def act(self, percept: Percept) -> dict[str, float]:
        angles = dict(zip(percept.joint_names, percept.joint_angles, strict=True))
        if self.get_up and (self.motion is None or not self.motion.name.startswith("getup")):
            side = lying(body_accel(percept.accel))
            self._lying_for = self._lying_for + 1 if side else 0
            if self._lying_for >= LYING_CYCLES:
                self.play(getup_motion("front" if side == "front" else "back"))
                self.getups += 1
                self._lying_for = 0
        if self.motion is not None:
            targets = self.motion.targets(angles)
            if self.motion.done:
                self.motion = None
        else:
            targets = self.walk.tick(body_rates(percept.gyro))
            targets.update(self.posture)
        self._held.update(targets)
        if self.effector_delay:  # where the joints will be when this answer acts: the answers on their way move them
            for sent in self._pending:
                for joint, speed in sent.items():
                    if joint in angles:
                        angles[joint] += math.degrees(speed) * CYCLE
        speeds = speeds_toward(self._held, angles)
        spare = angles.keys() - self._held.keys()
        if spare:
            speeds.update(self._spare_speeds(angles, spare))
        if self.effector_delay:
            self._pending.append({joint_of(e): v for e, v in speeds.items()})
        return speeds

    @staticmethod
    def _spare_speeds(angles: dict[str, float], spare: set[str]) -> dict[str, float]:
        """Speeds for the joints no motion sets: still near NEUTRAL, back toward it beyond."""
        bent = {joint: NEUTRAL for joint in spare if abs(NEUTRAL - math.radians(angles[joint])) >= SPARE_DEADBAND}
        return {effector_of(joint): 0.0 for joint in spare} | speeds_toward(bent, angles, gain=SPARE_GAIN, cycle=CYCLE)
