"""examples/ros_player.py plays against a real server: it joins, turns its head to about
+-60 degrees by joint speed commands, and keeps a sync-mode match in lock-step."""
from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import rclpy

EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "ros_player.py"


def test_the_example_player_plays(running_server: Callable[..., Any], ros_context: rclpy.Context) -> None:
    del ros_context  # the fixture gives this test its own ROS_DOMAIN_ID-safe environment
    with running_server(sync=True, ros=True, node_name="sim_example", sync_timeout=2.0) as server:
        result = subprocess.run([sys.executable, str(EXAMPLE), "--team", "Lions", "--unum", "7", "--referee",
                                 "soccer_referee", "--cycles", "150"], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr[-2000:]
        assert "Lions #7 plays left" in result.stderr
        turned = float(result.stdout.split("up to ")[1].split()[0])
        assert 50 <= turned <= 70, result.stdout
        assert server.loop.referee.state.team_left == "Lions" and server.loop.engine.robot_ids() == ["Lions/p7"]
