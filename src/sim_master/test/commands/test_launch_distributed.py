"""`soccersim launch launch/distributed.launch.xml` with the swarm: the master and four
SimPy nodes as separate processes reach the last step; the launch exits 0 and leaves no
process behind."""
from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[4]


def test_swarm_launch_reaches_its_last_step_and_stops_every_child(redis_server: str) -> None:
    run = f"launch{uuid.uuid4().hex[:6]}"
    exe = shutil.which("soccersim")
    assert exe
    result = subprocess.run(
        [exe, "launch", str(ROOT / "launch" / "distributed.launch.xml"),
         f"config:={ROOT / 'worlds' / 'swarm_example.json'}", "engine:=simpy", "four_nodes:=true",
         "steps:=150", f"redis_url:={redis_server}", f"run:={run}"],
        capture_output=True, text=True, timeout=240, env=dict(os.environ))
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert "master: 4 nodes, from step 0" in output and "master: step 150" in output
    for node_id in "ABCD":
        assert f"node {node_id} (simpy) owns" in output
    leftovers = [p for p in psutil.process_iter(["cmdline"]) if any(run in a for a in (p.info["cmdline"] or []))]
    assert leftovers == [], [p.info["cmdline"] for p in leftovers]
