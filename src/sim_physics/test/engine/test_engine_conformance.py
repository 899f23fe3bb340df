"""What every physics engine must do, run on each (MuJoCo, gz-physics with DART, ODE): a Nao
stands, falls when pushed, its hinges reach and hold their commanded speed, its feet carry
its weight, PD targets are reached; the ball rolls and slows; robots join and leave mid-run
without disturbing the others. Same world file, same robot file, same numbers asserted."""
from __future__ import annotations

import math
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from sim_physics.engine.node import SimulationNode
from sim_physics.snapshot import EntitySnapshot, Snapshot
from sim_physics.world.sdf_loader import load_model, worlds_dir

G = 9.81


def run(engine: SimulationNode, seconds: float) -> None:
    for _ in range(round(seconds / engine.cycle_dt)):
        engine.step()


def tilt_deg(engine: SimulationNode, robot: str) -> float:
    _, (w, x, y, z) = engine.robot_pose(robot)
    up_z = 1 - 2 * (x * x + y * y)  # the torso's z axis, its world z component
    return math.degrees(math.acos(max(-1.0, min(1.0, up_z))))


def test_a_nao_stands_for_ten_seconds(engine: SimulationNode) -> None:
    engine.add_robot("a", "nao", -5.0, 2.0, 45.0)
    heights, tilts = [], []
    for _ in range(500):
        engine.step()
        heights.append(engine.robot_pose("a")[0][2])
        tilts.append(tilt_deg(engine, "a"))
    assert 0.37 < min(heights) and max(heights) < 0.41
    assert max(tilts[25:]) < 1.0
    (x, y, _), _ = engine.robot_pose("a")
    assert math.hypot(x + 5.0, y - 2.0) < 0.02
    assert engine.robot_yaw("a") == pytest.approx(45.0, abs=1.0)


def test_a_pushed_nao_falls(engine: SimulationNode) -> None:
    engine.add_robot("a", "nao", -1.0, 0.0, 0.0)  # off the centre spot (the ball)
    run(engine, 0.5)
    pos, quat = engine.robot_pose("a")
    push = EntitySnapshot("a", pos, quat, (1.5, 0.0, 0.0), (0.0, 0.0, 0.0), model="nao0")
    engine.apply_snapshot(Snapshot(engine.cycle, engine.time, False, {"a": push}))
    run(engine, 3.0)
    assert tilt_deg(engine, "a") > 70
    assert engine.robot_pose("a")[0][2] < 0.2  # lying (standing: 0.385), arms may prop it


def test_the_ball_rolls_and_slows(engine: SimulationNode) -> None:
    r = engine.field.ball_radius
    engine.set_ball((0.0, 0.0, r), (2.0, 0.0, 0.0))
    run(engine, 0.5)
    x_half, speed_half = engine.ball_position()[0], engine.ball_velocity()[0]
    assert 0.5 < x_half < 1.0 and 0.3 < speed_half < 2.0
    run(engine, 9.5)
    x_end = engine.ball_position()[0]
    assert x_end > x_half and abs(engine.ball_velocity()[0]) < 0.05
    assert engine.ball_position()[2] == pytest.approx(r, abs=0.003)  # on the ground, not bouncing


def test_hinge_speeds_are_reached_in_the_cycle_and_zero_holds(engine: SimulationNode) -> None:
    engine.add_robot("a", "nao", -1.0, 0.0, 0.0)  # off the centre spot (the ball)
    run(engine, 0.5)

    def he1() -> float:
        return engine.percept("a", vision=False).joint_angles[0]  # head yaw first (SimSpark order)

    engine.set_joint_velocities("a", {"he1": 1.0})
    moves = []
    for _ in range(10):
        before = he1()
        engine.step()
        moves.append(he1() - before)
    # 1 rad/s for 0.02 s is 1.146 deg per cycle, from the first cycle on (no overshoot)
    assert moves == pytest.approx([math.degrees(0.02)] * 10, abs=0.02)
    engine.set_joint_velocities("a", {"he1": 0.0})
    engine.step()
    held = he1()
    run(engine, 1.0)
    assert he1() == pytest.approx(held, abs=0.01)


def test_the_feet_carry_the_robots_weight(engine: SimulationNode) -> None:
    engine.add_robot("a", "nao", -1.0, 0.0, 0.0)  # off the centre spot (the ball)
    run(engine, 1.0)
    mass = sum(link.mass for link in load_model("nao0").links)
    frp = engine.percept("a", vision=False).foot_resistance
    assert {f.name for f in frp} == {"lf", "rf"}
    total = sum(f.force[2] for f in frp)
    assert total == pytest.approx(mass * G, rel=0.03)
    for f in frp:  # each foot about half, pressing at the sole's height under the foot box
        assert f.force[2] == pytest.approx(total / 2, rel=0.1)
        assert f.center[2] == pytest.approx(-0.01, abs=0.005)


def test_pd_targets_are_reached(engine: SimulationNode) -> None:
    engine.add_robot("a", "nao", -1.0, 0.0, 0.0)  # off the centre spot (the ball)
    run(engine, 0.2)
    engine.set_joint_pd("a", {"he1": (0.5, 0.0, 5.0, 0.1, 0.0), "lae1": (-1.0, 0.0, 20.0, 0.5, 0.0)})
    run(engine, 1.5)
    percept = engine.percept("a", vision=False)
    angles = dict(zip(percept.joint_names, percept.joint_angles))
    assert angles["hj1"] == pytest.approx(math.degrees(0.5), abs=1.0)
    assert angles["laj1"] == pytest.approx(math.degrees(-1.0), abs=3.0)  # gravity pulls the arm a little


def test_robots_join_and_leave_mid_run_without_disturbing_others(engine: SimulationNode) -> None:
    engine.add_robot("a", "nao", -2.0, 0.0, 0.0)
    engine.set_ball((1.0, 0.0, engine.field.ball_radius), (0.5, 0.0, 0.0))
    run(engine, 1.0)
    before = engine.snapshot().entities
    engine.add_robot("b", "nao", 2.0, 2.0, 90.0)
    after = engine.snapshot().entities
    for name in ("a", "ball"):
        assert np.allclose(before[name].position, after[name].position, atol=1e-9)
        assert np.allclose(before[name].linear_velocity, after[name].linear_velocity, atol=1e-9)
    run(engine, 1.0)
    assert engine.robot_pose("b")[0][2] > 0.37
    engine.remove_robot("b")
    assert engine.robot_ids() == ["a"]
    run(engine, 1.0)
    assert engine.robot_pose("a")[0][2] > 0.37
    assert "b" in engine.delta().removed or "b" not in engine.snapshot().entities


def test_vision_sees_the_same_landmarks_in_every_engine(
        engine_factories: dict[str, Callable[[], SimulationNode]]) -> None:
    seen = {}
    for name, make in engine_factories.items():
        engine = make()
        engine.add_robot("a", "nao", -3.0, 0.0, 0.0)
        engine.set_label("a", "left", 1)
        run(engine, 0.5)
        vision = engine.percept("a", vision=True).vision
        assert vision is not None
        seen[name] = vision.objects
    for engine_name in ("gazebo", "ode"):
        assert set(seen["mujoco"]) == set(seen[engine_name])
        for key, polar in seen["mujoco"].items():
            other = seen[engine_name][key]
            assert other.distance == pytest.approx(polar.distance, rel=0.01)
            assert other.azimuth == pytest.approx(polar.azimuth, abs=0.5)


@pytest.mark.skipif(shutil.which("ign") is None, reason="ignition-tools is installed by make setup")
def test_worlds_and_robots_are_valid_sdf_for_gazebo() -> None:
    files = sorted(worlds_dir().glob("*.sdf")) + sorted((worlds_dir() / "models").glob("*.sdf"))
    assert len(files) >= 5
    for path in files:
        result = subprocess.run(["ign", "sdf", "-k", str(path)], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0 and "Valid" in result.stdout, f"{Path(path).name}: {result.stdout}{result.stderr}"


def test_an_rcsssmj_robot_without_commands_is_limp(engine: SimulationNode) -> None:
    """rcsssmj's T1 from its MJCF (gz-physics: the same robot written back to SDF) starts with
    zero gains, as on rcsssmj, and collapses; its joints are read in rcsssmj's order."""
    if not engine.has_model("T1"):
        pytest.skip("rcsssmj (its robot files) is installed by make setup")
    engine.add_robot("t", "T1", -2.0, 0.0, 0.0)
    start = engine.robot_pose("t")[0][2]
    run(engine, 2.0)
    assert start > 0.6 and engine.robot_pose("t")[0][2] < 0.3
    assert len(engine.percept("t", vision=False).joint_names) == 23


def test_a_robot_leaving_after_its_percepts_were_read(engine: SimulationNode) -> None:
    """Agents leave between reading percepts and the next step (the loop's order): contacts
    read for that cycle must not outlive the robots they name."""
    for i in range(6):
        engine.add_robot(f"r{i}", "nao", -1.0 - i, 1.0, 0.0)
    engine.set_ball((-1.2, 1.0, engine.field.ball_radius))  # against r0's feet
    run(engine, 0.5)
    for i in range(6):
        assert engine.percept(f"r{i}", vision=False).foot_resistance
    for i in range(1, 6):
        engine.remove_robot(f"r{i}")
    engine.step()
    engine.add_robot("late", "nao", 3.0, 3.0, 0.0)
    engine.step()
    assert {f.name for f in engine.percept("r0", vision=False).foot_resistance} == {"lf", "rf"}
    assert engine.robot_ids() == ["r0", "late"]


def test_a_capture_becomes_the_engines_own_snapshot_and_deltas(engine: SimulationNode) -> None:
    """StateCapture (what the replay log reads on the loop's thread, to turn into records on
    its own) says what snapshot() and delta() say, entity for entity, joins and leaves too."""
    engine.add_robot("a", "nao0", -2.0, 0.0, 0.0)
    engine.add_robot("b", "nao1", 2.0, 0.0, 90.0)
    theirs: dict = {}
    ours: dict = {}
    for cycle in range(12):
        if cycle == 4:
            engine.set_joint_velocities("a", {"he1": 1.0})
        if cycle == 6:
            engine.remove_robot("b")
        if cycle == 8:
            engine.add_robot("c", "nao4", 0.0, 3.0, 0.0)
        engine.step()
        capture = engine.capture()
        assert capture.snapshot() == engine.snapshot()
        expected, got = engine.delta(memory=theirs), capture.delta(ours)
        assert got == expected, cycle
        assert set(ours) == set(theirs)
    assert "b" not in ours and "c" in ours
