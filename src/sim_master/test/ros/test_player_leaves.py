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


def _player(team: str, unum: int) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(PLAYER), team, str(unum), "/soccer_referee"],
                            stdout=subprocess.PIPE, text=True, env=dict(os.environ))


@pytest.mark.parametrize("how", ["sigterm", "sigkill"])
def test_a_player_whose_process_ends_leaves(running_server: Callable[..., Any], ros_caller: Any, how: str) -> None:
    with running_server(sync=True, ros=True, node_name="soccersim") as server:
        ghost = _player("Ghost", 1)
        try:
            assert ghost.stdout is not None and ghost.stdout.readline().strip() == "/Ghost/p1"
            other = ros_caller.call(InitAgent, "/soccer_referee/init_agent",
                                    InitAgent.Request(team="Beta", unum=1, robot_model="nao"))
            assert other.success
            ros_caller.spin_until(lambda: any(p.team == "Ghost" and p.answered_once for p in server.players),
                                  "Ghost plays (its commands reach the server)")
            robots = len(server.engine.robot_ids())
            ghost.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGKILL)
            ghost.wait(10)
            gone_at = time.monotonic()
            ros_caller.spin_until(lambda: not any(p.team == "Ghost" for p in server.players),
                                  "the ended player left", timeout=30)
            left_after = time.monotonic() - gone_at
            assert len(server.engine.robot_ids()) == robots - 1  # its robot went with it
            ros_caller.spin_until(lambda: server.referee.state.team_left == "", "Ghost's side free")
            third = ros_caller.call(InitAgent, "/soccer_referee/init_agent",
                                    InitAgent.Request(team="Gamma", unum=1, robot_model="nao"))
            assert third.success, third.error  # the side Ghost held is free
            if how == "sigterm":
                assert left_after < 1.5, left_after
        finally:
            ghost.kill()
            ghost.wait(10)
