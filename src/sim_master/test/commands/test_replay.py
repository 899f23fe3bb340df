"""A replay log written by the server plays back to a monitor and ROS."""
from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
from pathlib import Path

from sim_bridge.clients import LegacyClient, SimSparkAgent

_spec = importlib.util.spec_from_file_location(
    "server_fixture", Path(__file__).parents[1] / "master" / "server_fixture.py")
fixture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixture)


def test_replay_to_a_monitor(tmp_path: Path) -> None:
    log = tmp_path / "game.mcap"
    with fixture.running_server(log_path=str(log)) as server:
        agent = SimSparkAgent("127.0.0.1", fixture.port(server, "simspark"), "Alpha", 1)
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
        assert any(b"(sg 1 0)diff" in monitor.receive() for _ in range(20))
        output, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0 and "replayed" in output
        replayed = int(output.split("replayed ")[1].split()[0])
        assert replayed >= 150
    finally:
        if proc.poll() is None:
            proc.kill()
