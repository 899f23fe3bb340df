"""A replay log written by the server plays back to a monitor and ROS."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sim_bridge.clients import LegacyClient, SimSparkAgent


def test_replay_to_a_monitor(running_server: Callable[..., Any], tmp_path: Path) -> None:
    log = tmp_path / "game.mcap"
    with running_server(log_path=str(log)) as server:
        agent = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Alpha", 1)
        agent.join()
        for _ in range(150):
            agent.act({"he1": 1.0})
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([shutil.which("soccersim") or "soccersim", "replay", str(log), "--speed", "1",
                             "--simspark-monitor-port", "-1", "--rcsssmj-monitor-port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ))
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("rcsssmj monitors:")
        monitor = LegacyClient("127.0.0.1", port)
        first = monitor.receive()
        assert b"(sg 1 0)full" in first and b"DSC(ball)" in first and b"(team_left " in first
        assert b"(nd DSC(agent Alpha 1)" in first or b"(team_left <LEFT>)" in first
        assert any(b"(sg 1 0)diff" in monitor.receive() for _ in range(20))
        output, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0 and "replayed" in output
        replayed = int(output.split("replayed ")[1].split()[0])
        assert replayed >= 150
    finally:
        if proc.poll() is None:
            proc.kill()


def test_replayed_browser_frames_keep_teams_and_numbers_and_say_replay() -> None:
    """Players' robots are named <team>/p<unum>: the replay's browser frames colour and number
    them from the log, and the page is told it shows a replay."""
    from sim_physics.scene.world import SceneWorld
    from sim_physics.snapshot import EntitySnapshot, Snapshot

    from sim_master.commands.replay import _web_frame
    from sim_master.store.mcap_log import ReplayCycle
    from soccer_referee.game_state import GameStateSnapshot

    entities = {name: EntitySnapshot(name=name, position=(1.0, 2.0, 0.3), model="nao0")
                for name in ("Alpha/p3", "Beta/p7", "crate")}
    state = GameStateSnapshot()
    state.team_left, state.team_right, state.game_time = "Alpha", "Beta", 12.5
    world = SceneWorld("simspark_field")
    cycle = ReplayCycle(10, 0.2, Snapshot(10, 0.2, True, entities), None)
    world.apply_snapshot(cycle.snapshot)
    frame = _web_frame(cycle, state, world)
    robots = {r["id"]: (r["side"], r["unum"]) for r in frame.robots}
    assert robots == {"Alpha/p3": ("left", 3), "Beta/p7": ("right", 7), "crate": ("", 0)}
    assert frame.mode == "replay" and frame.game_time == 12.5
