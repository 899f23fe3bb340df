"""Processes of distributed runs for the tests: started in their own sessions, all stopped
(SIGTERM, then SIGKILL) when the test ends."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest

Launch = Callable[..., subprocess.Popen[str]]


@pytest.fixture
def launch() -> Iterator[Launch]:
    procs: list[subprocess.Popen[str]] = []

    def start(module: str, *args: str) -> subprocess.Popen[str]:
        proc = subprocess.Popen([sys.executable, "-m", module, *args], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, env=dict(os.environ), start_new_session=True)
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
