"""The default engine (`auto`) gives each league its reference server's physics: ODE for
SimSpark robots, MuJoCo for rcsssmj robots; the first robot to join an empty world picks it,
and the ball and the clock carry over the switch."""
from __future__ import annotations

import logging
from typing import Any

import pytest
from sim_physics.engine.factory import physics_engine
from sim_physics.engine.league import LeagueEngine, off_league, robots_physics
from sim_physics.engine.mujoco.engine import MujocoEngine
from sim_physics.engine.ode.engine import OdeEngine


def league() -> LeagueEngine:
    engine = physics_engine("auto", "simspark_field", vision_noise=False, seed=1)
    assert isinstance(engine, LeagueEngine)
    return engine


def test_a_simspark_robot_plays_on_ode_and_keeps_the_ball_and_the_clock() -> None:
    engine = league()
    engine.set_ball((1.0, 2.0, 0.042), (0.5, 0.0, 0.0))
    for _ in range(5):
        engine.step()
    ball, clock = engine.ball_position(), engine.cycle
    engine.add_robot("a", "nao", -3.0, 0.0, 0.0)
    assert engine.kind == "ode" and isinstance(engine._engine, OdeEngine)
    assert engine.cycle == clock and engine.ball_position() == pytest.approx(ball, abs=1e-9)
    engine.set_joint_velocities("a", {"he1": 1.0})
    engine.step()  # ODE's motor: exactly v * dt in the first cycle
    engine.step()
    percept = engine.percept("a", vision=False)
    angles = dict(zip(percept.joint_names, percept.joint_angles))
    assert angles["hj1"] == pytest.approx(2 * 0.02 * 57.29578, abs=0.01)


def test_an_rcsssmj_robot_plays_on_mujoco_and_the_other_league_joins_the_same_physics() -> None:
    engine = league()
    if not engine.has_model("T1"):
        pytest.skip("rcsssmj (its robot files) is installed by make setup")
    engine.add_robot("t", "T1", -2.0, 0.0, 0.0)
    assert engine.kind == "mujoco" and isinstance(engine._engine, MujocoEngine)
    engine.add_robot("n", "nao", 2.0, 0.0, 0.0)  # a SimSpark robot in a world already playing
    assert engine.kind == "mujoco" and sorted(engine.robot_ids()) == ["n", "t"]
    engine.remove_robot("t")
    engine.remove_robot("n")
    engine.step()
    engine.add_robot("m", "nao", 0.0, 3.0, 0.0)  # an empty world picks again
    assert engine.kind == "ode" and engine.robot_ids() == ["m"]


def test_an_unknown_model_is_refused_by_the_engine_without_a_switch() -> None:
    engine = league()
    with pytest.raises(ValueError, match="unknown robot model"):
        engine.add_robot("x", "no_such_robot", 0.0, 0.0, 0.0)
    assert engine.kind == "mujoco" and engine.robot_ids() == []


def test_models_read_ahead_go_to_their_leagues_engine() -> None:
    """The server reads the hetero Naos at start-up: the ODE engine is made and holds their
    files' templates, so the first robot of each type joins without reading its file."""
    engine = physics_engine("auto", "simspark_field", vision_noise=False)
    engine.prepare_models(["nao0", "nao4"])  # type: ignore[attr-defined]  # LeagueEngine's, beside the protocol
    ode = engine._engines["ode"]  # type: ignore[attr-defined]  # the league's ODE engine, made ahead
    loaded = ode._physics.template_count
    engine.add_robot("a", "nao4", 0.0, 0.0, 0.0)
    assert ode._physics.template_count == loaded and engine.kind == "ode"  # type: ignore[attr-defined]  # as above
    with pytest.raises(ValueError):
        engine.prepare_models(["no_such_robot"])  # type: ignore[attr-defined]  # as above


def test_a_robot_on_the_other_leagues_physics_is_named_and_shown() -> None:
    engine = league()
    if not engine.has_model("T1"):
        pytest.fail("rcsssmj's robot files are installed by make setup")
    engine.add_robot("t", "T1", -2.0, 0.0, 0.0)  # picks MuJoCo: its own league's, nothing to say
    assert off_league(engine, "t", "T1") is None
    engine.add_robot("n", "nao", 2.0, 0.0, 0.0)
    note = off_league(engine, "n", "nao")
    assert note is not None and note.startswith(
        "robot n (nao, of the simspark league) runs on mujoco physics, not its league's ode")
    assert "the first robot to join picked" in note
    assert robots_physics(engine) == {
        "t": {"model": "T1", "league": "rcsssmj", "physics": "mujoco"},
        "n": {"model": "nao0", "league": "simspark", "physics": "mujoco"}}
    chosen = physics_engine("mujoco", "simspark_field", vision_noise=False)  # asked for: says how to avoid it
    assert "--engine auto or ode" in str(off_league(chosen, "n", "nao"))
    assert off_league(physics_engine("ode", "simspark_field", vision_noise=False), "t", "T1") is not None
    assert off_league(physics_engine("gazebo", "simspark_field", vision_noise=False), "n", "nao") is None


def test_the_loop_says_it_once_per_robot(running_server: Any, caplog: pytest.LogCaptureFixture) -> None:
    from sim_bridge.clients import SimSparkAgent

    with caplog.at_level(logging.WARNING), running_server(engine="mujoco") as server:
        agents = [SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Alpha", unum)
                  for unum in (1, 2)]
        for agent in agents:
            agent.join()
            agent.act()
        for agent in agents:
            agent.close()
    lines = [r.getMessage() for r in caplog.records if "runs on mujoco physics" in r.getMessage()]
    assert len(lines) == 2 and all("(nao" in line and "--engine auto or ode" in line for line in lines)
