"""The base team's walk on the real engine (ODE, rcssserver3d's library), as a player walks in
the server: each cycle's percept answered with speeds that act in the next step. Issue 47's
figures: forward >= 0.35 m/s, sideways >= 0.15 m/s, turning >= 60 deg/s, and no fall in 60 s of
walking in each direction."""
from __future__ import annotations

import math

import pytest

from soccer_team.leg_kinematics import legs_of
from soccer_team.motion import MotionBrain
from soccer_team.trial import walk_trial

# (command: m/s, m/s, rad/s; which speed is measured; the least it must reach)
DIRECTIONS = {
    "forward": ((1.0, 0.0, 0.0), 0, 0.35),
    "backward": ((-1.0, 0.0, 0.0), 0, -0.15),
    "left": ((0.0, 1.0, 0.0), 1, 0.15),
    "right": ((0.0, -1.0, 0.0), 1, -0.15),
    "turn left": ((0.0, 0.0, 2.0), 2, math.radians(60)),
    "turn right": ((0.0, 0.0, -2.0), 2, -math.radians(60)),
}


@pytest.mark.parametrize("delay", [0, 1])
@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
def test_a_minute_of_walking_without_a_fall_at_the_issues_speeds(direction: str, delay: int) -> None:
    """delay 0: in-process and ROS-native players; 1: the SimSpark port's answers, which act a
    cycle late (the motion layer predicts its joints over the answers on their way)."""
    command, axis, least = DIRECTIONS[direction]
    result = walk_trial(lambda: MotionBrain(effector_delay=delay), command, 60.0, delay=delay)
    assert not result.fell, f"fell after {result.fell_at:.1f} s"
    speed = result.speeds[axis]
    assert speed / least >= 1.0, f"{direction}: {speed:.3f} (needs {least:.3f})"
    others = [abs(s) for i, s in enumerate(result.speeds[:2]) if i != axis]
    # it goes where it is told; a cycle late, forward drifts sideways (docs/team.md)
    assert all(o < (0.06 if delay == 0 else 0.2) for o in others), result.speeds


@pytest.mark.parametrize("model", ["nao1", "nao2", "nao3", "nao4"])
@pytest.mark.parametrize("direction", ["forward", "left", "turn left"])
def test_every_nao_hetero_type_walks_on_its_own_legs(model: str, direction: str) -> None:
    """Types 1 and 3 have longer legs, 2 other motor limits, 4 toes: the same walk, its feet
    solved for the type's legs, a minute a cycle late (the league's agents' case) without a
    fall, within 10 % of the issue's speeds (type 3 turns at 58 deg/s; docs/team.md). Solved for
    type 0's legs, type 1 fell within 2 s."""
    command, axis, least = DIRECTIONS[direction]
    result = walk_trial(lambda: MotionBrain(effector_delay=1, legs=legs_of(model)), command, 60.0, delay=1,
                        model=model)
    assert not result.fell, f"{model} fell after {result.fell_at:.1f} s"
    assert result.speeds[axis] / least >= 0.9, f"{model} {direction}: {result.speeds}"


def test_the_walk_stops_and_stands_when_told() -> None:
    brain = MotionBrain()
    from soccer_team.trial import make_engine, run_robot

    engine = make_engine()
    engine.add_robot("a", "nao", 0.0, 0.0, 0.0)
    brain.walk.set_command(0.3, 0.0, 0.0)
    fell, _ = run_robot(engine, "a", brain.act, 150)
    brain.walk.set_command(0.0, 0.0, 0.0)
    fell2, _ = run_robot(engine, "a", brain.act, 50)
    x0 = engine.robot_pose("a")[0][0]
    fell3, _ = run_robot(engine, "a", brain.act, 100)
    assert not (fell or fell2 or fell3) and not brain.walk.walking
    assert abs(engine.robot_pose("a")[0][0] - x0) < 0.01  # standing still
