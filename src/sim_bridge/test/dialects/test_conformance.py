"""Byte-for-byte conformance with the captured reference traffic, per dialect."""
from __future__ import annotations

import math

import pytest
import sample_percepts as samples  # src/sim_bridge/test on pythonpath (pytest.ini)

from sim_bridge.dialects.rcsssmj import RcsssmjDialect
from sim_bridge.dialects.simspark import SimSparkDialect
from sim_contracts.commands import Beam, InitPlayer, JointTargets, JointVelocities, Say, Scene, Syn

SIMSPARK_FILES = ["agent_Alpha_1_msgs.txt", "agent_Alpha_2_msgs.txt", "agent_Beta_1_msgs.txt",
                  "agent_Beta_2_msgs.txt"]
RCSSSMJ_FILES = ["perception_T1_first.txt", "perception_T1_with_See.txt", "perception_T1_without_See.txt",
                 "perception_K1_with_See.txt", "perception_K1_with_MIC.txt"]


@pytest.mark.parametrize("name", SIMSPARK_FILES)
def test_simspark_perceptions_are_reproduced_byte_for_byte(name: str) -> None:
    dialect = SimSparkDialect()
    messages = samples.simspark_messages(name)
    assert len(messages) >= 5
    for msg in messages:
        assert dialect.encode_percept(samples.percept_from_simspark(msg)) == msg


def test_first_gs_after_init_carries_unum_and_side() -> None:
    messages = samples.simspark_messages("agent_Alpha_1_msgs.txt")
    assert b"(unum" not in messages[0]
    announced = [m for m in messages if b"(unum" in m]
    assert len(announced) == 1  # once, in the first GS after init
    assert b"(GS (unum 1) (team left) (sl 0) (sr 0) (t 0.00) (pm BeforeKickOff))" in announced[0]


@pytest.mark.parametrize("name", RCSSSMJ_FILES)
def test_rcsssmj_perceptions_are_reproduced_byte_for_byte(name: str) -> None:
    msg = (samples.SAMPLES / name).read_bytes().strip()
    assert RcsssmjDialect().encode_percept(samples.percept_from_rcsssmj(msg)) == msg


def test_simspark_actions_as_agents_send_them() -> None:
    dialect = SimSparkDialect()
    commands, errors = dialect.parse_actions(b"(scene rsg/agent/nao/nao_hetero.rsg 4)(syn)")
    assert commands == [Scene("rsg/agent/nao/nao_hetero.rsg", 4), Syn()] and errors == []
    for text in (b"(init (unum 7)(teamname FCP))", b"(init (unum 7) (teamname FCP))"):
        assert dialect.parse_actions(text) == ([InitPlayer("FCP", 7)], [])
    commands, errors = dialect.parse_actions(
        b"(he1 0.00000)(he2 -0.00)(lle1 1.6806e-05)(rle3 1.5)(beam -14 0 0.0)(say Hello.123)(syn)")
    assert errors == []
    speeds = next(c for c in commands if isinstance(c, JointVelocities)).speeds
    assert speeds == {"he1": 0.0, "he2": -0.0, "lle1": 1.6806e-05, "rle3": 1.5}
    assert Beam(-14.0, 0.0, 0.0) in commands and Say("Hello.123") in commands


def test_rcsssmj_action_samples_parse() -> None:
    dialect = RcsssmjDialect()
    for name in ("actions_T1_joints.txt", "actions_K1_joints.txt", "actions_T1_joints_plus_SPK.txt",
                 "actions_T1_beam.txt", "actions_ant_joints.txt"):
        commands, errors = dialect.parse_actions((samples.SAMPLES / name).read_bytes().strip())
        assert errors == [], name
        assert commands, name
    commands, _ = dialect.parse_actions((samples.SAMPLES / "actions_T1_joints_plus_SPK.txt").read_bytes())
    targets = next(c for c in commands if isinstance(c, JointTargets)).targets
    assert targets["he1"] == (0.0, 0.0, 25.0, 0.5, 0.0)
    assert Say("hello") in commands
    commands, _ = dialect.parse_actions(b"(init T1 Team 103)(lle4 90 -180 25 0.5 1)")
    assert commands[0] == InitPlayer("Team", 3, "T1")
    q, dq, *_ = commands[1].targets["lle4"]
    assert (q, dq) == (pytest.approx(math.pi / 2), pytest.approx(-math.pi))


@pytest.mark.parametrize("payload", [b"(he1 1", b"he1 1)", b"\xff\xfe", b"(he1 nan)", b"(he1 abc)",
                                     b"(bogus 1 2)", b"()"])
def test_malformed_simspark_input_is_an_error_not_an_exception(payload: bytes) -> None:
    commands, errors = SimSparkDialect().parse_actions(payload)
    assert errors and not any(isinstance(c, JointVelocities) and c.speeds for c in commands)


def test_vision_intervals() -> None:
    assert (SimSparkDialect().vision_interval, RcsssmjDialect().vision_interval) == (3, 2)
