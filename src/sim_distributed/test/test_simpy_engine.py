"""The SimPy engine: pusher kinematics, behaviour trees ticked by SimPy processes,
ownership (ghosts are mirrored, never simulated), deltas and determinism."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
from sim_distributed.simpy_engine.engine import SimpyEngine
from sim_physics.snapshot import Snapshot

from sim_master.bt.loader import BehaviorTreeError

SWARM_BT = (Path(__file__).resolve().parents[3] / "worlds" / "swarm_bt.xml").read_text()


def swarm(n: int, seed: int = 0) -> SimpyEngine:
    engine = SimpyEngine(bt_xml=SWARM_BT, seed=seed)
    for i in range(n):
        engine.add_robot(f"r{i}", "pusher", -12 + (i % 8) * 3.0, -8 + (i // 8) * 3.0, (i * 53) % 360)
    return engine


def test_both_wheels_forward_drive_straight_at_wheel_speed() -> None:
    engine = SimpyEngine()
    engine.add_robot("p", "pusher", 1.0, 2.0, 90.0)
    engine.set_joint_velocities("p", {"lwe": 10.0, "rwe": 10.0})
    for _ in range(50):  # 1 s at 0.05 m * 10 rad/s = 0.5 m/s
        engine.step()
    e = engine.snapshot().entities["p"]
    assert e.position[0] == pytest.approx(1.0, abs=1e-9)
    assert e.position[1] == pytest.approx(2.5, abs=1e-9)
    assert e.linear_velocity[1] == pytest.approx(0.5)
    assert e.joint_positions == pytest.approx((10.0, 10.0))
    assert engine.time == pytest.approx(1.0) and engine.cycle == 50


def test_opposite_wheels_turn_in_place() -> None:
    engine = SimpyEngine()
    engine.add_robot("p", "pusher", 0.0, 0.0, 0.0)
    engine.set_joint_velocities("p", {"lwe": -5.6, "rwe": 5.6})  # omega = 0.05 * 11.2 / 0.28 = 2 rad/s
    for _ in range(25):
        engine.step()
    e = engine.snapshot().entities["p"]
    assert math.hypot(e.position[0], e.position[1]) < 1e-12
    w, _, _, z = e.orientation
    assert 2 * math.atan2(z, w) == pytest.approx(1.0)  # 2 rad/s for 0.5 s


def test_bad_effectors_are_reported_and_change_nothing() -> None:
    engine = SimpyEngine()
    engine.add_robot("p", "pusher", 0.0, 0.0, 0.0)
    errors = engine.set_joint_velocities("p", {"lwe": float("nan"), "xyz": 1.0, "rwe": 99.0})
    assert len(errors) == 2 and "nan" in errors[0] and "xyz" in errors[1]
    assert engine.bodies["p"].wheels == [0.0, 20.0]  # the good one, clipped to the motor limit
    assert engine.set_joint_velocities("ghost", {"lwe": 1.0}) == ["no robot 'ghost'"]
    with pytest.raises(ValueError, match="nao4"):
        engine.add_robot("n", "nao4", 0, 0, 0)


def test_unknown_bt_node_is_an_error_naming_it() -> None:
    engine = SimpyEngine(bt_xml='<root BTCPP_format="4"><BehaviorTree ID="T"><Action ID="Dance"/>'
                                "</BehaviorTree></root>")
    with pytest.raises(BehaviorTreeError, match="Dance"):
        engine.add_robot("p", "pusher", 0, 0, 0)


def test_swarm_is_deterministic_and_stays_on_the_field() -> None:
    a, b = swarm(30), swarm(30)
    for step in range(1, 1001):
        a.step()
        if step <= 200:
            b.step()
            if step % 50 == 0:
                assert a.snapshot().digest() == b.snapshot().digest()
    final = a.snapshot()
    assert all(abs(e.position[0]) <= 16.0 and abs(e.position[1]) <= 11.0 for e in final.entities.values())
    start = swarm(30).snapshot()
    moved = [math.dist(final.entities[n].position, start.entities[n].position) for n in a.robot_ids()]
    assert min(moved) > 0.5  # every robot wandered


def test_slower_tick_rate_staggers_robots() -> None:
    engine = SimpyEngine(bt_xml=SWARM_BT, tick_ms=100)
    ticks: dict[str, list[int]] = {}
    for i in range(10):
        name = f"r{i}"
        engine.add_robot(name, "pusher", -10 + 2 * i, 0, 0)
        tree = engine._trees[name]
        original = tree.tick_once
        tree.tick_once = lambda original=original, name=name: (ticks.setdefault(name, []).append(engine.cycle),
                                                               original())
    for _ in range(20):
        engine.step()
    assert all(len(set(c)) == 4 and all(y - x == 5 for x, y in zip(sorted(set(c)), sorted(set(c))[1:]))
               for c in ticks.values())  # every 5th cycle
    assert len({c[0] % 5 for c in ticks.values()}) > 1  # not all on the same cycle
    with pytest.raises(ValueError):
        SimpyEngine(tick_ms=30)


def test_neighbour_ahead_makes_robots_turn_away_instead_of_colliding() -> None:
    engine = SimpyEngine(bt_xml=SWARM_BT)
    engine.add_robot("west", "pusher", -0.25, 0.0, 0.0)  # facing each other, 0.5 m apart
    engine.add_robot("east", "pusher", 0.25, 0.0, 180.0)
    west, east = engine.bodies["west"], engine.bodies["east"]
    closest = 0.5
    for _ in range(50):
        engine.step()
        closest = min(closest, math.hypot(west.x - east.x, west.y - east.y))
    assert closest > 0.3  # bodies are 0.3 x 0.24 m: they never touched (wandering, they would in 0.2 s)
    assert abs(math.remainder(west.yaw, math.tau)) > 0.5  # both turned away
    assert abs(math.remainder(east.yaw - math.pi, math.tau)) > 0.5


def test_ghosts_are_mirrored_not_simulated_and_not_reported() -> None:
    owner, mirror = SimpyEngine(), SimpyEngine()
    mirror.set_owned({"mine"})
    for engine in (owner, mirror):
        engine.add_robot("mine", "pusher", 0, 0, 0)
        engine.add_robot("theirs", "pusher", 5, 5, 0)
    owner.set_joint_velocities("theirs", {"lwe": 10, "rwe": 10})
    mirror.set_joint_velocities("theirs", {"lwe": 10, "rwe": 10})  # a ghost ignores its wheels
    mirror.delta()
    for _ in range(10):
        owner.step()
        mirror.step()
    assert mirror.bodies["theirs"].x == 5  # never integrated
    assert "theirs" not in mirror.delta().entities and "mine" not in mirror.delta().entities  # nothing moved
    mirror.apply_snapshot(owner.snapshot(), only={"theirs"})
    assert mirror.bodies["theirs"].x == pytest.approx(owner.bodies["theirs"].x)
    assert mirror.bodies["mine"].x == 0  # only= kept the rest
    assert set(mirror.delta().entities) == {"theirs"}


def test_unknown_models_arrive_as_ghosts_and_resync_restarts_the_clock() -> None:
    source = SimpyEngine(bt_xml=SWARM_BT)
    source.add_robot("r0", "pusher", 0, 0, 0)
    for _ in range(30):
        source.step()
    world = source.snapshot()
    nao = replace_model(world, "r0", "nao4", "nao_7")
    copy = SimpyEngine(bt_xml=SWARM_BT)
    copy.apply_snapshot(nao)
    assert copy.cycle == 30 and copy.time == pytest.approx(0.6)
    assert copy.bodies["nao_7"].owned is False and copy.bodies["nao_7"].extra is not None  # mirrored as it came
    assert copy.snapshot().entities["nao_7"].joint_names == ("HeadYaw",)
    assert copy.snapshot().entities["r0"].position == world.entities["r0"].position
    for _ in range(10):
        source.step()
        copy.step()
    assert copy.snapshot().entities["r0"].position == pytest.approx(source.snapshot().entities["r0"].position)


def replace_model(world: Snapshot, template: str, model: str, name: str) -> Snapshot:
    from dataclasses import replace

    entities = dict(world.entities)
    entities[name] = replace(world.entities[template], name=name, model=model, joint_names=("HeadYaw",),
                             joint_positions=(0.1,), joint_velocities=(0.0,))
    return Snapshot(world.step, world.time, True, entities)


def test_ball_is_pushed_by_a_robot_driving_into_it() -> None:
    engine = SimpyEngine()
    engine.add_robot("p", "pusher", 0.0, 0.0, 0.0)
    engine.set_ball((0.5, 0.0, 0.042))
    engine.set_joint_velocities("p", {"lwe": 16, "rwe": 16})
    for _ in range(50):
        engine.step()
    assert engine.ball.x > 1.0 and abs(engine.ball.y) < 1e-9
    assert engine.ball.x > engine.bodies["p"].x + 0.15  # ahead of the robot
