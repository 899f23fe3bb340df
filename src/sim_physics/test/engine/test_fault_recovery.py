"""A step that explodes never ends a match, on every engine: the world is rolled back to
where the step began, the robots involved are beamed apart, and stepping goes on
(engine/recovery.py). The explosion is made as a trainer or a learning agent makes one:
robots dropped onto one spot, a robot flung at an impossible speed."""
from __future__ import annotations

import math

import numpy as np
from sim_physics.engine.node import SimulationNode
from sim_physics.engine.recovery import ROBOT_SPEED, health
from sim_physics.snapshot import EntitySnapshot, Snapshot


def _finite_world(engine: SimulationNode) -> bool:
    names, frames = engine.frames()
    return bool(np.isfinite(frames).all()) and len(names) > 0


def _fling(engine: SimulationNode, robot: str, speed: float) -> None:
    """The robot's root given a speed no match produces (what an ODE blow-up leaves)."""
    now = engine.snapshot().entities[robot]
    flung = EntitySnapshot(robot, now.position, now.orientation, (speed, 0.0, 0.0), (0.0, 0.0, 0.0),
                           now.joint_names, now.joint_positions, now.joint_velocities, model=now.model)
    engine.apply_snapshot(Snapshot(engine.cycle, engine.time, False, {robot: flung}), only={robot})


def test_a_robot_flung_at_an_impossible_speed_is_rolled_back_and_stands_again(engine: SimulationNode) -> None:
    engine.add_robot("a", "nao", -3.0, 1.0, 30.0)
    engine.add_robot("b", "nao", 3.0, -1.0, 0.0)
    for _ in range(50):
        engine.step()
    (bx, by, _), _ = engine.robot_pose("b")
    _fling(engine, "a", 5000.0)
    cycle = engine.cycle
    engine.step()
    assert engine.cycle == cycle + 1, "the cycle counts on"
    assert engine.faults.faults >= 1  # type: ignore[attr-defined]  # each engine's FaultLog, not in the protocol
    (x, y, z), _ = engine.robot_pose("a")
    assert math.hypot(x + 3.0, y - 1.0) < 0.3 and z < 1.0, f"a is at ({x:.2f}, {y:.2f}, {z:.2f})"
    for _ in range(100):
        engine.step()
    assert _finite_world(engine)
    (x, y, z), _ = engine.robot_pose("a")
    assert math.hypot(x + 3.0, y - 1.0) < 0.5 and 0.2 < z < 0.5, "a stands where it was"
    (x2, y2, _), _ = engine.robot_pose("b")
    assert math.hypot(x2 - bx, y2 - by) < 0.05, "a robot far from the fault is not moved"
    v = engine.robot_velocity("a")
    assert math.sqrt(sum(c * c for c in v)) < ROBOT_SPEED


def test_robots_put_onto_one_spot_are_put_beside_each_other_and_play_on(engine: SimulationNode) -> None:
    """Six robots spawned, beamed and carried onto one spot (a trainer's pile, eleven agents
    beaming to one point): each lands beside the others, no step explodes or grinds."""
    for k in range(6):
        engine.add_robot(f"r{k}", "nao", 0.01 * k, 0.0, 0.0)
    engine.set_ball((5.0, 0.0, 0.1), (-1.0, 0.0, 0.0))
    for cycle in range(100):
        if cycle in (10, 40):
            for k in range(6):
                engine.teleport_robot(f"r{k}", -2.0, 0.0, 0.0)
        if cycle == 70:  # a trainer's moves (the rules' own moves are made exactly)
            for k in range(6):
                engine.carry_robot(f"r{k}", 2.0, 1.0, None, beside=True)
        engine.step()
        assert _finite_world(engine)
    positions = [engine.robot_pose(f"r{k}")[0][:2] for k in range(6)]
    nearest = min(math.dist(a, b) for i, a in enumerate(positions) for b in positions[i + 1:])
    assert nearest > 0.2, positions
    assert all(math.dist(p, (2.0, 1.0)) < 1.0 for p in positions), positions
    bx, _, _ = engine.ball_position()
    assert bx < 4.8, "the ball rolled on"
    assert engine.faults.faults == 0  # type: ignore[attr-defined]  # each engine's FaultLog, not in the protocol


def test_health_names_what_no_match_produces() -> None:
    poses = np.zeros((3, 7))
    poses[:, 3] = 1.0
    twists = np.zeros((3, 6))
    robots = np.array([True, True, False])
    assert health(poses, twists, robots) is None
    twists[2, 0] = 150.0  # a ball shot hard: fine
    assert health(poses, twists, robots) is None
    twists[0, 0] = 60.0  # a robot's link at 60 m/s: no
    assert "m/s" in (health(poses, twists, robots) or "")
    twists[0, 0] = float("nan")
    assert "finite" in (health(poses, twists, robots) or "")


def test_the_compiled_health_check_says_what_the_numpy_one_says() -> None:
    """Random states around every limit (speeds, spins, heights, NaN, inf, huge values): the
    compiled pass that runs after every step gives the reference's verdict, word for word."""
    from sim_physics.engine.recovery import health_limits, health_reference

    rng = np.random.default_rng(3)
    verdicts = set()
    for trial in range(3000):
        n = int(rng.integers(1, 40))
        poses = rng.normal(0.0, 0.3, (n, 7))
        twists = rng.normal(0.0, 1.0, (n, 6)) * rng.choice([1.0, 20.0, 60.0, 800.0, 4000.0], size=(n, 1))
        robots = rng.random(n) < 0.9
        kind = trial % 6
        if kind == 1:
            poses[rng.integers(n), 2] = rng.choice([-60.0, 600.0, 1e300])
        elif kind == 2:
            (twists if rng.random() < 0.5 else poses)[rng.integers(n), rng.integers(6)] = rng.choice(
                [float("nan"), float("inf"), -float("inf")])
        elif kind == 3:
            twists[rng.integers(n), 0] = 1e200
        elif kind == 4:  # slow, but one link spins
            twists = rng.normal(0.0, 1.0, (n, 6))
            twists[rng.integers(n), 3:] = rng.choice([900.0, 3500.0])
        want = health_reference(poses, twists, robots)
        assert health(poses, twists, robots, health_limits(robots)) == want, trial
        verdicts.add("none" if want is None else next(w for w in ("finite", "m/s", "rad/s", "height") if w in want))
    assert len(verdicts) >= 5, verdicts  # healthy, too fast, spinning, out of height, not finite all met


def test_a_free_spot_is_beside_every_other_robot() -> None:
    from sim_physics.engine.recovery import MIN_APART, free_spot

    others = np.array([[0.0, 0.0], [0.3, 0.1], [-0.2, 0.35]])
    x, y = free_spot(0.05, 0.05, others)
    assert min(math.hypot(x - a, y - b) for a, b in others) >= MIN_APART - 1e-9
    assert math.hypot(x - 0.05, y - 0.05) <= 3 * MIN_APART
    assert free_spot(5.0, 5.0, others) == (5.0, 5.0)
    assert free_spot(1.0, 2.0, np.zeros((0, 2))) == (1.0, 2.0)
