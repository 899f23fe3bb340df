"""A distributed run's processes for the tests: the master and its nodes on loopback, and
waiting for what they print."""
from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

Launch = Callable[..., subprocess.Popen[str]]

CONFIG = Path(__file__).resolve().parents[3] / "worlds" / "distributed_example.json"
STEPS = 500


def master(launch: Launch, redis: str, run: str, report: Path, *extra: str) -> subprocess.Popen[str]:
    return launch("sim_distributed.master", "--config", str(CONFIG), "--steps", str(STEPS),
                  "--redis", redis, "--run", run, "--report", str(report), "--trace", *extra)


def node(launch: Launch, redis: str, run: str, node_id: str, engine: str = "mujoco") -> subprocess.Popen[str]:
    return launch("sim_distributed.sim_node", "--id", node_id, "--redis", redis, "--run", run,
                  "--engine", engine)


def wait_for_line(proc: subprocess.Popen[str], wanted: Callable[[str], bool], what: str,
                  timeout: float = 60.0) -> str:
    """The first line of proc's merged output that is wanted (reading it line by line)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if wanted(line):
            return line
    raise AssertionError(f"no output line: {what}")


def wait_for_step(proc: subprocess.Popen[str], step: int, timeout: float = 60.0) -> None:
    wait_for_line(proc, lambda line: line.startswith("master: step ") and int(line.split()[-1]) >= step,
                  f"the master at step {step}", timeout)


def finish(proc: subprocess.Popen[str], timeout: float = 90.0) -> None:
    out, _ = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, out[-2000:]
