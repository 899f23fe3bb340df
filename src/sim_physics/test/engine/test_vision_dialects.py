"""Each agent sees the field under its reference server's names: on one world, a SimSpark
agent sees SimSpark's flags and goal posts (F1L, G1R) with SimSpark's noise, an rcsssmj
agent sees rcsssmj's markers (l_luf, g_lup, ...) without noise, as the real servers show
them; nobody sees the other dialect's names."""
from __future__ import annotations

import math

import pytest
from sim_physics.engine.mujoco.engine import MujocoEngine

SIMSPARK_NAMES = {"F1L", "F2L", "F1R", "F2R", "G1L", "G2L", "G1R", "G2R"}


@pytest.mark.parametrize("world", ["simspark_field", "fifa_field"])
def test_each_dialect_sees_its_own_landmark_names(world: str) -> None:
    engine = MujocoEngine(world, vision_noise=True, seed=3)
    half = engine.field.length / 2
    engine.add_robot("nao", "nao", half - 8.0, -2.0, 0.0)  # both look at the right goal
    engine.add_robot("t1", "T1", half - 8.0, 0.5, 0.0)
    engine.set_label("nao", "A", 1)
    engine.set_label("t1", "B", 1)
    engine.step()
    simspark = set(engine.percept("nao", vision=True).vision.objects)
    rcsssmj = set(engine.percept("t1", vision=True).vision.objects)
    assert {"G1R", "G2R"} <= simspark and not any("_" in name for name in simspark)
    # (the goalie area's markers are at its full width, as rcssservermj's: out of view on the big field)
    assert {"g_rup", "g_rlp"} <= rcsssmj and not rcsssmj & SIMSPARK_NAMES
    # rcsssmj's camera is ideal: the marker's direction is exact (SimSpark's has noise)
    polar = engine.percept("t1", vision=True).vision.objects["g_rup"]
    site = engine.data.site_xpos[engine._robot("t1").camera_site]
    x, y, z = engine.field.landmarks["g_rup"]
    assert polar[0] == pytest.approx(math.dist((x, y, z), site), abs=0.02)  # the head points along +x
