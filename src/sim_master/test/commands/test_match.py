"""`soccersim match`: a short match with the demo teams writes a summary, a replay log and
pictures that show the field."""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from sim_master.store.mcap_log import ReplayLogReader


@pytest.mark.parametrize("engine", ["mujoco", "gazebo"])
def test_short_match_outputs(tmp_path: Path, engine: str) -> None:
    out = tmp_path / "out"
    result = subprocess.run([shutil.which("soccersim") or "soccersim", "match", "--duration", "20",
                             "--players", "4", "--out", str(out), "--seed", "3", "--engine", engine,
                             "--left", "demo", "--right", "demo"],
                            capture_output=True, text=True, timeout=240, env=dict(os.environ))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "cycles/s" in result.stdout and "final:" in result.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["play_mode"] == "GameOver" and summary["game_time"] >= 20.0
    assert set(summary["teams"].values()) == {"Lions", "Tigers"}
    assert sum(summary["score"]) == len(summary["goals"]) and summary["cycles_per_s"] > 0
    cycles = list(ReplayLogReader(str(out / "match.mcap")).cycles())
    assert len(cycles) == summary["cycles"]
    players = sorted(n for n in cycles[-1].snapshot.entities if "/p" in n)
    assert players == [f"{team}/p{unum}" for team in ("Lions", "Tigers") for unum in range(1, 5)]
    final = np.asarray(Image.open(out / "final.png").convert("RGB")).astype(int)
    blue = ((final[..., 2] > 200) & (final[..., 0] < 60)).sum()
    red = ((final[..., 0] > 200) & (final[..., 1] < 60) & (final[..., 2] < 60)).sum()
    assert blue > 100 and red > 100  # both teams drawn
    xs = [e.position[0] for c in cycles[-50:] for n, e in c.snapshot.entities.items() if "/p" in n]
    first = [e.position[0] for n, e in cycles[100].snapshot.entities.items() if "/p" in n]
    assert max(abs(a - b) for a, b in zip(xs[-8:], first)) > 0.5  # the pushers drove
    heat = np.asarray(Image.open(out / "heatmap.png").convert("RGB")).astype(int)
    assert heat.shape == final.shape
    key = heat[-80:, -300:]  # the colour scale, bottom right: blue (0) to red (the peak)
    assert ((key[..., 2] > 200) & (key[..., 0] < 60)).any() and ((key[..., 0] > 200) & (key[..., 2] < 60)).any()


def test_the_default_match_is_the_base_teams_naos_walking_to_the_ball(tmp_path: Path) -> None:
    """`soccersim match` with no team named plays the base team (Nao humanoids) on ODE: the
    kick-off takers walk to the ball, nobody lies at the end, the replay holds Naos."""
    out = tmp_path / "out"
    result = subprocess.run([shutil.which("soccersim") or "soccersim", "match", "--duration", "24",
                             "--players", "3", "--out", str(out), "--seed", "5"],
                            capture_output=True, text=True, timeout=300, env=dict(os.environ))
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["play_mode"] == "GameOver"
    cycles = list(ReplayLogReader(str(out / "match.mcap")).cycles())
    first, last = cycles[60].snapshot.entities, cycles[-1].snapshot.entities
    players = sorted(n for n in last if "/p" in n)
    assert len(players) == 6 and all(last[n].model.startswith("nao") for n in players)
    walked = max(math.dist(first[n].position[:2], last[n].position[:2]) for n in players)
    assert walked > 2.0  # 24 s of a kick-off taker walking at 0.35 m/s and more
    upright = [n for n in players if last[n].position[2] > 0.25]
    assert len(upright) >= 5, {n: last[n].position for n in players}


def test_snapshot_of_a_running_server(running_server: Callable[..., Any], tmp_path: Path) -> None:
    from sim_tools.demo.brain import PusherBrain

    with running_server(sync=False, realtime=True, service_port=0) as server:
        server.loop.calls.call(lambda: [server.loop.add_local_player(t, n, "pusher", PusherBrain(s, n))
                                   for t, s in (("Lions", "left"), ("Tigers", "right")) for n in (1, 2, 3)])
        out = tmp_path / "now.png"
        result = subprocess.run([shutil.which("soccersim") or "soccersim", "snapshot", "--out", str(out),
                                 "--service-port", str(server.service_port.port)],
                                capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    assert "(6 robots)" in result.stdout
    picture = np.asarray(Image.open(out).convert("RGB")).astype(int)
    assert ((picture[..., 0] > 200) & (picture[..., 1] < 60) & (picture[..., 2] < 60)).sum() > 50


def test_a_match_can_be_watched_live(tmp_path: Path) -> None:
    """`--web-port 0`: the URL is printed and the page and its frames answer while the match
    runs (--realtime: at its own pace, so there is time to look); --serve takes free ports."""
    import re
    import urllib.request

    proc = subprocess.Popen([shutil.which("soccersim") or "soccersim", "match", "--duration", "30", "--players", "1",
                             "--out", str(tmp_path / "out"), "--realtime", "--web-port", "0", "--serve",
                             "--simspark-port", "0", "--rcsssmj-port", "0", "--service-port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        assert proc.stdout is not None
        url = serving = None
        for _ in range(2):
            line = proc.stdout.readline()
            url = url or (m.group(1) if (m := re.search(r"watch it live at (http://\S+)", line)) else None)
            serving = serving or (line if line.startswith("serving: ") else None)
        assert url is not None and serving is not None, (url, serving)
        assert "simspark agents 3100" not in serving  # a free port, not the fixed one
        with urllib.request.urlopen(url, timeout=20) as page:
            assert page.status == 200 and b"soccersim monitor" in page.read()
    finally:
        proc.terminate()
        proc.wait(30)
