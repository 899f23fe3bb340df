"""Hinge speed and PD commands into a robot's controller state (compiled: sim_hotpath): names by
joint or effector, speeds cut to the joint's top speed, mode switched from PD, and refusals
that name what was refused."""
from __future__ import annotations

import math

import numpy as np
import pytest
from sim_physics.engine.robot import MODE_PD, MODE_VELOCITY, Robot, command_pd, command_speeds
from sim_physics.world.sdf_loader import load_model


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


def test_pd_commands_set_targets_gains_and_mode(robot: Robot) -> None:
    he1, he2 = robot.names_index["he1"], robot.names_index["he2"]
    errors, changed = command_pd(robot, {"he1": (0.5, -0.25, 25.0, 0.5, 1.0), "hj2": (0.1, 0.0, 10.0, 0.0, 0.0)})
    assert errors == [] and changed
    assert robot.mode[he1] == MODE_PD and robot.mode[he2] == MODE_PD
    assert (robot.q_target[he1], robot.dq_target[he1], robot.kp[he1], robot.kd[he1], robot.tau[he1]) == \
        (0.5, -0.25, 25.0, 0.5, 1.0)
    assert robot.v_cmd[he1] == 0.0 and robot.kp[he2] == 10.0
    assert command_pd(robot, {"he1": (0.7, 0.0, 25.0, 0.5, 0.0)}) == ([], False)  # same gains: no change
    assert robot.q_target[he1] == 0.7


def test_a_bad_pd_command_is_refused_and_the_good_ones_still_taken(robot: Robot) -> None:
    he1, he2 = robot.names_index["he1"], robot.names_index["he2"]
    errors, changed = command_pd(robot, {"he1": (0.5, 0.0, 25.0, 0.5, 0.0), "bogus": (0.0, 0.0, 1.0, 0.0, 0.0),
                                         "he2": (0.0, 0.0, -1.0, 0.0, 0.0), "lle1": (math.nan, 0.0, 1.0, 0.0, 0.0),
                                         "lle2": (2e3, 0.0, 1.0, 0.0, 0.0)})
    assert changed and robot.q_target[he1] == 0.5 and robot.mode[he2] == MODE_VELOCITY
    assert len(errors) == 4 and errors[0] == "unknown joint effector 'bogus'"
    assert "must not be negative" in errors[1] and "5 finite numbers" in errors[2] and "out of range" in errors[3]
