"""sim_msgs across processes over real DDS: every field of a Percept arrives intact, and an
InitAgent service answers a client in another process."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import rclpy
from rclpy.node import Node

from sim_msgs.msg import Percept
from sim_msgs.srv import InitAgent

PEER = Path(__file__).parent / "dds_peer.py"
import dds_peer as peer  # noqa: E402  # src/sim_msgs/test on pythonpath (pytest.ini)


@contextmanager
def peer_process(mode: str) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, str(PEER), mode], env=dict(os.environ))
    try:
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def values(msg: object) -> object:
    """A message as nested plain data (arrays as lists) for comparison."""
    if hasattr(msg, "get_fields_and_field_types"):
        return {k: values(getattr(msg, k)) for k in msg.get_fields_and_field_types()}
    if isinstance(msg, (list, tuple)) or type(msg).__name__ in ("array", "ndarray"):
        return [values(v) for v in msg]
    return msg


def test_percept_crosses_processes_intact(ros_context: rclpy.Context) -> None:
    node = Node("percept_listener", context=ros_context)
    received: list[Percept] = []
    node.create_subscription(Percept, "/test/percept", received.append, 10)
    executor = rclpy.executors.SingleThreadedExecutor(context=ros_context)
    executor.add_node(node)
    with peer_process("publish"):
        deadline = time.monotonic() + 20
        while not received and time.monotonic() < deadline:
            executor.spin_once(timeout_sec=0.1)
    assert received, "no Percept arrived from the other process"
    got, expected = values(received[0]), values(peer.full_percept())
    assert got == expected
    assert got["joint_angles"][21] == 21 * 1.5 - 10 and got["seen"]["team"][1] == "Beta"
    node.destroy_node()


def test_init_agent_service_across_processes(ros_context: rclpy.Context) -> None:
    node = Node("init_agent_client", context=ros_context)
    client = node.create_client(InitAgent, "/test/init_agent")
    executor = rclpy.executors.SingleThreadedExecutor(context=ros_context)
    executor.add_node(node)

    def call(team: str, unum: int) -> InitAgent.Response:
        # Fast DDS may drop a response sent before the server has matched this client's
        # response reader (wait_for_service only proves the request side); these requests are
        # idempotent, so a lost answer is asked for again, as a real client would.
        for _ in range(4):
            future = client.call_async(InitAgent.Request(team=team, unum=unum, robot_model="nao"))
            executor.spin_until_future_complete(future, timeout_sec=5)
            if future.done():
                return future.result()
            client.remove_pending_request(future)
        raise AssertionError("no answer from the service after 4 requests")

    with peer_process("serve"):
        assert client.wait_for_service(timeout_sec=20)
        first = call("Alpha", 0)
        assert (first.success, first.unum, first.side, first.player_namespace) == (True, 1, "left", "/Alpha/p1")
        assert call("Beta", 4).side == "right"
        third = call("Gamma", 2)
        assert not third.success and "cannot join" in third.error
    node.destroy_node()
