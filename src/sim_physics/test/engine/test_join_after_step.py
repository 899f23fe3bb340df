"""A robot joining between a step and the percepts (rcsssmj's agents join so) changes nothing
the others read in that cycle: on every engine their percepts are the step's, field for field."""
from __future__ import annotations

from sim_physics.engine.node import SimulationNode


def _reading(engine: SimulationNode, robot_id: str) -> tuple[object, ...]:
    p = engine.percept(robot_id, vision=False)
    return (p.gyro, p.accel, p.joint_angles, p.joint_velocities, p.torso_position, p.torso_quaternion,
            sorted((f.name, f.center, f.force) for f in p.foot_resistance))


def test_a_join_after_the_step_leaves_the_others_readings(engine: SimulationNode) -> None:
    engine.add_robot("limp", "T1", -3.0, 0.0, 0.0)
    engine.add_robot("nao", "nao4", 3.0, 0.0, 0.0)
    for _ in range(30):  # the T1 collapses, the Nao stands: both in contact, moving or not
        engine.step()
    before = {r: _reading(engine, r) for r in ("limp", "nao")}
    engine.add_robot("late", "T1", 0.0, 5.0, 0.0)
    assert {r: _reading(engine, r) for r in ("limp", "nao")} == before
