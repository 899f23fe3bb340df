"""Commands from the page over the WebSocket: hostile input gets one clear error and harms
nobody (the sender stays connected, other clients keep their frames, the match goes on);
referee buttons act like a monitor's commands; remote pages may watch but not command;
the page's files (and nothing else) are served."""
from __future__ import annotations

import json
import math
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from websockets.sync.client import connect

from sim_contracts.field import FIELD_PRESETS
from sim_master.monitor_web.commands import CommandError, Control, parse_referee, parse_replay
from sim_master.monitor_web.server import WebMonitor
from soccer_referee.commands import DropBall, KickOff, MoveAgent, MoveBall, SetPlayMode

FIELD = FIELD_PRESETS["simspark"]


def test_referee_commands_are_checked() -> None:
    assert parse_referee({"cmd": "kickoff", "side": "left"}, FIELD) == KickOff("left")
    assert parse_referee({"cmd": "drop_ball"}, FIELD) == DropBall()
    assert parse_referee({"cmd": "free_kick", "side": "right"}, FIELD) == SetPlayMode("free_kick_right")
    assert parse_referee({"cmd": "play_mode", "name": "PlayOn"}, FIELD) == SetPlayMode("PlayOn")
    assert parse_referee({"cmd": "move_ball", "x": 3, "y": -2.5}, FIELD) == MoveBall((3.0, -2.5, FIELD.ball_radius))
    assert parse_referee({"cmd": "move_robot", "side": "left", "unum": 7, "x": -1, "y": 1, "yaw": 90},
                         FIELD) == MoveAgent("left", 7, -1.0, 1.0, 90.0)
    assert parse_referee({"cmd": "pause"}, FIELD) == Control("pause")
    refused = [
        {"cmd": "kickoff", "side": "middle"}, {"cmd": "play_mode", "name": "Recess"},
        {"cmd": "move_ball", "x": math.nan, "y": 0}, {"cmd": "move_ball", "x": math.inf, "y": 0},
        {"cmd": "move_ball", "x": 1e9, "y": 0}, {"cmd": "move_ball", "x": "3", "y": 0},
        {"cmd": "move_ball", "x": True, "y": 0}, {"cmd": "move_robot", "side": "left", "unum": 2.5, "x": 0, "y": 0},
        {"cmd": "move_robot", "side": "left", "unum": 0, "x": 0, "y": 0}, {"cmd": "killsim"},
    ]
    for command in refused:
        with pytest.raises(CommandError):
            parse_referee(command, FIELD)


def test_replay_controls_are_checked() -> None:
    assert parse_replay({"cmd": "seek", "time": 12.5}) == Control("seek", 12.5)
    assert parse_replay({"cmd": "speed", "value": 0.25}) == Control("speed", 0.25)
    assert parse_replay({"cmd": "step"}) == Control("step", 1.0)
    for command in ({"cmd": "speed", "value": 100}, {"cmd": "speed", "value": 0}, {"cmd": "seek", "time": -1},
                    {"cmd": "step", "cycles": 10**9}, {"cmd": "kickoff", "side": "left"}):
        with pytest.raises(CommandError):
            parse_replay(command)


def _until(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def test_hostile_messages_get_an_error_and_harm_nobody(running_server: Callable[..., Any]) -> None:
    with running_server(sync=False, realtime=True, web_port=0) as server:
        url = f"ws://127.0.0.1:{server.web_monitor.port}/ws"
        with connect(url, open_timeout=5) as attacker, connect(url, open_timeout=5) as watcher:
            first = json.loads(watcher.recv(timeout=10))
            assert first["kind"] in ("scene", "frame")
            for bad in ("not json", "[1, 2]", '{"cmd": 3}', '{"cmd": "move_ball", "x": NaN, "y": 0}',
                        '{"cmd": "move_ball", "x": 1e999, "y": 0}', '{"cmd": "killsim"}', "\x00\xff"):
                attacker.send(bad)
            errors = 0
            while errors < 2:  # replies to the first two (the others are refused on the loop's side)
                message = json.loads(attacker.recv(timeout=10))
                errors += message.get("kind") == "error"
            # still connected, still served; the other client still gets frames; the match runs
            before = server.loop.engine.time
            assert _until(lambda: server.loop.engine.time > before + 0.1)
            assert json.loads(watcher.recv(timeout=10))["kind"] in ("scene", "frame", "timeline")
            attacker.send(json.dumps({"cmd": "play_mode", "name": "PlayOn"}))
            assert _until(lambda: server.loop.referee.state.play_mode.value == "PlayOn")
            attacker.send(json.dumps({"cmd": "move_ball", "x": 2.0, "y": -1.0}))
            assert _until(lambda: abs(server.loop.engine.ball_position()[0] - 2.0) < 0.05)
        with connect(url, open_timeout=5) as big:  # more than a command may be: only that client goes
            big.send("x" * 100_000)
            with pytest.raises(Exception):  # noqa: B017 - closed with "message too big"
                for _ in range(1000):
                    big.recv(timeout=5)
        assert server.web_monitor is not None
        assert _until(lambda: server.loop.engine.time > 0.5)


def test_remote_pages_watch_but_cannot_command() -> None:
    monitor = WebMonitor("127.0.0.1", 0)
    monitor.start()
    try:
        assert monitor.commands_allowed("127.0.0.1") and monitor.commands_allowed("::1")
        assert not monitor.commands_allowed("192.168.1.20")
        assert monitor._accept('{"cmd": "pause"}', "192.168.1.20:5000", allowed=False).startswith(
            "commands are accepted from this machine only")
        assert monitor.take_commands() == []
        assert monitor._accept('{"cmd": "pause"}', "127.0.0.1:5000", allowed=True) is None
        assert [c.command for c in monitor.take_commands()] == [{"cmd": "pause"}]
        # a flooding page loses its own commands, not another page's
        flood = [monitor._accept('{"cmd": "pause"}', "127.0.0.1:1", allowed=True) for _ in range(40)]
        assert flood.count(None) == 16 and all(e and "too many" in e for e in flood[16:])
        assert monitor._accept('{"cmd": "play"}', "127.0.0.1:2", allowed=True) is None
        taken = monitor.take_commands()
        assert len(taken) == 17 and taken[-1].peer == "127.0.0.1:2"
        assert monitor._accept('{"cmd": "pause"}', "127.0.0.1:1", allowed=True) is None  # drained: room again
        remote = WebMonitor("127.0.0.1", 0, allow_remote_commands=True)
        assert remote.commands_allowed("192.168.1.20")
    finally:
        monitor.close()


def test_the_page_and_its_three_js_are_served_and_nothing_else() -> None:
    monitor = WebMonitor("127.0.0.1", 0)
    monitor.start()
    try:
        base = f"http://127.0.0.1:{monitor.port}/"
        page = urllib.request.urlopen(base, timeout=5).read().decode()
        assert 'type="importmap"' in page and "./vendor/three.module.min.js" in page
        assert "cdn" not in page.lower() and "https://" not in page
        three = urllib.request.urlopen(base + "vendor/three.module.min.js", timeout=5)
        assert three.headers["Content-Type"].startswith("text/javascript") and len(three.read()) > 100_000
        for path in ("vendor/.stamp", "vendor/../frame.py", "../server.py", "vendor/x/y.js", "%2e%2e/server.py",
                     "static/app.js"):
            with pytest.raises(urllib.error.HTTPError) as missing:
                urllib.request.urlopen(base + path, timeout=5)
            assert missing.value.code == 404
    finally:
        monitor.close()


def test_a_page_that_connects_later_gets_the_match_as_it_is_now(running_server: Callable[..., Any]) -> None:
    """The first frame a page gets is this moment's, not the last one an earlier page saw
    (issue 30: a page got sim time 38.64 first, then 49.38)."""
    with running_server(sync=False, realtime=True, web_port=0) as server:
        url = f"ws://127.0.0.1:{server.web_monitor.port}/ws"

        def first_frame_time(page: Any) -> float:
            while True:
                message = json.loads(page.recv(timeout=10))
                if message.get("kind") == "frame":
                    return float(message["time"])

        with connect(url, open_timeout=5) as early:
            first_frame_time(early)
        left_at = server.loop.engine.time
        assert _until(lambda: server.loop.engine.time > left_at + 1.0)  # the match goes on unwatched
        with connect(url, open_timeout=5) as late:
            arrived_at = server.loop.engine.time
            assert first_frame_time(late) >= arrived_at - 0.05
