"""Joining and leaving cost no model rebuild: a robot that leaves is parked far away and the
next robot of its model takes it over, standing where it joins with fresh joints and
controller state; a robot of another model still gets a real rebuild (which drops the
parked ones). Others never notice: the ball keeps rolling through all of it."""
from __future__ import annotations

import pytest
from sim_physics.engine.mujoco.engine import MujocoEngine


def test_leave_and_join_reuse_a_parked_robot() -> None:
    engine = MujocoEngine(vision_noise=False)
    engine.add_robot("keeper", "nao", -10.0, 0.0, 0.0)
    engine.add_robot("a", "nao", 0.0, 3.0, 0.0)
    engine.set_ball((0.0, -3.0, 0.042), (1.0, 0.0, 0.0))
    engine.step()
    builds = engine.builds
    for i in range(20):  # 20 agents come and go, one after another
        engine.set_joint_velocities("a" if i == 0 else f"b{i - 1}", {"he1": 2.0})
        engine.step()
        engine.remove_robot("a" if i == 0 else f"b{i - 1}")
        engine.add_robot(f"b{i}", "nao", 1.0 + 0.1 * i, 3.0, 90.0)
        engine.set_label(f"b{i}", "T", 2)
        engine.step()
    assert engine.builds == builds  # no rebuild for any of them
    assert sorted(engine.robot_ids()) == ["b19", "keeper"]
    (x, y, z), _ = engine.robot_pose("b19")
    assert (x, y) == pytest.approx((2.9, 3.0), abs=0.02) and 0.3 < z < 0.45 and abs(engine.robot_yaw("b19") - 90) < 2
    assert max(abs(a) for a in engine.percept("b19", vision=False).joint_angles) < 1.0  # fresh joints
    ball_x = engine.ball_position()[0]
    assert ball_x > 0.3  # the ball rolled on undisturbed
    seen = engine.percept("keeper", vision=True).vision
    assert seen is not None and [p.unum for p in seen.players] in ([], [2])  # never the parked robots
    engine.add_robot("t1", "T1", 5.0, 5.0, 0.0)  # another model: a real rebuild
    engine.step()
    assert engine.builds == builds + 1 and sorted(engine.robot_ids()) == ["b19", "keeper", "t1"]
    engine.remove_robot("b19")
    engine.add_robot("b19", "nao", 0.0, 0.0, 0.0)  # the same name again, through the pool
    engine.step()
    assert engine.builds == builds + 1
