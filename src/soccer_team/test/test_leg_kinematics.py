"""The closed-form leg solve against the chain's forward kinematics: every reachable foot pose
solves to angles that put the foot exactly there, on both legs."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

from soccer_team.leg_kinematics import LIMITS, NAO0, FootPose, Unreachable, foot_pose, legs_of, solve_leg


@pytest.mark.parametrize("model", ["nao0", "nao1", "nao3"])
@pytest.mark.parametrize("side", ["l", "r"])
def test_the_solve_inverts_the_chain_within_a_micrometre(side: str, model: str) -> None:
    legs = legs_of(model)
    rng = random.Random(7)
    for _ in range(500):
        q = [rng.uniform(lo * 0.8, hi * 0.8) for lo, hi in LIMITS[side]]
        q[3] = rng.uniform(-2.0, -0.05)  # a bent knee: the solve picks the knee that bends
        ankle, foot = foot_pose(side, q, legs)
        roll = math.asin(foot[2, 1])
        yaw = math.atan2(-foot[0, 1], foot[1, 1])
        pitch = -math.atan2(-foot[2, 0], foot[2, 2])
        solved = solve_leg(side, FootPose(*ankle, roll=roll, pitch=pitch, yaw=yaw), legs)
        ankle2, foot2 = foot_pose(side, solved, legs)
        assert np.abs(ankle2 - ankle).max() < 1e-6 and np.abs(foot2 - foot).max() < 1e-6


def test_a_crouch_bends_hip_knee_and_ankle_as_the_model_counts_them() -> None:
    q1, q2, q3, q4, q5, q6 = solve_leg("l", FootPose(0.0, 0.0, -0.19))
    assert q1 == pytest.approx(0.0, abs=1e-9) and q2 == pytest.approx(0.0, abs=1e-9)
    assert q3 > 0 and q4 < 0 and q5 > 0  # thigh forward, knee bent, toes up: the foot flat
    assert q3 + q4 + q5 == pytest.approx(0.0, abs=1e-9)


def test_a_foot_beyond_the_leg_is_refused() -> None:
    with pytest.raises(Unreachable):
        solve_leg("r", FootPose(0.0, 0.0, -0.3))


def test_each_types_legs_are_read_from_its_model() -> None:
    """Types 1 and 3 have longer thighs and shanks than type 0 (3 the longest); 2 and 4 the
    same legs (other motors, toes). The default is type 0's, as `nao` is."""
    assert legs_of("nao") == legs_of("nao0") == NAO0 == legs_of("nao2") == legs_of("nao4")
    one, three = legs_of("nao1"), legs_of("nao3")
    assert NAO0.thigh < one.thigh < three.thigh and NAO0.shank < one.shank < three.shank
    # the stretched leg reaches the sum of its parts (the knee straight)
    ankle, _ = foot_pose("l", (0.0, 0.0, 0.0, 0.0, 0.0, 0.0), three)
    assert float(np.linalg.norm(ankle)) == pytest.approx(three.thigh + three.shank)
