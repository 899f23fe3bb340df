"""Two "hosts" on one machine: network namespaces joined by a veth pair.

Made for tests and benchmarks of distributed mode across a real network path (no
loopback, no shared memory between the two sides). Needs root and iproute2; everything
it creates is removed on exit, processes left inside are killed."""
from __future__ import annotations

import os
import signal
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HostPair:
    ns_a: str
    ns_b: str
    ip_a: str
    ip_b: str

    def command(self, ns: str, *cmd: str) -> list[str]:
        """`cmd` run inside namespace `ns`."""
        return ["ip", "netns", "exec", ns, *cmd]


def _sh(*cmd: str) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {done.stderr.strip()}")


@contextmanager
def two_hosts() -> Iterator[HostPair]:
    if os.geteuid() != 0:
        raise PermissionError("network namespaces need root")
    tag = uuid.uuid4().hex[:6]
    a, b = f"ssa{tag}", f"ssb{tag}"
    octet = 10 + int(tag[:2], 16) % 200
    pair = HostPair(a, b, f"10.{octet}.0.1", f"10.{octet}.0.2")
    try:
        _sh("ip", "netns", "add", a)
        _sh("ip", "netns", "add", b)
        _sh("ip", "link", "add", f"va{tag}", "type", "veth", "peer", "name", f"vb{tag}")
        _sh("ip", "link", "set", f"va{tag}", "netns", a)
        _sh("ip", "link", "set", f"vb{tag}", "netns", b)
        for ns, dev, ip in ((a, f"va{tag}", pair.ip_a), (b, f"vb{tag}", pair.ip_b)):
            _sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", dev)
            _sh("ip", "-n", ns, "link", "set", dev, "up")
            _sh("ip", "-n", ns, "link", "set", "lo", "up")
        yield pair
    finally:
        for ns in (a, b):
            pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)  # the veth pair goes with it
