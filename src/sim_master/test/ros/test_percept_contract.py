"""The percept contract (sim_contracts.percept) is kept by every encoder, field by field.

- ROS: a percept with every field set survives sim_msgs/Percept and its CDR bytes, and every
  field of Percept.msg is filled from a declared percept field (a new message field without a
  declaration fails here).
- CDR: the bytes sim_hotpath.percept_cdr writes for ROS players (issue 28: 10x rclpy's
  conversion) are the message rclpy would publish, for every field. rclpy leaves its
  alignment padding unwritten (whatever the buffer held) and may hand over more bytes than the
  message (its size estimate), ours writes zeros and stops at the end: the bytes are compared
  outside the padding, and the message read back must equal percept_to_msg's.
- Legacy wire: for each dialect, changing one percept field changes the encoded perception
  exactly when the field declares that dialect in its `wire` (a field a dialect claims but
  drops, or sends but does not declare, fails here).
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest
from rclpy.serialization import deserialize_message, serialize_message

from sim_bridge.dialects.rcsssmj import RcsssmjDialect
from sim_bridge.dialects.simspark import SimSparkDialect
from sim_contracts.percept import (
    DIALECTS,
    ForceResistance,
    GameStateView,
    Heard,
    Percept,
    Polar,
    SeenPlayer,
    Vision,
    percept_fields,
)
from sim_hotpath import percept_cdr
from sim_master.ros.convert import percept_from_msg, percept_to_msg, stamp
from sim_msgs.msg import Percept as PerceptMsg

# Percept.msg fields filled from the player or from a declared field's companion, not from
# a percept field of their own.
FROM_THE_PLAYER = {"unum", "side"}
COMPANIONS = {"vision_updated": "vision", "line_ends": "vision", "my_pos": "vision", "my_orien": "vision",
              "ball_pos": "vision"}


def full_percept(names: list[str]) -> Percept:
    """Every field away from its default, values exact in float32 where the message is."""
    return Percept(
        time=12.34,
        game=GameStateView("PlayOn", 301.5, 2, 1, "Alpha", "Beta", unum=7, side="left"),
        gyro=(1.5, -2.25, 3.0),
        accel=(0.5, 0.25, 9.75),
        joint_names=names,
        joint_angles=[10.0 + i for i in range(len(names))],
        joint_velocities=[-5.0 - i for i in range(len(names))],
        foot_resistance=[ForceResistance("lf", (0.01, -0.02, 0.0), (1.0, 2.0, 20.5))],
        torso_position=(-3.5, 1.25, 0.375),
        torso_quaternion=(0.5, 0.5, -0.5, 0.5),
        vision=Vision(
            objects={"F1L": Polar(10.5, -20.25, 1.5), "B": Polar(2.5, 3.0, -4.0)},
            players=[SeenPlayer("Beta", 3, {"head": Polar(4.0, 5.0, 6.0), "rlowerarm": Polar(4.5, 5.5, 6.5)})],
            lines=[(Polar(1.0, 2.0, 3.0), Polar(4.0, 5.0, 6.0))],
            truth={"mypos": (-3.5, 1.25, 0.375), "myorien": (45.5,), "ballpos": (0.25, -0.5, 0.04)},
        ),
        heard=[Heard(301.25, 30.0, "hello", from_self=False, from_teammate=True, team="Alpha")],
    )


def test_every_field_survives_sim_msgs_and_cdr() -> None:
    p = full_percept(["hj1", "hj2", "laj1"])
    msg = deserialize_message(serialize_message(percept_to_msg(p, stamp(p.time), "left", 7)), PerceptMsg)
    back = percept_from_msg(msg)
    for f in percept_fields():
        assert getattr(back, f.name) == getattr(p, f.name), f.name


def test_every_message_field_comes_from_a_declared_field() -> None:
    declared = {f.metadata["ros"].split(".")[0] for f in percept_fields()} | {"header"}
    message_fields = set(PerceptMsg.get_fields_and_field_types())
    assert message_fields - declared - FROM_THE_PLAYER - set(COMPANIONS) == set()
    assert declared - message_fields == set()


def _changed(p: Percept, name: str) -> Percept:
    """`p` with one field changed in a way every encoder that carries it must show."""
    changes: dict[str, Any] = {
        "time": lambda: p.time + 0.02,
        "game": lambda: replace(p.game, score_left=p.game.score_left + 1),
        "gyro": lambda: tuple(v + 1.0 for v in p.gyro),
        "accel": lambda: tuple(v + 1.0 for v in p.accel),
        "joint_names": lambda: [p.joint_names[0] + "x", *p.joint_names[1:]],
        "joint_angles": lambda: [v + 1.0 for v in p.joint_angles],
        "joint_velocities": lambda: [v + 1.0 for v in p.joint_velocities],
        "foot_resistance": lambda: [replace(p.foot_resistance[0], force=(1.0, 2.0, 30.5))],
        "torso_position": lambda: tuple(v + 1.0 for v in p.torso_position),
        "torso_quaternion": lambda: (0.0, 1.0, 0.0, 0.0),
        "vision": lambda: replace(p.vision, objects={**p.vision.objects, "B": Polar(9.5, 3.0, -4.0)}),
        "heard": lambda: [replace(p.heard[0], message="other")],
    }
    assert set(changes) == {f.name for f in percept_fields()}, "a new percept field needs a change here"
    return replace(p, **{name: changes[name]()})


@pytest.mark.parametrize("dialect", [SimSparkDialect(), RcsssmjDialect()], ids=lambda d: d.name)
def test_each_dialect_carries_exactly_its_declared_fields(dialect: Any) -> None:
    assert dialect.name in DIALECTS
    p = full_percept(["hj1", "hj2", "llj5", "llj6"])  # SimSpark puts the left foot's FRP after llj5
    base = dialect.encode_percept(p)
    for f in percept_fields():
        carried = dialect.encode_percept(_changed(p, f.name)) != base
        assert carried == (dialect.name in f.metadata["wire"]), (
            f"{dialect.name} {'sends' if carried else 'drops'} {f.name}, declared wire {f.metadata['wire']}")


# ------------------------------------------------------------------ CDR (ROS players' percepts)
def _cdr(p: Percept, side: str = "left", unum: int = 7) -> bytes:
    t = stamp(p.time)
    return percept_cdr(p, t.sec, t.nanosec, side, unum)


def _assert_same_message(p: Percept, side: str = "left", unum: int = 7) -> None:
    expected_msg = percept_to_msg(p, stamp(p.time), side, unum)
    ours, theirs = _cdr(p, side, unum), serialize_message(expected_msg)
    # rclpy's bytes may run on past the message (its buffer's estimate, unwritten)
    assert len(theirs) >= len(ours)
    differing = [i for i, (a, b) in enumerate(zip(ours, theirs[:len(ours)], strict=True)) if a != b]
    assert all(ours[i] == 0 for i in differing), f"bytes differ outside padding at {differing[:5]}"
    assert deserialize_message(ours, PerceptMsg) == expected_msg


def _crowded_vision() -> Vision:
    parts = ("head", "rlowerarm", "llowerarm", "rfoot", "lfoot")
    return Vision(objects={f"F{i}{s}": Polar(1.5 * i, -20.0 + i, 0.5) for i in range(1, 3) for s in "LR"} |
                  {"B": Polar(3.25, 1.0, -12.0)},
                  players=[SeenPlayer(team, unum, {part: Polar(4.0 + unum, 5.5, -6.0) for part in parts})
                           for team in ("Alpha", "Beta") for unum in range(1, 12)],
                  lines=[(Polar(1.0, 2.0, 3.0), Polar(4.0, 5.0, 6.0))] * 7)


@pytest.mark.parametrize("case", ["full", "no_vision", "crowded", "empty_lists", "unicode", "right_side_unum_0"])
def test_the_cdr_is_rclpys_message(case: str) -> None:
    p = full_percept(["hj1", "hj2", "laj1"])
    side, unum = "left", 7
    if case == "no_vision":
        p.vision = None
    elif case == "crowded":
        p = full_percept([f"j{i}" for i in range(22)])
        p.vision = _crowded_vision()
    elif case == "empty_lists":
        p = full_percept([])
        p.foot_resistance, p.heard, p.vision = [], [], Vision()
    elif case == "unicode":
        p.heard = [Heard(1.0, -45.5, "héllo ⚽", from_self=True, from_teammate=False, team="Équipe")]
        p.game.team_left = "Ñandú"
    elif case == "right_side_unum_0":
        side, unum = "right", 0
    _assert_same_message(p, side, unum)


@pytest.mark.parametrize("name", [f.name for f in percept_fields()])
def test_every_percept_field_reaches_the_cdr(name: str) -> None:
    p = full_percept(["hj1", "hj2", "llj5", "llj6"])
    changed = _changed(p, name)
    assert _cdr(changed) != _cdr(p)
    _assert_same_message(changed)


def test_times_of_a_whole_match_stamp_alike() -> None:
    p = full_percept(["hj1"])
    for t in (0.0, 0.02, 299.98, 600.0 - 1e-10, 1e6 + 0.5):
        p.time = t
        _assert_same_message(p)


def test_values_a_message_cannot_hold_are_refused() -> None:
    p = full_percept(["hj1"])
    with pytest.raises(ValueError, match="unum"):
        _cdr(p, unum=256)
    p.game.score_left = 70000
    with pytest.raises(ValueError, match="score"):
        _cdr(p)
    p = full_percept(["hj1"])
    p.gyro = (1.0, 2.0)  # type: ignore[assignment]  # a wrong value on purpose
    with pytest.raises(TypeError, match="gyro"):
        _cdr(p)
    p = full_percept([1])  # type: ignore[list-item]  # a wrong value on purpose
    with pytest.raises(TypeError, match="str"):
        _cdr(p)


def test_non_finite_readings_travel_as_they_are() -> None:
    p = full_percept(["hj1"])
    p.joint_angles = [math.nan]
    p.gyro = (math.inf, -math.inf, 0.0)
    msg = deserialize_message(_cdr(p), PerceptMsg)
    assert math.isnan(msg.joint_angles[0]) and msg.gyro.x == math.inf and msg.gyro.y == -math.inf


def _cases() -> list[tuple[Percept, str, int]]:
    p = full_percept(["hj1", "hj2", "laj1"])
    crowded = full_percept([f"j{i}" for i in range(22)])
    crowded.vision = _crowded_vision()
    empty = full_percept([])
    empty.foot_resistance, empty.heard, empty.vision = [], [], Vision()
    blind = full_percept(["hj1"])
    blind.vision = None
    odd = full_percept(["hj1"])
    odd.heard = [Heard(1.0, -45.5, "héllo ⚽", from_self=True, from_teammate=False, team="Équipe")]
    odd.game.team_left = "Ñandú"
    odd.joint_angles = [math.nan]
    odd.gyro = (math.inf, -math.inf, 0.0)
    return [(p, "left", 7), (crowded, "right", 0), (empty, "left", 1), (blind, "", 0), (odd, "left", 11)]


def _same(a: Percept, b: Percept) -> bool:
    return repr(a) == repr(b)  # NaN readings compare by their text


def test_the_bridges_compiled_reader_reads_what_rclpy_reads() -> None:
    """bridge_node reads its players' percepts from their CDR bytes (sim_hotpath.percept_from_cdr,
    issue 44): the Percept is the one rclpy's message gives through percept_from_msg, from
    rclpy's bytes and from the server's (percept_cdr), and the start-up check agrees."""
    from sim_bridge.ros.cdr_path import cdr_path
    from sim_bridge.ros.percepts import PERCEPT_TYPES
    from sim_hotpath import percept_from_cdr

    assert cdr_path().raw, cdr_path().why_not
    for p, side, unum in _cases():
        msg = percept_to_msg(p, stamp(p.time), side, unum)
        expected = percept_from_msg(msg)
        assert _same(percept_from_cdr(serialize_message(msg), PERCEPT_TYPES), expected)
        assert _same(percept_from_cdr(_cdr(p, side, unum), PERCEPT_TYPES), expected)


def test_the_compiled_reader_refuses_broken_bytes_cleanly() -> None:
    """Any participant may publish on a player's percept topic: every truncation and random
    corruption of a percept's bytes gives a Percept or a ValueError, never a crash or a read
    past the end; lengths that lie are refused before anything is allocated for them."""
    import random
    import struct

    from sim_bridge.ros.percepts import PERCEPT_TYPES
    from sim_hotpath import percept_from_cdr

    p = full_percept(["hj1", "hj2"])
    p.vision = _crowded_vision()
    data = _cdr(p)
    for end in range(len(data)):
        with pytest.raises(ValueError, match="percept"):
            percept_from_cdr(data[:end], PERCEPT_TYPES)
    rng = random.Random(7)
    for _ in range(3000):
        broken = bytearray(data)
        for _ in range(rng.randint(1, 6)):
            broken[rng.randrange(4, len(broken))] = rng.randrange(256)
        try:
            percept_from_cdr(bytes(broken), PERCEPT_TYPES)
        except ValueError:
            pass
    huge = bytearray(data)
    offset = data.index(b"hj1") - 4 - 4  # the joint names' count, before the first name's length
    huge[offset:offset + 4] = struct.pack("<I", 0xFFFFFFFF)
    with pytest.raises(ValueError, match="longer than the message"):
        percept_from_cdr(bytes(huge), PERCEPT_TYPES)
    with pytest.raises(ValueError, match="little-endian"):
        percept_from_cdr(b"\x00\x00\x00\x00" + data[4:], PERCEPT_TYPES)


def test_rclpys_serialization_is_the_fallback_and_gives_the_same() -> None:
    """sim_hotpath's CDR code is used only where the middleware and the messages are the ones it
    was built for (sim_bridge.ros.cdr_path); elsewhere nodes take rclpy's messages, and a player
    gets the same percepts and the server the same joint commands either way."""
    from sim_bridge.ros.cdr_path import CdrPath, installed_type_hash, refusal
    from sim_contracts.commands import JointTargets, JointVelocities
    from sim_hotpath import PERCEPT_TYPE_HASH
    from sim_master.ros.server_node import joint_command

    assert refusal() is None
    assert "rmw_cyclonedds_cpp" in (refusal("rmw_cyclonedds_cpp") or "")
    assert installed_type_hash("Percept") == PERCEPT_TYPE_HASH
    compiled, rclpys = CdrPath(raw=True), CdrPath(raw=False, why_not="test")
    for p, side, unum in _cases():
        t = stamp(p.time)
        msg = rclpys.percept_out(p, t, side, unum)
        data = compiled.percept_out(p, t, side, unum)
        assert isinstance(msg, PerceptMsg) and isinstance(data, bytes)
        # (through rclpy's bytes too: float32 fields round, NaN equals nothing)
        through_rclpy = deserialize_message(serialize_message(msg), PerceptMsg)
        assert repr(deserialize_message(data, PerceptMsg)) == repr(through_rclpy)
        assert _same(rclpys.percept_in(msg), compiled.percept_in(data))
    commands = (JointVelocities({"he1": 0.5, "lae3": -1.25}),
                JointTargets({"hj1": (0.5, 0.0, 20.0, 0.1, 0.0), "hj2": (-0.5, 0.1, 25.0, 0.2, 1.0)}))
    for command in commands:
        for synchronize in (False, True):
            from_bytes = joint_command(compiled.joint_command_out(command, synchronize), compiled)
            from_msg = joint_command(rclpys.joint_command_out(command, synchronize), rclpys)
            assert from_bytes == from_msg == (command, synchronize)
    assert rclpys.joint_command_out(object(), True) is None
