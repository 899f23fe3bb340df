"""Two matches in one ROS domain under two namespaces: each server's services, game state and
players live under its namespace, each publishes its own <ns>/clock, and its log lines reach
/rosout."""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from rcl_interfaces.msg import Log
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from sim_msgs.msg import GameState
from sim_msgs.srv import InitAgent, SetPlayMode


def test_two_matches_under_two_namespaces(running_server: Callable[..., Any],
                                          ros_caller: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="soccersim")  # as `soccersim server` logs
    common = dict(sync=False, realtime=True, ros=True, node_name="soccersim")
    with running_server(["--ros-args", "-r", "__ns:=/m1"], **common) as one, \
            running_server(["--ros-args", "-r", "__ns:=/m2"], **common) as two:
        node = ros_caller.node
        states: dict[str, GameState] = {}
        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        for ns in ("m1", "m2"):
            node.create_subscription(GameState, f"/{ns}/game_state",
                                     lambda msg, ns=ns: states.__setitem__(ns, msg), latched)
        logs: list[Log] = []
        node.create_subscription(Log, "/rosout", logs.append, QoSProfile(depth=100))

        joined = ros_caller.call(InitAgent, "/m1/soccer_referee/init_agent",
                      InitAgent.Request(team="Alpha", unum=3, robot_model="nao"))
        assert joined.success and joined.player_namespace == "/m1/Alpha/p3"
        mode = ros_caller.call(SetPlayMode, "/m2/soccer_referee/set_play_mode", SetPlayMode.Request(play_mode="PlayOn"))
        assert mode.success
        ros_caller.spin_until(lambda: states.get("m1") and states["m1"].team_left == "Alpha" and states.get("m2")
                              and states["m2"].play_mode == "PlayOn" and any("Alpha" in m.msg for m in logs),
                              "both matches' game states and the log line")
        assert states["m1"].team_left == "Alpha" and states["m1"].play_mode == "BeforeKickOff"
        assert states["m2"].team_left == "" and states["m2"].play_mode == "PlayOn"  # two matches, apart
        assert one.loop.referee.state.team_left == "Alpha" and two.loop.referee.state.team_left == ""
        assert any("Alpha" in m.msg and m.name.endswith("soccersim") for m in logs), [m.msg for m in logs][-5:]


def test_two_namespaced_servers_keep_their_clocks_apart(running_server: Callable[..., Any], ros_caller: Any) -> None:
    """A player in /m1 with use_sim_time (its /clock remapped to /m1/clock) sees only m1's
    time, never going back, while m2 runs beside it, started later (issue 28: on one /clock,
    120 of 345 clock messages went backwards)."""
    import rclpy
    from rclpy.node import Node
    from rosgraph_msgs.msg import Clock

    common = dict(sync=False, realtime=True, ros=True, node_name="soccersim")
    with running_server(["--ros-args", "-r", "__ns:=/m1"], **common) as one:
        ros_caller.spin_until(lambda: one.loop.engine.time > 1.0, "m1 runs a second ahead")
        with running_server(["--ros-args", "-r", "__ns:=/m2"], **common):
            player = Node("player", namespace="/m1", context=ros_caller.node.context,
                          cli_args=["--ros-args", "-r", "/clock:=/m1/clock"],
                          parameter_overrides=[rclpy.parameter.Parameter("use_sim_time", value=True)])
            ros_caller.executor.add_node(player)
            stamps: list[float] = []
            player.create_subscription(Clock, "/clock",
                                       lambda m: stamps.append(m.clock.sec + m.clock.nanosec * 1e-9), 100)
            seen: list[float] = []

            def sample() -> bool:
                seen.append(player.get_clock().now().nanoseconds * 1e-9)
                return len(stamps) >= 100

            ros_caller.spin_until(sample, "100 clock messages of m1")
            assert all(b >= a for a, b in zip(stamps, stamps[1:], strict=False)), "m1's clock went back"
            assert all(b >= a for a, b in zip(seen, seen[1:], strict=False)), "the player's sim time went back"
            assert seen[-1] > 1.0  # m1's time, not m2's (which started at 0 a second later)
            assert ros_caller.node.count_publishers("/m1/clock") == 1
            assert ros_caller.node.count_publishers("/clock") == 0
            ros_caller.executor.remove_node(player)
            player.destroy_node()
