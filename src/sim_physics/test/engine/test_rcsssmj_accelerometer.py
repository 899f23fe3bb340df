"""rcsssmj's ACC at rest is gravity's reaction in the torso frame, as rcssservermj reports it.

A T1 lying still on rcssservermj 0.2.1 (recorded: perception_T1_resting_rcssservermj.txt)
reads (a -9.8 0.0 0.0) with its torso pitched 90 degrees: the accelerometer's specific force,
R^T (0, 0, 9.81), in the torso frame (x forward, y left, z up). Ours read (a 0.0 0.0 0.0) on
MuJoCo (issue 29: mj_step1/mj_step2 left the body accelerations the sensor reads stale);
agents that estimate their tilt from ACC could not. The relation is checked on the recording
first, then on our wire for a limp T1 come to rest, on MuJoCo (its league's physics) and on ODE
(where it plays in a world a SimSpark robot picked)."""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from sim_physics.engine.factory import physics_engine

from sim_bridge.dialects.rcsssmj import RcsssmjDialect

RECORDING = Path(__file__).parents[3] / "sim_bridge/test/samples/perception_T1_resting_rcssservermj.txt"
GRAVITY = 9.81


def _wire_imu(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(quaternion w x y z, ACC, torso position) of an rcsssmj perception."""
    def numbers(pattern: str) -> np.ndarray:
        found = re.search(pattern, text)
        assert found is not None, pattern
        return np.array([float(v) for v in found.group(1).split()])
    return (numbers(r"\(quat \(n torso_quat\) \(q ([^)]*)\)"), numbers(r"\(ACC \(n torso_acc\) \(a ([^)]*)\)"),
            numbers(r"\(pos \(n torso_pos\) \(p ([^)]*)\)"))


def _gravity_reaction(q: np.ndarray) -> np.ndarray:
    """R^T (0, 0, g) for the torso orientation q = (w, x, y, z)."""
    w, x, y, z = q / np.linalg.norm(q)
    up_in_world_of_body_axes = np.array([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)])
    return GRAVITY * up_in_world_of_body_axes


def _resting_lines() -> list[str]:
    return [line for line in RECORDING.read_text().splitlines() if "(pm PlayOn)" in line or "(pm Goal" in line]


def test_the_recording_reads_gravity_in_the_torso_frame() -> None:
    lines = _resting_lines()
    assert len(lines) >= 5
    for line in lines:
        q, acc, pos = _wire_imu(line)
        assert pos[2] < 0.2, "lying"
        assert np.linalg.norm(acc - _gravity_reaction(q)) < 0.15, line[:120]
        assert acc[0] == pytest.approx(-9.8, abs=0.05)  # pitched forward: gravity along -x


@pytest.mark.parametrize("kind", ["mujoco", "ode"])
def test_a_limp_t1_at_rest_reads_gravity_as_rcssservermj(kind: str) -> None:
    engine = physics_engine(kind, "simspark_field", vision_noise=False, seed=1)
    if not engine.has_model("T1"):
        pytest.fail("rcsssmj's robot files are installed by make setup")
    engine.add_robot("t", "T1", -2.0, 0.0, 0.0)
    dialect = RcsssmjDialect()
    for _ in range(300):  # falls within a second and lies still
        engine.step()
    readings = []
    for _ in range(10):
        engine.step()
        readings.append(_wire_imu(dialect.encode_percept(engine.percept("t", vision=False)).decode()))
    for q, acc, pos in readings:
        assert pos[2] < 0.3, f"the limp T1 lies ({pos[2]:.3f} m)"
        assert math.isclose(float(np.linalg.norm(acc)), GRAVITY, abs_tol=0.15), acc
        assert np.linalg.norm(acc - _gravity_reaction(q)) < 0.15, (q, acc)
