"""Agents' RoboViz drawings are kept in the replay log (issue 30): a visualization_msgs
MarkerArray on /drawings whenever what is shown changes (Foxglove draws it), read back by the
replay for the browser as the shapes the live page drew."""
from __future__ import annotations

import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sim_master.ros.drawings import marker_view
from sim_master.store.drawing_records import drawings_from_record
from sim_master.store.mcap_log import ReplayLogReader


def num(v: float) -> bytes:
    return (b"%6f" % v)[:6]


def test_drawings_sent_during_a_match_come_back_from_its_log(running_server: Callable[..., Any],
                                                             tmp_path: Path) -> None:
    path = tmp_path / "drawn.mcap"
    datagram = (b"\x01\x01" + b"".join(num(v) for v in (-1, -2, 0, 3, 4, 0.5, 2)) + b"\x10\x20\x30" + b"7.L.path\0"
                + b"\x01\x03" + b"".join(num(v) for v in (1, 1, 0.2, 0.25)) + b"\xff\x00\x00" + b"7.L.path\0"
                + b"\x02\x00" + b"".join(num(v) for v in (0, 0, 1)) + b"\xff\xff\xff" + b"kick here\0" + b"notes\0"
                + b"\x00\x00" + b"\0")
    with running_server(sync=False, realtime=False, log_path=str(path), draw_port=0) as server:
        assert server.drawing is not None
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            deadline = time.monotonic() + 20
            while not server.drawing.view.board["sets"] and time.monotonic() < deadline:
                udp.sendto(datagram, ("127.0.0.1", server.drawing.port.port))
                time.sleep(0.05)
        finally:
            udp.close()
        drawn_at = server.loop.engine.time
        while server.loop.engine.time < drawn_at + 0.5 and time.monotonic() < deadline:
            time.sleep(0.01)
        live = server.drawing.view.board
    logged = [c for c in ReplayLogReader(str(path)).cycles() if c.drawings is not None]
    assert logged, "no /drawings in the log"
    back = drawings_from_record(logged[-1].drawings)
    assert sorted(back["sets"]) == sorted(live["sets"]) == ["7.L.path", "notes"]
    line, sphere = back["sets"]["7.L.path"]
    assert (line["kind"], line["points"], line["color"], line["width"]) == \
        ("line", [[-1.0, -2.0, 0.0], [3.0, 4.0, 0.5]], [16, 32, 48, 255], 2.0)
    assert (sphere["kind"], sphere["points"], sphere["size"]) == ("sphere", [[1.0, 1.0, 0.2]], 0.25)
    (text,) = back["sets"]["notes"]
    assert (text["kind"], text["text"], text["points"]) == ("text", "kick here", [[0.0, 0.0, 1.0]])
    # cycles before the first drawing carry none; the drawings hold from their cycle on
    first = next(i for i, c in enumerate(ReplayLogReader(str(path)).cycles()) if c.drawings is not None)
    assert first > 0


def test_a_replays_page_gets_the_logged_drawings(running_server: Callable[..., Any], tmp_path: Path,
                                                 free_port: int) -> None:
    """`soccersim replay --web-port`: the page that opens on the replayed log gets its drawings
    with the frames (even at the end of the log, paused, where it gets the last frame only)."""
    import json
    import os
    import shutil
    import signal
    import subprocess

    from websockets.sync.client import connect

    path = tmp_path / "drawn.mcap"
    datagram = b"\x01\x03" + b"".join(num(v) for v in (1, 1, 0.2, 0.25)) + b"\xff\x00\x00" + b"ball\0" + b"\x00\x00\0"
    with running_server(sync=False, realtime=False, log_path=str(path), draw_port=0) as server:
        assert server.drawing is not None
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        deadline = time.monotonic() + 20
        while not server.drawing.view.board["sets"] and time.monotonic() < deadline:
            udp.sendto(datagram, ("127.0.0.1", server.drawing.port.port))
            time.sleep(0.05)
        udp.close()
        # drawn for ROS and the log on the feed's own thread: from then on, each cycle logs them
        while marker_view(server.drawing) is None and time.monotonic() < deadline:
            time.sleep(0.01)
        drawn_at = server.loop.engine.time
        while server.loop.engine.time < drawn_at + 0.2 and time.monotonic() < deadline:
            time.sleep(0.01)
    proc = subprocess.Popen([shutil.which("soccersim") or "soccersim", "replay", str(path), "--speed", "8",
                             "--web-port", str(free_port), "--simspark-monitor-port", "-1",
                             "--rcsssmj-monitor-port", "-1", "--no-ros"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        while line and not line.startswith("end of the log"):
            line = proc.stdout.readline()
        assert line.startswith("end of the log"), line
        with connect(f"ws://127.0.0.1:{free_port}/ws", open_timeout=10) as ws:
            frame: dict[str, Any] = {}
            while frame.get("kind") != "frame":
                frame = json.loads(ws.recv(timeout=10))
        assert list(frame["drawings"]["sets"]) == ["ball"]
        assert frame["drawings"]["sets"]["ball"][0]["kind"] == "sphere"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
