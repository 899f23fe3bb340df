"""How the server reads ROS players' effector topics (issue 28), on real rclpy and DDS:

- joint commands arrive as CDR bytes read by sim_hotpath.joint_command_from_cdr: the same
  values as rclpy's own message, the same refusals as before, and malformed bytes (any
  participant in the domain can publish some) give a clear error, never a crash or a read
  past the end;
- the SubscriptionBell rings with exactly the topics that got messages, in the order they
  came, messages already waiting included, and never again once unwatched."""
from __future__ import annotations

import random
import time
from typing import Any

import pytest
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.node import Node
from rclpy.serialization import serialize_message
from sim_hotpath._rcl_bell import SubscriptionBell
from std_msgs.msg import String

from sim_contracts.commands import JointTargets, JointVelocities
from sim_hotpath import joint_command_from_cdr
from sim_master.ros.server_node import joint_command
from sim_msgs.msg import JointCommand

VELOCITIES = JointCommand(mode=JointCommand.MODE_VELOCITY, names=["he1", "lae1", "rle6"],
                          velocities=[0.5, -1.25, 3.0], synchronize=True)
TARGETS = JointCommand(mode=JointCommand.MODE_PD, names=["q_hj1", "q_ll1"], q=[0.1, -0.2], dq=[0.0, 1.0],
                       kp=[25.0, 40.0], kd=[1.0, 2.0], tau=[0.0, -0.5])


def test_joint_commands_read_from_bytes_as_rclpy_reads_them() -> None:
    for msg in (VELOCITIES, TARGETS, JointCommand(), JointCommand(names=["ñ_jöint"], velocities=[1.0])):
        mode, names, velocities, q, dq, kp, kd, tau, synchronize = joint_command_from_cdr(serialize_message(msg))
        assert (mode, names, velocities, q, dq, kp, kd, tau, synchronize) == (
            msg.mode, list(msg.names), list(msg.velocities), list(msg.q), list(msg.dq), list(msg.kp),
            list(msg.kd), list(msg.tau), msg.synchronize)


def test_joint_commands_become_the_loops_commands_or_a_reason() -> None:
    assert joint_command(serialize_message(VELOCITIES)) == (
        JointVelocities({"he1": 0.5, "lae1": -1.25, "rle6": 3.0}), True)
    assert joint_command(serialize_message(TARGETS)) == (
        JointTargets({"q_hj1": (0.1, 0.0, 25.0, 1.0, 0.0), "q_ll1": (-0.2, 1.0, 40.0, 2.0, -0.5)}), False)
    short = JointCommand(names=["he1", "he2"], velocities=[1.0])
    assert joint_command(serialize_message(short))[0] == "joint_command: 2 names but 1 velocities"
    pd_short = JointCommand(mode=JointCommand.MODE_PD, names=["q_hj1"], q=[0.1])
    assert "must have the length of names" in str(joint_command(serialize_message(pd_short))[0])
    bad_mode = JointCommand(mode=7, names=["he1"], velocities=[1.0])
    assert "mode 7" in str(joint_command(serialize_message(bad_mode))[0])


def test_malformed_bytes_are_refused_with_a_reason() -> None:
    data = serialize_message(VELOCITIES)
    # every truncation before the last field is refused (rclpy's bytes may run on past the
    # message's end: the shortest prefix that reads is the message)
    outcomes = [joint_command(data[:end])[0] for end in range(len(data) + 1)]
    complete = next(end for end, outcome in enumerate(outcomes) if not isinstance(outcome, str))
    assert complete > data.index(b"rle6") + 5 + 3 * 8  # past the names and the velocities
    assert all(str(o).startswith("joint_command:") for o in outcomes[:complete])
    assert all(o == outcomes[complete] for o in outcomes[complete:])
    assert "little-endian" in str(joint_command(b"\x00\x00\x00\x00" + data[4:])[0])
    huge = data[:4] + b"\x00" + b"\x00\x00\x00" + (0xFFFFFFF0).to_bytes(4, "little") + data[12:]
    assert "longer than the message" in str(joint_command(huge)[0])
    not_utf8 = data.replace(b"lae1", b"la\xff1")
    assert "not UTF-8" in str(joint_command(not_utf8)[0])
    no_nul = bytearray(data)
    no_nul[data.index(b"he1") + 3] = ord("x")
    assert "NUL" in str(joint_command(bytes(no_nul))[0])


def test_random_bytes_never_crash_the_reader() -> None:
    rng = random.Random(28)
    base = bytearray(serialize_message(TARGETS))
    for _ in range(3000):
        data = bytearray(base)
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(4, len(data))] = rng.randrange(256)
        try:
            joint_command_from_cdr(bytes(data))
        except ValueError:
            pass
    for _ in range(500):
        try:
            joint_command_from_cdr(b"\x00\x01\x00\x00" + rng.randbytes(rng.randint(0, 64)))
        except ValueError:
            pass


@pytest.fixture
def node(ros_context: Any) -> Any:
    n = Node("bell_test", context=ros_context, namespace=f"/bell{time.monotonic_ns() % 10**9}")
    yield n
    n.destroy_node()


def _wait_for(bell: SubscriptionBell, count: int, timeout: float = 5.0) -> list[int]:
    keys: list[int] = []
    deadline = time.monotonic() + timeout
    while len(keys) < count and time.monotonic() < deadline:
        keys += bell.wait(0.2)
    return keys


def _wait_until_delivered(node: Any, sub: Any) -> None:
    """Until `sub` holds a message (an rcl wait set of it alone says so)."""
    with sub.handle, node.context.handle:
        wait_set = _rclpy.WaitSet(1, 0, 0, 0, 0, 0, node.context.handle)
        wait_set.clear_entities()
        wait_set.add_subscription(sub.handle)
        wait_set.wait(5_000_000_000)
        assert wait_set.get_ready_entities("subscription") == [sub.handle.pointer]


def test_the_bell_rings_with_the_topics_that_got_messages(node: Any) -> None:
    subs = [node.create_subscription(String, f"t{i}", lambda _m: None, 10) for i in range(4)]
    pubs = [node.create_publisher(String, f"t{i}", 10) for i in range(4)]
    bell = SubscriptionBell()
    pubs[3].publish(String(data="before watching"))
    _wait_until_delivered(node, subs[3])
    for key, sub in enumerate(subs):
        with sub.handle:
            bell.watch(sub.handle.pointer, key)
    assert bell.watched() == 4
    assert _wait_for(bell, 1) == [3]  # waiting already: rings at once

    pubs[2].publish(String(data="a"))
    assert _wait_for(bell, 1) == [2]
    pubs[0].publish(String(data="b"))
    pubs[0].publish(String(data="c"))
    pubs[1].publish(String(data="d"))
    assert _wait_for(bell, 2) == [0, 1]  # each topic once, in the order they rang
    assert bell.wait(0.05) == []

    with subs[0].handle:
        bell.unwatch(subs[0].handle.pointer)
    pubs[0].publish(String(data="unheard"))
    pubs[1].publish(String(data="heard"))
    assert _wait_for(bell, 1) == [1]
    assert bell.wait(0.1) == []
    for sub in subs[1:]:
        with sub.handle:
            bell.unwatch(sub.handle.pointer)
    assert bell.watched() == 0


def test_a_wake_ends_a_wait(node: Any) -> None:
    bell = SubscriptionBell()
    bell.wake()
    t0 = time.monotonic()
    assert bell.wait(5.0) == []
    assert time.monotonic() - t0 < 1.0
    with pytest.raises(ValueError):
        bell.watch(0, 1)


def test_a_bell_dropped_while_watching_harms_nothing(node: Any) -> None:
    """A reader that forgot to unwatch: messages that ring after its bell is gone find the
    bell's shared state, not freed memory (the process goes on; the subscription reads on)."""
    import gc

    sub = node.create_subscription(String, "dropped", lambda _m: None, 10)
    pub = node.create_publisher(String, "dropped", 10)
    bell = SubscriptionBell()
    with sub.handle:
        bell.watch(sub.handle.pointer, 1)
    del bell
    gc.collect()
    for i in range(50):
        pub.publish(String(data=str(i)))
    _wait_until_delivered(node, sub)
    with sub.handle:
        assert sub.handle.take_message(sub.msg_type, False) is not None


def test_the_bridges_joint_command_bytes_are_rclpys() -> None:
    """bridge_node publishes its agents' joint commands as CDR it writes itself
    (sim_bridge.ros.percepts.joint_command_cdr): byte for byte rclpy's serialization (but its
    padding), and what rclpy and the server read back is the message rclpy would send."""
    from rclpy.serialization import deserialize_message

    from sim_bridge.ros.percepts import joint_command_cdr, joint_command_msg

    commands = [JointVelocities({"he1": 0.5, "lae1": -1.25, "rle6": 3.0}), JointVelocities({}),
                JointTargets({"q_hj1": (0.1, -0.2, 25.0, 1.0, 0.0), "ñ_jöint": (1.0, 2.0, 3.0, 4.0, -5.5)}),
                JointTargets({}), JointVelocities({f"j{i}": i * 0.1 for i in range(40)})]
    for command in commands:
        for synchronize in (False, True):
            expected = joint_command_msg(command)
            assert expected is not None
            expected.synchronize = synchronize
            ours, theirs = joint_command_cdr(command, synchronize), serialize_message(expected)
            assert ours is not None and len(theirs) >= len(ours)  # rclpy's may run on past the message
            differing = [i for i, (a, b) in enumerate(zip(ours, theirs[:len(ours)], strict=True)) if a != b]
            assert all(ours[i] == 0 for i in differing), f"bytes differ outside padding at {differing[:5]}"
            assert deserialize_message(ours, JointCommand) == expected
            assert joint_command_from_cdr(ours)[-1] is synchronize
    assert joint_command_cdr(object(), True) is None


def test_the_bells_descriptor_is_readable_exactly_while_keys_wait(node: Any) -> None:
    """bridge_node waits on its agents' sockets and its percepts' bell in one select: the bell's
    descriptor turns readable when a message rings (or on wake) and stops being readable once
    wait() has taken the keys, so the select neither misses a percept nor spins."""
    import select

    sub = node.create_subscription(String, "bell_fd", lambda _m: None, 10)
    pub = node.create_publisher(String, "bell_fd", 10)
    bell = SubscriptionBell()

    def readable(timeout: float) -> bool:
        return bool(select.select([bell.fileno()], [], [], timeout)[0])

    with sub.handle:
        bell.watch(sub.handle.pointer, 5)
    assert not readable(0.05)
    pub.publish(String(data="a"))
    assert readable(5.0)  # the select wakes on the message alone
    assert bell.wait(0.0) == [5]
    assert not readable(0.05)
    pub.publish(String(data="b"))
    pub.publish(String(data="c"))
    assert readable(5.0)
    assert bell.wait(0.0) == [5] and not readable(0.05)
    bell.wake()
    assert readable(0.0)
    assert bell.wait(0.0) == [] and not readable(0.0)
    with sub.handle:
        bell.unwatch(sub.handle.pointer)
