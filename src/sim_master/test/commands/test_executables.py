"""Every executable: `--help` prints its own usage and starts nothing; SIGINT and SIGTERM stop
it, also when it was started in the background (a shell starts background jobs with SIGINT
ignored, and Python then keeps it ignored unless the program sets its own handler)."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

QUIET = ["--simspark-monitor-port", "-1", "--rcsssmj-monitor-port", "-1", "--service-port", "-1",
         "--web-port", "-1", "--draw-port", "-1"]


@pytest.mark.parametrize("command, own_usage", [
    (["simulation_node", "--help"], "usage: simulation_node"),
    (["referee_node", "--help"], "usage: referee_node"),
    (["bridge_node", "-h"], "usage: bridge_node"),
    (["soccersim", "server", "--help"], "usage: soccersim server"),
])
def test_help_prints_its_own_usage_and_starts_nothing(command: list[str], own_usage: str) -> None:
    started = time.monotonic()
    result = subprocess.run([shutil.which(command[0]) or command[0], *command[1:]], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(own_usage), result.stdout[:300]
    assert "agents:" not in result.stdout + result.stderr  # no port was opened
    assert time.monotonic() - started < 30


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as `command &` in a non-interactive shell


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("name, args, ready", [
    ("referee_node", [], "judging"),
    ("bridge_node", ["--ros-args", "-p", "simspark_port:=0", "-p", "rcsssmj_port:=0"], "rcsssmj agents"),
    ("simulation_node", ["--sync", *QUIET], "mode: sync"),
    ("soccersim", ["server", "--simspark-port", "0", "--rcsssmj-port", "0", *QUIET], "mode: "),
])
def test_a_signal_stops_it_even_started_in_the_background(name: str, args: list[str], ready: str,
                                                          sig: signal.Signals, tmp_path: Path,
                                                          port_picker: Callable[[], int]) -> None:
    log = tmp_path / f"{name}.log"
    with log.open("w") as out:
        proc = subprocess.Popen([shutil.which(name) or name, *args], stdout=out, stderr=subprocess.STDOUT,
                                env=dict(os.environ), preexec_fn=_ignore_sigint)
    try:
        deadline = time.monotonic() + 60
        while ready not in log.read_text(errors="replace"):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text(errors="replace")[-2000:]
            time.sleep(0.05)
        proc.send_signal(sig)
        proc.wait(timeout=15)
        assert proc.returncode == 0, (proc.returncode, log.read_text(errors="replace")[-2000:])
        assert "Traceback" not in log.read_text(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
