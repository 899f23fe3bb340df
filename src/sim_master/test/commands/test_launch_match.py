"""`soccersim launch launch/match.launch.xml`: server plus two demo teams as separate
processes play 20 s of sim time; the launch exits 0 and leaves no process behind."""
from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

import psutil

LAUNCH = Path(__file__).resolve().parents[4] / "launch" / "match.launch.xml"


def test_match_launch_runs_20_seconds_and_stops_every_child() -> None:
    tag = uuid.uuid4().hex[:6]
    left, right = f"L{tag}", f"R{tag}"
    exe = shutil.which("soccersim")
    assert exe and LAUNCH.exists()
    result = subprocess.run(
        [exe, "launch", str(LAUNCH), f"left:={left}", f"right:={right}", "players:=3", "cycles:=1000",
         "simspark_port:=0", "rcsssmj_port:=0", "simspark_monitor_port:=-1", "rcsssmj_monitor_port:=-1",
         "web_port:=-1", "extra:=--no-vision-noise --service-port -1"],
        capture_output=True, text=True, timeout=240, env=dict(os.environ))
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert "soccersim: stopped after 1000 cycles" in output  # 1000 x 0.02 s = 20 s of sim time
    assert f"{left} #1 plays left" in output and f"{right} #1 plays right" in output  # left:= is the left
    leftovers = [p for p in psutil.process_iter(["cmdline"]) if any(tag in a for a in (p.info["cmdline"] or []))]
    assert leftovers == [], [p.info["cmdline"] for p in leftovers]
