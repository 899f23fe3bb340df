"""rcsssmj's own robots (T1, K1), read from the installed rcsssmj package: an rcsssmj agent
joins with `(init T1 ...)`, gets T1's 23 joints in rcsssmj's order and moves its head with
a PD command while its uncommanded joints stay limp (zero gains, as on rcsssmj); an unknown
model is refused with the list of the available ones."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

import pytest
from sim_physics.world.mjcf_import import load_mjcf_robot, rcsssmj_models

from sim_bridge.clients import RcsssmjAgent

HJ = re.compile(r"\(HJ \(n (\w+)\) ?\(ax ([-+0-9.eE]+)\)")
T1_ORDER = ["hj1", "hj2", "laj1", "laj2", "laj3", "laj4", "raj1", "raj2", "raj3", "raj4", "tj1",
            "llj1", "llj2", "llj3", "llj4", "llj5", "llj6", "rlj1", "rlj2", "rlj3", "rlj4", "rlj5", "rlj6"]


def test_rcsssmj_models_are_found_and_read() -> None:
    models = rcsssmj_models()
    assert set(models) == {"T1", "K1", "ant"}, "make setup installs rcsssmj"
    t1, k1 = load_mjcf_robot(models["T1"], "T1"), load_mjcf_robot(models["K1"], "K1")
    ant = load_mjcf_robot(models["ant"], "ant")  # degrees, fromto, inertia from geoms: read by MuJoCo
    assert len(ant.joint_order) == 8 and ant.mjcf == models["ant"]
    assert all(j.lower < 0 or j.upper > 0 for j in ant.joints if j.kind == "revolute")
    assert list(t1.joint_order) == T1_ORDER and "tj1" not in k1.joint_order and len(k1.joint_order) == 22
    assert {link.vision_part for link in t1.links if link.vision_part} == {"head", "lfoot", "rfoot"}
    knee = next(j for j in t1.joints if j.name == "llj4")
    assert knee.effector == "lle4" and knee.effort == 60.0  # class jXXL: +-60 N m
    assert (knee.damping, knee.armature, knee.frictionloss) == pytest.approx((0.01, 0.01, 0.1))
    assert t1.spawn_height == pytest.approx(0.6735) and t1.mjcf_joints["llj4"] == "Left_Knee_Pitch"
    head = [link for link in k1.links if link.name == "Head_1"][0]
    assert head.collisions and head.collisions[0].geometry.shape == "box"  # a mesh, boxed


def test_t1_agent_joins_perceives_its_joints_and_moves_its_head(running_server: Callable[..., Any],
                                                                caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    with running_server() as server:
        agent = RcsssmjAgent("127.0.0.1", server.agent_servers["rcsssmj"].port, "Alpha", 1, model="T1")
        agent.join()
        first = agent.act().decode()
        assert [name for name, _ in HJ.findall(first)] == ["q_" + n for n in T1_ORDER]  # rcsssmj's sensor names
        for _ in range(50):  # head yaw to 30 degrees, PD
            msg = agent.act({"he1": (30.0, 0.0, 25.0, 0.5, 0.0)}).decode()
        yaw = float(dict(HJ.findall(msg))["q_hj1"])
        assert 25.0 < yaw < 35.0
        assert server.loop.engine.robot_model("Alpha/p1") == "T1"
        z = server.loop.engine.robot_pose("Alpha/p1")[0][2]
        assert z < 0.4  # every other joint has zero gains, as on rcsssmj: the T1 collapsed
        bad = RcsssmjAgent("127.0.0.1", server.agent_servers["rcsssmj"].port, "Alpha", 2, model="R2D2")
        bad.join()
        for _ in range(250):  # the refusal is logged in the cycle that reads the init
            if "'R2D2'" in caplog.text:
                break
            agent.act()
    assert "'R2D2'" in caplog.text and "T1" in caplog.text and "K1" in caplog.text and "nao" in caplog.text


def test_every_rcsssmj_model_joins_one_world_and_moves() -> None:
    """T1, K1 and ant (unnamed bodies, degrees, fromto) side by side: attached verbatim,
    each robot owns its bodies, and a torque command (the file's motor, gear 150) swings
    the ant's hips to their 30 deg limit."""
    from sim_physics.engine.mujoco.engine import MujocoEngine

    engine = MujocoEngine("fifa_field", vision_noise=False)
    for i, model in enumerate(("T1", "K1", "ant")):
        engine.add_robot(model, model, 3.0 * i, 25.0, -90.0)
    engine.step()
    owners = {rid: set(engine._robot(rid).body_ids.tolist()) for rid in ("T1", "K1", "ant")}
    assert len(owners["ant"]) == 13 and not owners["T1"] & owners["ant"]
    hips = [n for n in engine.effector_names("ant") if n.endswith("e1")]
    for _ in range(25):
        engine.set_joint_pd("ant", {n: (0.0, 0.0, 0.0, 0.0, 0.2) for n in hips})
        engine.step()
    angles = dict(zip(engine.joint_names("ant"), engine.percept("ant", vision=False).joint_angles))
    assert all(angles[n.replace("e", "j")] > 20.0 for n in hips)
