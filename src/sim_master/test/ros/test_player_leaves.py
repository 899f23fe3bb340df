"""A ROS-native player whose process ends leaves the match as a TCP agent whose connection
closed: its robot goes, its team's side is free for another team (issue 28)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sim_msgs.srv import InitAgent

PLAYER = Path(__file__).with_name("ros_player_process.py")


SHORT_LEASE = Path(__file__).resolve().parents[4] / "config" / "fastdds_short_lease.xml"


def _player(team: str, unum: int, short_lease: bool = False) -> subprocess.Popen[str]:
    env = dict(os.environ, FASTDDS_DEFAULT_PROFILES_FILE=str(SHORT_LEASE)) if short_lease else dict(os.environ)
    return subprocess.Popen([sys.executable, str(PLAYER), team, str(unum), "/soccer_referee"],
                            stdout=subprocess.PIPE, text=True, env=env)


@pytest.mark.parametrize("how", ["sigterm", "sigkill"])
def test_a_player_whose_process_ends_leaves(running_server: Callable[..., Any], ros_caller: Any, how: str) -> None:
    """Sync mode waits up to 5 s (the default) for a silent player; one whose publishers have
    gone is not waited for: it leaves within a second of its exit (SIGTERM), or, killed, a
    second after its DDS lease runs out (the player opted in to a 1 s lease)."""
    with running_server(sync=True, ros=True, node_name="soccersim", sync_timeout=5.0) as server:
        ghost = _player("Ghost", 1, short_lease=how == "sigkill")
        other: subprocess.Popen[str] | None = None
        try:
            assert ghost.stdout is not None and ghost.stdout.readline().strip() == "/Ghost/p1"
            other = _player("Beta", 1)  # after Ghost (its side is the left); it plays on, as a silent one would not
            assert other.stdout is not None and other.stdout.readline().strip() == "/Beta/p1"
            ros_caller.spin_until(lambda: any(p.team == "Ghost" and p.answered_once for p in server.loop.players),
                                  "Ghost plays (its commands reach the server)")
            robots = len(server.loop.engine.robot_ids())
            ghost.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGKILL)
            ghost.wait(10)
            gone_at = time.monotonic()
            ros_caller.spin_until(lambda: not any(p.team == "Ghost" for p in server.loop.players),
                                  "the ended player left", timeout=30)
            left_after = time.monotonic() - gone_at
            cycle = server.loop.engine.cycle
            ros_caller.spin_until(lambda: server.loop.engine.cycle >= cycle + 50, "the match goes on with Beta")
            went_on_after = time.monotonic() - gone_at  # no cycle held for the one that left
            assert len(server.loop.engine.robot_ids()) == robots - 1  # its robot went with it
            ros_caller.spin_until(lambda: server.loop.referee.state.team_left == "", "Ghost's side free")
            third = ros_caller.call(InitAgent, "/soccer_referee/init_agent",
                                    InitAgent.Request(team="Gamma", unum=1, robot_model="nao"))
            assert third.success, third.error  # the side Ghost held is free
            assert left_after < (1.0 if how == "sigterm" else 3.0), left_after
            assert went_on_after < left_after + 1.0, (left_after, went_on_after)
        finally:
            for each in (ghost, other):
                if each is not None:
                    each.kill()
                    each.wait(10)


def test_a_hundred_joins_at_once_are_answered_in_order_and_silent_players_leave(
        running_server: Callable[..., Any], ros_caller: Any) -> None:
    """Issue 42: 100 concurrent `init_agent` calls left 90 unanswered (each held one of the
    executor's two threads while the loop made its robot), and a player whose process ended
    before it published held its place and its side for ever. Now every call is answered,
    in the order sent, and a player with no publisher within its join window leaves."""
    from sim_master.ros.player_inbox import JOIN_WINDOW_S

    with running_server(sync=False, realtime=True, ros=True, node_name="soccersim") as server:
        from soccer_referee.ros.referee_node import JOIN_QOS

        # one client with a hundred calls in flight keeps them all (a default client keeps 10)
        client = ros_caller.node.create_client(InitAgent, "/soccer_referee/init_agent", qos_profile=JOIN_QOS)
        assert client.wait_for_service(timeout_sec=20)
        sent_at = time.monotonic()
        futures = [client.call_async(InitAgent.Request(team="A" if i % 2 == 0 else "B", unum=0, robot_model="nao"))
                   for i in range(100)]
        ros_caller.spin_until(lambda: all(f.done() for f in futures), "every call answered", timeout=120)
        answers = [f.result() for f in futures]
        for first in (0, 1):  # A, B
            mine = answers[first::2]
            assert [a.success for a in mine] == [True] * 11 + [False] * 39, [a.error for a in mine]
            assert [a.unum for a in mine[:11]] == list(range(1, 12))  # numbered in the order asked
            assert all(a.error for a in mine[11:])
        assert len(server.loop.engine.robot_ids()) == 22
        # none of them ever publishes: each leaves after its join window, and both sides are free
        ros_caller.spin_until(lambda: not list(server.loop.players), "the silent players gone",
                              timeout=JOIN_WINDOW_S + 30)
        assert time.monotonic() - sent_at >= JOIN_WINDOW_S
        ros_caller.spin_until(lambda: server.loop.referee.state.team_left == server.loop.referee.state.team_right == "",
                              "both sides free")
