"""The browser monitor in headless Chromium (Debian's, started here): the page connects,
score and play mode follow the referee, and a screenshot shows 22 robots and the ball."""
from __future__ import annotations

import base64
import importlib.util
import io
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np
from PIL import Image
from websockets.sync.client import connect

from sim_master.demo.brain import PusherBrain
from soccer_referee.commands import KickOff, SetScore

_spec = importlib.util.spec_from_file_location(
    "server_fixture", Path(__file__).parents[1] / "master" / "server_fixture.py")
fixture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixture)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


class Browser:
    def __init__(self, url: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="soccersim-chromium-")
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--disable-quic", "--no-first-run",
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


def test_page_follows_the_match_and_shows_22_robots(tmp_path: Path) -> None:
    with fixture.running_server(sync=False, realtime=True, web_port=0) as server:
        field = server.engine.field

        def add_teams() -> None:
            for team, side in (("Lions", "left"), ("Tigers", "right")):
                for unum in range(1, 12):
                    server.add_local_player(team, unum, "pusher", PusherBrain(side, unum, field.length, field.width))

        server.calls.call(add_teams)
        browser = Browser(server.web_monitor.url)
        try:
            assert browser.wait_text("status", "live") == "live"
            assert browser.wait_text("team-left", "Lions") == "Lions"
            assert browser.wait_text("play-mode", "BeforeKickOff") == "BeforeKickOff"
            server.calls.call(lambda: server.referee.command(SetScore(1, 0)))
            assert browser.wait_text("score-left", "1") == "1"
            # The picture before kick-off: robots at home are apart, so each is one disc (after
            # kick-off they run to the ball and may touch, however loaded the machine is).
            server.calls.call(server.pause)
            cycle = server.engine.cycle  # frames go out every 2nd cycle: wait for the last one drawn
            last = round((cycle - cycle % 2) * server.engine.cycle_dt, 2)
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and browser.value("document.body.dataset.time") != f"{last:g}":
                pass
            assert browser.value("document.body.dataset.time") == f"{last:g}"
            shot = browser.screenshot()
            Image.fromarray(shot.astype(np.uint8)).save(tmp_path / "browser.png")
            server.calls.call(server.play)
            server.calls.call(lambda: server.referee.command(KickOff("left")))
            mode = browser.wait_text("play-mode", "KickOff_Left")
            assert mode in ("KickOff_Left", "PlayOn"), mode
        finally:
            browser.close()
    field_area = shot[60:, :, :]
    blue = (field_area[..., 2] > 200) & (field_area[..., 0] < 60) & (field_area[..., 1] < 120)
    red = (field_area[..., 0] > 200) & (field_area[..., 1] < 60) & (field_area[..., 2] < 60)
    ball = (
        (field_area[..., 0] > 240) & (field_area[..., 1] > 140) & (field_area[..., 1] < 180) & (field_area[..., 2] < 30)
    )
    assert blobs(blue) == 11 and blobs(red) == 11
    assert ball.sum() > 10
