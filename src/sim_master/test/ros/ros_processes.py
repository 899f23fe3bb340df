"""Server processes for the ROS tests: started by command name, each printing into a log
file of its own (shown when the test fails), stopped at the end; and a wait for a log line."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def processes(logs: Path, *commands: list[str]) -> Iterator[list[subprocess.Popen[str]]]:
    """The commands running, each printing to logs/<name>.log (shown when the test fails)."""
    procs = []
    for c in commands:
        out = (logs / f"{c[0]}.log").open("w")
        procs.append(subprocess.Popen([shutil.which(c[0]) or c[0], *c[1:]], stdout=out, stderr=subprocess.STDOUT,
                                      text=True, env=dict(os.environ)))
    try:
        yield procs
    except BaseException:
        for c in commands:
            print(f"--- {c[0]}", (logs / f"{c[0]}.log").read_text(errors="replace")[-3000:])
        raise
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)


def line(log: Path, pattern: str, timeout: float = 60.0) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = re.search(pattern, log.read_text(errors="replace"))
        if match:
            return match
        time.sleep(0.05)
    raise AssertionError(f"{log.name} never printed {pattern!r}")


