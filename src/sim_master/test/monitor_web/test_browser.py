"""The browser monitor in headless Chromium (Debian's, started here; WebGL through
SwiftShader): the page connects, score and play mode follow the referee, the 3D view and
the 2D view each show 22 robots and the ball, cameras change the picture, a referee button
acts on the match, and a replay is paused, stepped, resumed and sought to its goal."""
from __future__ import annotations

import base64
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image
from sim_tools.demo.brain import PusherBrain
from websockets.sync.client import connect

from soccer_referee.commands import KickOff, SetPlayMode, SetScore

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


class Browser:
    def __init__(self, url: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="soccersim-chromium-")
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
             "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={self.profile}", "--remote-debugging-port=0", "--window-size=1240,960", url],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
        port = None
        deadline = time.monotonic() + 30
        assert self.proc.stderr is not None
        while time.monotonic() < deadline and port is None:
            line = self.proc.stderr.readline()
            match = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
            if match:
                port = int(match.group(1))
        assert port, "chromium did not start"
        pages = []
        while time.monotonic() < deadline and not pages:
            pages = [t for t in json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json"))
                     if t.get("type") == "page"]
            time.sleep(0.1)
        self.ws = connect(pages[0]["webSocketDebuggerUrl"], max_size=None)
        self._id = 0

    def call(self, method: str, **params: object) -> dict:
        self._id += 1
        self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == self._id:
                return reply.get("result", {})

    def value(self, expression: str) -> str:
        result = self.call("Runtime.evaluate", expression=expression)
        return str(result["result"].get("value", ""))

    def text(self, element_id: str) -> str:
        result = self.call("Runtime.evaluate", expression=f"document.getElementById('{element_id}').textContent")
        return result["result"].get("value", "")

    def wait_text(self, element_id: str, expected: str, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        value = ""
        while time.monotonic() < deadline:
            value = self.text(element_id)
            if value == expected:
                return value
            time.sleep(0.1)
        return value

    def screenshot(self) -> np.ndarray:
        data = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        return np.asarray(Image.open(io.BytesIO(data)).convert("RGB")).astype(int)

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(10)
            shutil.rmtree(self.profile, ignore_errors=True)


def blobs(mask: np.ndarray, cell: int = 4) -> int:
    """Connected components (4-neighbour) of a boolean image, on 4x4 cells so that a disc
    cut by its number and heading line still counts once."""
    h, w = mask.shape[0] // cell * cell, mask.shape[1] // cell * cell
    mask = mask[:h, :w].reshape(h // cell, cell, w // cell, cell).any(axis=(1, 3))
    seen = np.zeros_like(mask, dtype=bool)
    count = 0
    for y, x in zip(*np.nonzero(mask)):
        if seen[y, x]:
            continue
        count += 1
        stack = [(y, x)]
        seen[y, x] = True
        while stack:
            cy, cx = stack.pop()
            for ny, nx in ((cy + 1, cx), (cy - 1, cx), (cy, cx + 1), (cy, cx - 1)):
                if 0 <= ny < mask.shape[0] and 0 <= nx < mask.shape[1] and mask[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack.append((ny, nx))
    return count


def team_blobs(shot: np.ndarray) -> tuple[int, int, int]:
    """Blue blobs, red blobs and orange (ball) pixels on the stage, legend box excluded."""
    stage = shot[75:-60, :, :]
    r, g, b = stage[..., 0], stage[..., 1], stage[..., 2]
    blue = (b > 120) & (b > r + 60) & (b > g + 40)
    red = (r > 120) & (r > g + 60) & (r > b + 60) & (g < 110)  # not the orange ball
    ball = (r > 220) & (g > 130) & (g < 190) & (b < 40)
    return blobs(blue), blobs(red), int(ball.sum())


def wait_value(browser: Browser, expression: str, expected: str, timeout: float = 15.0) -> str:
    deadline = time.monotonic() + timeout
    value = browser.value(expression)
    while value != expected and time.monotonic() < deadline:
        time.sleep(0.05)
        value = browser.value(expression)
    return value


def test_page_follows_the_match_in_3d_and_2d(running_server: Callable[..., Any], tmp_path: Path) -> None:
    with running_server(sync=False, realtime=True, web_port=0) as server:
        field = server.loop.engine.field

        def add_teams() -> None:
            for team, side in (("Lions", "left"), ("Tigers", "right")):
                for unum in range(1, 12):
                    model = f"nao{unum % 5}" if side == "left" else "pusher"  # link shapes of every Nao type
                    server.loop.add_local_player(team, unum, model, PusherBrain(side, unum, field.length, field.width))

        server.loop.calls.call(add_teams)
        browser = Browser(server.web_monitor.url)
        try:
            assert browser.wait_text("status", "live") == "live"
            assert browser.wait_text("team-left", "Lions") == "Lions"
            assert browser.wait_text("play-mode", "BeforeKickOff") == "BeforeKickOff"
            assert wait_value(browser, "document.body.dataset.commands", "true") == "true"  # loopback
            server.loop.calls.call(lambda: server.loop.referee.command(SetScore(1, 0)))
            assert browser.wait_text("score-left", "1") == "1"
            # Pictures before kick-off: robots at home are apart, so each is one blob.
            server.loop.calls.call(server.loop.control.pause)
            # read on the loop once paused (the cycle under way when the pause came completes)
            cycle = server.loop.calls.call(lambda: server.loop.engine.cycle)  # a pause sends the cycle it holds at
            last = f"{round(cycle * server.loop.engine.cycle_dt, 2):g}"
            assert wait_value(browser, "document.body.dataset.time", last) == last
            overview = browser.screenshot()
            browser.value("window.soccersim.camera('goal-left')")
            behind_goal = browser.screenshot()
            browser.value("window.soccersim.camera('overview')")
            browser.value("document.getElementById('view-toggle').click()")
            assert browser.value("document.body.dataset.view") == "2d"
            flat = browser.screenshot()
            for name, shot in (("overview", overview), ("behind_goal", behind_goal), ("2d", flat)):
                Image.fromarray(shot.astype(np.uint8)).save(tmp_path / f"{name}.png")
            server.loop.calls.call(server.loop.control.play)
            # A referee button: kick-off for the left team, as a monitor's command would.
            browser.value("document.querySelector('#referee button[data-side=left]').click()")
            mode = browser.wait_text("play-mode", "KickOff_Left")
            assert mode in ("KickOff_Left", "PlayOn"), mode
        finally:
            browser.close()
    assert team_blobs(overview)[:2] == (11, 11)
    assert team_blobs(overview)[2] > 20  # the ball's marker
    assert np.abs(behind_goal - overview).mean() > 10  # another camera, another picture
    blue, red, ball = team_blobs(flat)
    assert (blue, red) == (11, 11) and ball > 10


def _log_with_a_goal(running_server: Callable[..., Any], path: Path) -> None:
    """A short match of two pusher teams in which Lions (left, blue) score."""
    with running_server(sync=False, realtime=False, log_path=str(path)) as server:
        field = server.loop.engine.field

        def setup() -> None:
            for team, side in (("Lions", "left"), ("Tigers", "right")):
                for unum in (1, 2):
                    brain = PusherBrain(side, unum, field.length, field.width)
                    server.loop.add_local_player(team, unum, "pusher", brain)

        server.loop.calls.call(setup)
        deadline = time.monotonic() + 30
        while server.loop.engine.time < 1.0 and time.monotonic() < deadline:  # game time stands before kick-off
            time.sleep(0.01)
        server.loop.calls.call(lambda: server.loop.referee.command(KickOff("left")))
        server.loop.calls.call(lambda: server.loop.referee.command(SetPlayMode("PlayOn")))
        # 0.3 m from the goal line, rolling in: no defender has time to be in the way (from
        # 13.5 m, in a flat-out match under load, Tigers' keeper sometimes was)
        x = field.half_length - 0.3
        server.loop.calls.call(lambda: server.loop.engine.set_ball((x, 0.2, field.ball_radius), (3.0, 0.0, 0.0)))
        deadline = time.monotonic() + 30
        while server.loop.referee.state.score_left == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        goal_at = server.loop.engine.time
        while server.loop.engine.time < goal_at + 1.0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.loop.referee.state.score_left == 1


def test_replay_in_the_page_pauses_steps_resumes_and_seeks_to_the_goal(running_server: Callable[..., Any],
                                                                      tmp_path: Path, free_port: int) -> None:
    log = tmp_path / "goal.mcap"
    _log_with_a_goal(running_server, log)
    port = free_port
    proc = subprocess.Popen([shutil.which("soccersim") or "soccersim", "replay", str(log), "--speed", "0.5",
                             "--paused", "--web-port", str(port), "--simspark-monitor-port", "-1",
                             "--rcsssmj-monitor-port", "-1", "--no-ros"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ),
                            start_new_session=True)
    browser = None
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        while line and not line.startswith("browser monitor:"):  # log lines come first
            line = proc.stdout.readline()
        assert line.startswith("browser monitor:"), line
        browser = Browser(f"http://127.0.0.1:{port}/")
        assert wait_value(browser, "document.body.dataset.mode", "replay") == "replay"
        # --paused: the page opens on the log's first cycle, and nothing moves until play
        assert wait_value(browser, "document.body.dataset.paused", "true") == "true"
        assert browser.text("status").startswith("replay ")
        deadline = time.monotonic() + 15
        while not browser.value("document.body.dataset.time || ''") and time.monotonic() < deadline:
            time.sleep(0.05)  # the first cycle's frame is on its way
        opened = browser.value("document.body.dataset.time")
        assert opened
        blue, red, _ = team_blobs(browser.screenshot())  # the first frame knows the teams' sides
        assert blue >= 2 and red >= 2, (blue, red)
        time.sleep(0.3)
        assert browser.value("document.body.dataset.time") == opened
        browser.value("document.getElementById('play-pause').click()")
        assert wait_value(browser, "document.body.dataset.paused", "false") == "false"
        # Pause: the picture stops; a step shows exactly the next cycle; play moves on again.
        browser.value("document.getElementById('play-pause').click()")
        assert wait_value(browser, "document.body.dataset.paused", "true") == "true"
        held = float(browser.value("document.body.dataset.time"))  # frames come before the "paused" they precede
        time.sleep(0.5)
        assert float(browser.value("document.body.dataset.time")) == held
        browser.value("document.getElementById('step').click()")
        stepped = f"{round(held + 0.02, 3):g}"
        assert wait_value(browser, "document.body.dataset.time", stepped) == stepped
        time.sleep(0.3)
        assert browser.value("document.body.dataset.time") == stepped
        browser.value("document.getElementById('play-pause').click()")
        deadline = time.monotonic() + 10
        while float(browser.value("document.body.dataset.time")) < held + 0.2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert float(browser.value("document.body.dataset.time")) >= held + 0.2
        # The goal in the timeline: jumping there shows the new score and the scorers' colour.
        browser.value("document.getElementById('play-pause').click()")
        assert wait_value(browser, "document.body.dataset.paused", "true") == "true"
        assert wait_value(browser, "document.querySelectorAll('#events button[data-kind=goal]').length", "1") == "1"
        label = float(browser.value("document.querySelector('#events button[data-kind=goal]').dataset.gameTime"))
        browser.value("document.querySelector('#events button[data-kind=goal]').click()")
        assert browser.wait_text("score-left", "1") == "1"
        assert abs(float(browser.text("time")) - label) <= 0.11  # the button says the header's game time
        assert browser.text("replay-time") == browser.text("time") + " s"  # one clock on the page
        assert browser.text("team-left") == "Lions"
        shot = browser.screenshot()
        Image.fromarray(shot.astype(np.uint8)).save(tmp_path / "replay_goal.png")
        blue, red, _ = team_blobs(shot)
        assert blue >= 2 and red >= 2
    finally:
        if browser is not None:
            browser.close()
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def test_the_page_shows_say_messages_and_who_heard_them(running_server: Callable[..., Any]) -> None:
    """An agent's say message appears on the page with its team and number and the numbers
    of the players that heard it (issue 30: say messages appeared nowhere); as text, never
    markup."""
    from sim_bridge.clients import SimSparkAgent

    with running_server(sync=True, web_port=0, sync_timeout=5.0) as server:
        port = server.agent_servers["simspark"].port
        speaker, listener = (SimSparkAgent("127.0.0.1", port, "Alpha", unum) for unum in (1, 2))
        for agent in (speaker, listener):
            agent.join()
        browser = Browser(server.web_monitor.url)
        try:
            assert browser.wait_text("status", "live") == "live"
            deadline = time.monotonic() + 30
            said = ""
            while time.monotonic() < deadline and "heard by #2" not in said:
                speaker.act(extra="(say hello<b>)")
                listener.act()
                said = browser.text("said")
            assert "Alpha #1: hello<b>" in said and "heard by #2" in said, said
            assert browser.value("document.querySelector('#said b') === null") == "True"
        finally:
            browser.close()
            speaker.close()
            listener.close()


def _draw_datagram(set_name: str) -> bytes:
    """A thick magenta line across the field and a magenta sphere, in RoboViz's protocol (6
    ASCII characters a number), then the set's buffer swap."""
    def num(v: float) -> bytes:
        return (b"%6f" % v)[:6]
    rgb = bytes([255, 0, 255])
    line = b"\x01\x01" + b"".join(num(v) for v in (-8, -6, 0.05, 8, 6, 0.05, 6)) + rgb + set_name.encode() + b"\0"
    sphere = b"\x01\x03" + b"".join(num(v) for v in (0, 4, 0.5, 0.6)) + rgb + set_name.encode() + b"\0"
    return line + sphere + b"\x00\x00" + set_name.encode() + b"\0"


def magenta(shot: np.ndarray) -> int:
    stage = shot[75:-60, :, :]
    r, g, b = stage[..., 0], stage[..., 1], stage[..., 2]
    return int(((r > 180) & (b > 180) & (g < 90)).sum())


def test_agents_drawings_show_in_3d_and_2d_and_leave_with_their_sets_toggle(
        running_server: Callable[..., Any]) -> None:
    """An agent's drawing sent to the drawing port (RoboViz's UDP protocol) appears in the 3D
    and 2D views, and disappears when its set is switched off on the page (issue 30: nothing
    listened on 32769)."""
    with running_server(sync=False, realtime=True, web_port=0, draw_port=0) as server:
        assert server.drawing is not None
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        browser = Browser(server.web_monitor.url)
        try:
            assert browser.wait_text("status", "live") == "live"
            before = browser.screenshot()
            deadline = time.monotonic() + 20
            shown = "document.querySelector('#drawsets input') !== null"
            while time.monotonic() < deadline and browser.value(shown) != "True":
                udp.sendto(_draw_datagram("7.L.path"), ("127.0.0.1", server.drawing.port.port))
                time.sleep(0.2)
            assert browser.value("document.querySelector('#drawsets input').dataset.set") == "7.L.path"
            in_3d = browser.screenshot()
            browser.value("document.getElementById('view-toggle').click()")
            assert browser.value("document.body.dataset.view") == "2d"
            in_2d = browser.screenshot()
            browser.value("document.querySelector('#drawsets input').click()")  # the set off
            off_2d = browser.screenshot()
            browser.value("document.getElementById('view-toggle').click()")
            off_3d = browser.screenshot()
        finally:
            browser.close()
            udp.close()
    assert magenta(before) == 0
    assert magenta(in_3d) > 400 and magenta(in_2d) > 400, (magenta(in_3d), magenta(in_2d))
    assert magenta(off_2d) == 0 and magenta(off_3d) == 0


def test_the_page_says_when_the_match_is_paused_and_what_was_refused(running_server: Callable[..., Any]) -> None:
    """Pausing (here from the service side) shows on the page at once, and a referee command
    the referee refuses comes back to the page that sent it (issue 30: both were only in the
    server's log)."""
    with running_server(sync=False, realtime=True, web_port=0) as server:
        browser = Browser(server.web_monitor.url)
        try:
            assert browser.wait_text("status", "live") == "live"
            server.loop.calls.call(server.loop.control.pause)
            assert browser.wait_text("status", "live, paused") == "live, paused"
            assert browser.value("document.body.dataset.paused") == "true"
            server.loop.calls.call(server.loop.control.play)
            assert browser.wait_text("status", "live") == "live"
            # no player 7: the referee refuses the move, and this page is told why
            browser.value("window.soccersim.send({cmd: 'move_robot', side: 'left', unum: 7, x: 1, y: 1})")
            deadline = time.monotonic() + 10
            text = ""
            while time.monotonic() < deadline and "refused" not in text:
                text = browser.text("notice")
                time.sleep(0.05)
            assert text.startswith("move_robot refused:"), text
            browser.value("window.soccersim.send({cmd: 'move_ball', x: 1e9, y: 0})")  # refused before the referee
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and "outside" not in text:
                text = browser.text("notice")
                time.sleep(0.05)
            assert "move_ball: x" in text and "outside" in text, text
        finally:
            browser.close()


def test_a_robot_clicked_in_2d_is_selected_and_its_number_readable_in_the_overview(
        running_server: Callable[..., Any], tmp_path: Path) -> None:
    """Click a robot in the 2D view: it is selected (the follow and head cameras are its), and
    in the 3D overview its number is a ringed screen-space label (issue 30: numbers were 0.22 m
    sprites, a few pixels in the overview, and robots could not be clicked)."""
    with running_server(sync=False, realtime=True, web_port=0) as server:
        field = server.loop.engine.field

        def add_teams() -> None:
            for team, side in (("Lions", "left"), ("Tigers", "right")):
                for unum in range(1, 12):
                    server.loop.add_local_player(team, unum, "nao0", PusherBrain(side, unum, field.length, field.width))

        server.loop.calls.call(add_teams)
        browser = Browser(server.web_monitor.url)
        try:
            assert wait_value(browser, "document.body.dataset.robots", "22") == "22"
            server.loop.calls.call(server.loop.control.pause)
            assert browser.wait_text("status", "live, paused") == "live, paused"
            target = next(r for r in json.loads(browser.value("JSON.stringify(window.soccersim.last())"))["robots"]
                          if r["side"] == "left" and r["unum"] == 7)
            browser.value("document.getElementById('view-toggle').click()")
            point = f"window.soccersim.pagePoint({target['x']}, {target['y']})"
            x, y = json.loads(browser.value(f"JSON.stringify({point})"))
            for kind in ("mousePressed", "mouseReleased"):
                browser.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)
            assert wait_value(browser, "document.body.dataset.selected || ''", target["id"]) == target["id"]
            assert browser.value("document.getElementById('player').value") == target["id"]
            browser.value("document.getElementById('view-toggle').click()")
            browser.value("window.soccersim.camera('overview')")
            shot = browser.screenshot()
            Image.fromarray(shot.astype(np.uint8)).save(tmp_path / "selected.png")
        finally:
            browser.close()
    r, g, b = shot[..., 0], shot[..., 1], shot[..., 2]
    ring = (r > 225) & (g > 180) & (g < 235) & (b < 80)
    assert ring.sum() > 150, ring.sum()  # the yellow ring of the selected label
    ys, xs = np.nonzero(ring)
    cy, cx = int(np.median(ys)), int(np.median(xs))
    inside = shot[cy - 12:cy + 13, cx - 12:cx + 13]
    digits = (inside[..., 0] > 220) & (inside[..., 1] > 220) & (inside[..., 2] > 220)
    assert digits.sum() > 25, digits.sum()  # the number, white on the team colour, tens of pixels
