"""The MuJoCo engine on real physics: standing, joints, ball, goal, vision, sensors."""
from __future__ import annotations

import math
from pathlib import Path

import mujoco
import numpy as np
import pytest
from sim_physics.engine.mujoco.engine import MujocoEngine
from sim_physics.snapshot import Snapshot

G = 9.81


@pytest.fixture
def engine() -> MujocoEngine:
    return MujocoEngine(vision_noise=False, seed=3)


def run(engine: MujocoEngine, seconds: float) -> None:
    for _ in range(round(seconds / engine.cycle_dt)):
        engine.step()


def test_beamed_nao_stands_for_ten_seconds(engine: MujocoEngine) -> None:
    engine.add_robot("a", "nao", -3.0, 1.0, 0.0)
    engine.teleport_robot("a", -5.0, 2.0, 45.0)
    heights = []
    for _ in range(500):
        engine.step()
        heights.append(engine.robot_pose("a")[0][2])
    # The torso centre of the Nao stands at 0.385 m above its soles (link lengths of the
    # SimSpark Nao); it may sink a few mm into the soft contacts but never sag or fall.
    assert 0.37 < min(heights) and max(heights) < 0.41
    (x, y, _), _ = engine.robot_pose("a")
    assert math.hypot(x + 5.0, y - 2.0) < 0.05
    assert engine.robot_yaw("a") == pytest.approx(45.0, abs=2.0)


def test_referee_carries_a_robot_without_lifting_it(engine: MujocoEngine) -> None:
    """A referee's move keeps height, posture and tilt (rcssserver3d's MoveAgent); only a
    beam puts the torso at 0.4 m."""
    engine.add_robot("a", "nao", -3.0, 1.0, 0.0)
    crouch = {"lle3": 0.5, "lle4": -1.0, "lle5": 0.5, "rle3": 0.5, "rle4": -1.0, "rle5": 0.5}
    engine.set_joint_velocities("a", crouch)
    run(engine, 0.4)
    engine.set_joint_velocities("a", dict.fromkeys(crouch, 0.0))
    run(engine, 0.4)
    (_, _, z), _ = engine.robot_pose("a")
    joints = engine.percept("a", vision=False).joint_angles
    engine.carry_robot("a", -0.3, 2.0, 90.0)
    (x, y, z2), _ = engine.robot_pose("a")
    assert (x, y) == (-0.3, 2.0) and z2 == pytest.approx(z, abs=1e-9) and z < 0.38
    assert engine.robot_yaw("a") == pytest.approx(90.0, abs=0.5)
    assert engine.robot_velocity("a") == (0.0, 0.0, 0.0)
    run(engine, 1.0)  # it stands on where it was put
    assert engine.robot_pose("a")[0][2] == pytest.approx(z, abs=0.01)
    assert engine.percept("a", vision=False).joint_angles == pytest.approx(joints, abs=0.5)


def test_joint_moves_at_commanded_speed_and_stops_at_its_limit(engine: MujocoEngine) -> None:
    engine.add_robot("a", "nao", -2.0, 0.0, 0.0)
    assert engine.set_joint_velocities("a", {"he1": 1.0}) == []
    run(engine, 0.1)
    start = engine.percept("a", vision=False).joint_angles[0]
    run(engine, 0.5)
    moved = engine.percept("a", vision=False).joint_angles[0] - start
    assert math.radians(moved) / 0.5 == pytest.approx(1.0, rel=0.1)
    run(engine, 2.0)  # hj1 stops at +120 deg
    assert engine.percept("a", vision=False).joint_angles[0] == pytest.approx(120.0, abs=1.5)


def test_speed_is_clamped_to_the_joint_maximum(engine: MujocoEngine) -> None:
    engine.add_robot("a", "nao", -2.0, 0.0, 0.0)
    engine.set_joint_velocities("a", {"hj1": 100.0})
    run(engine, 0.1)
    start = engine.percept("a", vision=False).joint_angles[0]
    run(engine, 0.1)
    speed = math.radians(engine.percept("a", vision=False).joint_angles[0] - start) / 0.1
    assert speed == pytest.approx(6.1395, rel=0.1)


def test_bad_commands_are_rejected_one_by_one(engine: MujocoEngine) -> None:
    engine.add_robot("a", "nao", -2.0, 0.0, 0.0)
    errors = engine.set_joint_velocities("a", {"he2": float("nan"), "llj7": 1.0, "he1": 0.5})
    assert len(errors) == 2 and "non-finite" in errors[0] and "llj7" in errors[1]
    errors = engine.set_joint_pd("a", {"he1": (0.0, 0.0, float("inf"), 0.0, 0.0), "lae1": (0, 0, -1, 0, 0)})
    assert len(errors) == 2
    run(engine, 0.2)
    assert np.isfinite(engine.data.qpos).all()
    assert engine.percept("a", vision=False).joint_angles[0] > 3.0  # he1 still moves


def test_huge_pd_commands_are_refused_and_never_reach_the_other_robots() -> None:
    """Finite but huge PD numbers would make MuJoCo zero every robot's controls (its "bad
    ctrl" guard); they are refused for that joint, and the other robot moves exactly as in a
    world where nobody attacked."""
    def good_robot_after(attack: bool) -> tuple[float, ...]:
        engine = MujocoEngine("fifa_field", vision_noise=False)
        engine.add_robot("attacker", "T1", -2.0, 0.0, 0.0)
        engine.add_robot("good", "T1", 2.0, 0.0, 0.0)
        names = list(engine._robot("attacker").names_index)
        if attack:
            for values in [(1e300, 0, 1e300, 0, 0), (0, 1e12, 0, 1e12, 0), (0, 0, 0, 0, 1e11), (0, 0, 1e6, 0, 0)]:
                assert len(engine.set_joint_pd("attacker", {n: values for n in names})) == len(names)
        engine.set_joint_pd("good", {n: (0.3, 0.0, 50.0, 1.0, 0.0) for n in names})
        run(engine, 1.0)
        assert all(engine.data.warning[i].number == 0 for i in range(len(engine.data.warning)))
        return tuple(engine.percept("good", vision=False).joint_angles)

    assert good_robot_after(attack=True) == good_robot_after(attack=False)


def test_pd_command_reaches_its_target(engine: MujocoEngine) -> None:
    engine.add_robot("a", "nao", -2.0, 0.0, 0.0)
    engine.set_joint_pd("a", {"he1": (math.radians(30), 0.0, 5.0, 0.1, 0.0)})
    run(engine, 1.0)
    assert engine.percept("a", vision=False).joint_angles[0] == pytest.approx(30.0, abs=2.0)


def test_ball_dropped_from_one_metre_comes_to_rest(engine: MujocoEngine) -> None:
    engine.set_ball((3.0, 2.0, 1.0))
    run(engine, 4.0)
    x, y, z = engine.ball_position()
    assert z == pytest.approx(engine.field.ball_radius, abs=0.005)
    assert np.linalg.norm(engine.ball_velocity()) < 0.05
    assert math.hypot(x - 3.0, y - 2.0) < 0.5


def test_simspark_ball_slows_as_rcssserver3d_drags_it(engine: MujocoEngine) -> None:
    """rcssserver3d's ball: a solid 26 g sphere slowed once per cycle by its DragController
    (F = -0.01 v, T = -0.00005 w) and nothing else. Rolling (w = v / r), that is a first-order
    decay of the speed by a constant factor per cycle; the ball must follow it."""
    m, r = 0.026, engine.field.ball_radius
    inertia = 2 / 5 * m * r * r
    engine.set_ball((-10.0, 0.0, r), (2.0, 0.0, 0.0))
    run(engine, 0.2)  # friction turns sliding into rolling
    v = float(np.linalg.norm(engine.ball_velocity()[:2]))
    x0 = engine.ball_position()[0]
    rate = (0.01 + 0.00005 / (r * r)) / (m + inertia / (r * r))  # 1/s
    expected_x = v * (1 - math.exp(-rate * 1.0)) / rate
    run(engine, 1.0)
    engine_x = engine.ball_position()[0] - x0
    speed = float(np.linalg.norm(engine.ball_velocity()[:2]))
    assert engine_x == pytest.approx(expected_x, rel=0.05)
    assert speed == pytest.approx(v * math.exp(-rate * 1.0), rel=0.05)


def test_ball_rolled_into_the_goal_crosses_the_line_inside_it(engine: MujocoEngine) -> None:
    r = engine.field.ball_radius
    engine.set_ball((13.0, 0.3, r), (4.0, 0.0, 0.0))
    crossed = None
    for _ in range(150):
        engine.step()
        x, y, z = engine.ball_position()
        if crossed is None and x > engine.field.length / 2 + r:
            crossed = (x, y, z)
    assert crossed is not None, "the ball never crossed the goal line"
    assert abs(crossed[1]) < engine.field.goal_width / 2 and crossed[2] < engine.field.goal_height
    x, _, _ = engine.ball_position()
    assert engine.field.length / 2 < x < engine.field.length / 2 + engine.field.goal_depth  # net holds it


def test_vision_sees_the_ball_where_geometry_says_and_nothing_behind(engine: MujocoEngine) -> None:
    engine.add_robot("a", "nao", -2.0, 0.0, 0.0)
    run(engine, 0.2)
    r = engine.field.ball_radius
    engine.set_ball((1.0, 1.0, r))
    engine.step()
    vision = engine.percept("a", vision=True).vision
    assert vision is not None
    head = engine.data.xpos[engine._robots["a"].head_body]
    rel = np.array(engine.ball_position()) - head
    ball = vision.objects["B"]
    assert ball.distance == pytest.approx(float(np.linalg.norm(rel)), abs=0.02)
    assert ball.azimuth == pytest.approx(math.degrees(math.atan2(rel[1], rel[0])), abs=1.0)
    assert ball.elevation == pytest.approx(math.degrees(math.atan2(rel[2], math.hypot(rel[0], rel[1]))), abs=1.0)
    assert {"F1R", "F2R", "G1R", "G2R"} <= set(vision.objects)
    assert not {"F1L", "F2L", "G1L", "G2L"} & set(vision.objects)  # behind the head
    engine.set_ball((-5.0, 0.0, r))
    engine.step()
    assert "B" not in engine.percept("a", vision=True).vision.objects
    assert vision.lines and all(abs(p.azimuth) <= 60.5 for line in vision.lines for p in line)


def test_other_labelled_robots_are_seen_with_their_parts(engine: MujocoEngine) -> None:
    engine.add_robot("a", "nao", -2.0, 0.0, 0.0)
    engine.add_robot("b", "nao", 1.0, 0.0, 180.0)
    engine.set_label("b", "Beta", 7)
    engine.step()
    (seen,) = engine.percept("a", vision=True).vision.players
    assert (seen.team, seen.unum) == ("Beta", 7)
    assert {"head", "lfoot", "rfoot"} <= set(seen.parts)
    assert seen.parts["head"].distance == pytest.approx(3.0, abs=0.1)


def test_standing_sensors_match_the_references(engine: MujocoEngine) -> None:
    engine.add_robot("a", "nao", -2.0, 0.0, 0.0)
    run(engine, 1.0)
    p = engine.percept("a", vision=False)
    assert p.accel == pytest.approx((0.0, 0.0, G), abs=0.3)
    assert np.linalg.norm(p.gyro) < 1.0  # deg/s
    assert [f.name for f in p.foot_resistance] == ["lf", "rf"]
    weight = engine.model.body_subtreemass[engine._robots["a"].root_body] * G
    for frp in p.foot_resistance:
        assert frp.force[2] == pytest.approx(weight / 2, rel=0.1)  # samples: 22.60 N each
    assert len(p.joint_names) == 22 and p.joint_names[:3] == ["hj1", "hj2", "raj1"]


def test_a_lifted_robot_has_no_foot_pressure(engine: MujocoEngine) -> None:
    engine.add_robot("a", "nao", -2.0, 0.0, 0.0)
    engine.step()
    root = engine._robots["a"].root_qpos
    engine.data.qpos[root + 2] = 1.5
    engine.step()
    assert engine.percept("a", vision=False).foot_resistance == []


def test_toes_exist_only_on_type_4(engine: MujocoEngine) -> None:
    engine.add_robot("t", "nao4", 0.0, 0.0, 0.0)
    names = engine.joint_names("t")
    assert len(names) == 24 and {"llj7", "rlj7"} <= set(names)
    with pytest.raises(ValueError, match="available"):
        engine.add_robot("x", "t800", 0.0, 0.0, 0.0)


def test_adding_and_removing_robots_keeps_the_others_state_and_gains(engine: MujocoEngine) -> None:
    engine.add_robot("a", "nao", -2.0, 0.0, 0.0)
    engine.set_joint_pd("a", {"lae1": (-1.0, 0.0, 3.0, 0.2, 0.0)})
    engine.set_joint_velocities("a", {"he1": 0.5})
    run(engine, 0.5)
    before = engine.snapshot().entities["a"]
    gains = engine.model.actuator_biasprm[engine._robots["a"].act_ids].copy()
    engine.add_robot("b", "nao", 5.0, 5.0, 0.0)
    engine.step()
    engine.remove_robot("b")
    engine.step()
    after = engine.snapshot().entities["a"]
    assert np.allclose(engine.model.actuator_biasprm[engine._robots["a"].act_ids], gains)
    # Two cycles of motion at 0.5 rad/s, nothing else: no reset, no jump.
    moved = np.abs(np.array(after.joint_positions) - np.array(before.joint_positions))
    assert moved.max() < 0.5 * 2 * engine.cycle_dt * 1.5
    assert np.allclose(after.position, before.position, atol=1e-3)


def test_a_renamed_or_removed_robot_shows_in_the_next_delta(engine: MujocoEngine) -> None:
    engine.add_robot("simspark-1", "nao", -2.0, 0.0, 0.0)
    engine.add_robot("simspark-2", "nao", 2.0, 0.0, 180.0)
    engine.step()
    engine.delta()
    pose = engine.robot_pose("simspark-1")
    engine.rename_robot("simspark-1", "Alpha/p7")  # an agent joined its team
    assert engine.robot_ids() == ["Alpha/p7", "simspark-2"] and engine.robot_pose("Alpha/p7") == pose
    with pytest.raises(ValueError, match="already exists"):
        engine.rename_robot("simspark-2", "Alpha/p7")
    engine.remove_robot("simspark-2")
    delta = engine.delta()
    assert "Alpha/p7" in delta.entities and set(delta.removed) == {"simspark-1", "simspark-2"}
    engine.step()
    assert engine.delta().removed == ()  # said once


def test_snapshots_round_trip_and_restore(engine: MujocoEngine) -> None:
    engine.add_robot("a", "nao", 1.0, 1.0, 0.0)
    engine.set_ball((2.0, 0.0, 0.5))
    run(engine, 0.3)
    full = engine.snapshot()
    assert Snapshot.from_bytes(full.to_bytes()) == full
    first = engine.delta()
    assert set(first.entities) == {"ball", "a"}
    run(engine, 1.0)
    engine.apply_snapshot(full)
    again = engine.snapshot()
    assert again.digest() == full.digest()
    other = MujocoEngine(vision_noise=False)
    other.apply_snapshot(full)
    assert other.snapshot().digest() == full.digest()


def test_22_flailing_robots_stay_stable() -> None:
    """Every hinge of 22 Naos (all types) driven by random speeds each cycle: the velocity
    motors (friction constraints solved with the contacts) never make MuJoCo unstable (it
    would reset the whole world)."""
    from sim_master.master.spawn import parking_spot

    rng = np.random.default_rng(1)
    engine = MujocoEngine(vision_noise=False)
    for i in range(22):
        x, y, yaw = parking_spot(i, 30.0, 20.0)
        engine.add_robot(f"r{i}", f"nao{i % 5}", x, y, yaw)
    for _ in range(200):
        for i in range(22):
            names = engine.effector_names(f"r{i}")
            engine.set_joint_velocities(f"r{i}", {n: float(v) for n, v in zip(names, rng.normal(0.0, 3.0, len(names)))})
        engine.step()
    assert engine.data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number == 0
    assert np.isfinite(engine.data.qpos).all()


def test_robot_contacts_slip_in_proportion_to_the_force_as_rcssserver3d() -> None:
    """ODE's force-dependent slip (the SimSpark field's <soccer:contact slip="0.005"/>, friction
    otherwise unbounded): a Nao lying on its back, pushed along the ground, slides at a speed
    proportional to the push, however small (Coulomb friction with mu 100 would hold it), and
    stops when the push ends."""
    def slide(push: float) -> tuple[float, float]:
        engine = MujocoEngine()
        engine.add_robot("a", "nao0", -2.0, 0.0, 0.0)
        engine.step(0.02)
        on_back = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)
        engine.carry_robot("a", -2.0, 0.0, None, z=0.12, orientation=on_back)
        run(engine, 1.0)
        names = [mujoco.mj_id2name(engine.model, mujoco.mjtObj.mjOBJ_BODY, i) or "" for i in range(engine.model.nbody)]
        torso = next(i for i, n in enumerate(names) if n.endswith("/torso"))
        engine.data.xfrc_applied[torso, 0] = push
        run(engine, 0.5)
        x0 = engine.robot_pose("a")[0][0]
        run(engine, 0.5)
        speed = (engine.robot_pose("a")[0][0] - x0) / 0.5
        engine.data.xfrc_applied[torso, 0] = 0.0
        run(engine, 0.2)
        x2 = engine.robot_pose("a")[0][0]
        run(engine, 0.5)
        return speed, engine.robot_pose("a")[0][0] - x2

    (slow, drift_slow), (fast, drift_fast) = slide(2.0), slide(8.0)
    assert slow > 0.0005  # 2 N moves it
    assert fast / slow == pytest.approx(4.0, rel=0.05)  # viscous, not Coulomb
    assert abs(drift_slow) < 1e-4 and abs(drift_fast) < 1e-4  # and it stays where it was left


def test_the_simspark_ball_bounces_above_the_threshold_and_lies_still_below(engine: MujocoEngine) -> None:
    """rcssserver3d's ball: contact bounce 0.8 for approach speeds above 0.8 m/s (ODE), none
    below, so a dropped ball bounces a few times and then rests without jitter."""
    assert engine.world.ball_bounce == (0.8, 0.8)
    engine.set_ball((0.0, 0.0, 1.0))
    heights = []
    for _ in range(200):
        engine.step()
        heights.append(engine.ball_position()[2])
    peaks = [heights[i] for i in range(1, len(heights) - 1)
             if heights[i - 1] < heights[i] >= heights[i + 1] and heights[i] > 0.05]
    assert len(peaks) >= 3 and 0.35 < peaks[0] < 0.7 and peaks == sorted(peaks, reverse=True)
    rest = heights[-50:]
    assert max(rest) - min(rest) < 1e-4 and abs(engine.ball_velocity()[2]) < 1e-3


def test_a_ball_bounce_out_of_range_is_refused(tmp_path: Path) -> None:
    from sim_physics.world.sdf_loader import SdfError, load_world, resolve_world

    text = resolve_world("simspark_field").read_text().replace('bounce="0.8 0.8"', 'bounce="1.5 0.8"')
    bad = tmp_path / "bad.sdf"
    bad.write_text(text)
    with pytest.raises(SdfError, match="bounce"):
        load_world(str(bad))
