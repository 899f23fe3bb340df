"""Hinge speed commands into a robot's controller state (compiled: sim_hotpath): names by
joint or effector, speeds cut to the joint's top speed, mode switched from PD, and refusals
that name what was refused."""
from __future__ import annotations

import math

import numpy as np
import pytest

from sim_master.engine.mujoco.robot import MODE_PD, MODE_VELOCITY, Robot, command_speeds
from sim_master.world.sdf_loader import load_model


@pytest.fixture()
def robot() -> Robot:
    return Robot.create("r1", "nao", load_model("nao0"), 0, 0.38, (0.0, 0.0, 0.0))


def test_speeds_set_by_joint_or_effector_name_and_cut_to_the_top_speed(robot: Robot) -> None:
    he1 = robot.names_index["he1"]
    assert robot.names_index["hj1"] == he1
    top = float(robot.max_speed[he1])
    errors, changed = command_speeds(robot, {"he1": 100.0, "hj2": -0.5, "lle1": -100.0})
    assert errors == [] and not changed
    assert robot.v_cmd[he1] == top and robot.v_cmd[robot.names_index["hj2"]] == -0.5
    assert robot.v_cmd[robot.names_index["lle1"]] == -float(robot.max_speed[robot.names_index["lle1"]])


def test_a_joint_under_pd_returns_to_speed_control(robot: Robot) -> None:
    robot.mode[:] = MODE_PD
    errors, changed = command_speeds(robot, {"he2": 0.25})
    assert errors == [] and changed
    assert robot.mode[robot.names_index["he2"]] == MODE_VELOCITY
    assert (robot.mode == MODE_PD).sum() == len(robot.mode) - 1
    assert command_speeds(robot, {"he2": 0.5}) == ([], False)


def test_unknown_names_and_non_finite_speeds_are_refused_and_change_nothing(robot: Robot) -> None:
    before = robot.v_cmd.copy()
    errors, changed = command_speeds(robot, {"bogus": 1.0, "he1": math.nan, "he2": -math.inf})
    assert errors == ["unknown joint effector 'bogus'", "non-finite speed nan for 'he1' rejected",
                      "non-finite speed -inf for 'he2' rejected"]
    assert not changed and np.array_equal(robot.v_cmd, before)
    with pytest.raises(TypeError):
        command_speeds(robot, {"he1": "fast"})  # type: ignore[dict-item]  # not a number, on purpose
