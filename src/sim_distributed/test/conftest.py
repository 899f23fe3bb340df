"""Processes of distributed runs for the tests: started in their own sessions, all stopped
(SIGTERM, then SIGKILL) when the test ends."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

Launch = Callable[..., subprocess.Popen[str]]


@pytest.fixture
def launch() -> Iterator[Launch]:
    procs: list[subprocess.Popen[str]] = []

    def start(module: str, *args: str, log: Path | None = None) -> subprocess.Popen[str]:
        """`log`: its output goes to that file (a process whose output the test never reads
        must not write into a pipe: once the pipe's 64 KiB are full it blocks, and a node
        that blocks stalls the whole lockstep)."""
        out: Any = subprocess.PIPE if log is None else log.open("w")
        proc = subprocess.Popen([sys.executable, "-m", module, *args], stdout=out,
                                stderr=subprocess.STDOUT, text=True, env=dict(os.environ), start_new_session=True)
        if log is not None:
            out.close()  # the child has its own
        procs.append(proc)
        return proc

    yield start
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
