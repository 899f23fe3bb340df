"""Distributed mode across real hosts: two network namespaces joined by a veth pair (made
here, removed after); redis, the master and node A in one, node B in the other; DDS
discovery over the veth (SUBNET range, UDP only: no shared memory between "hosts")."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim_distributed import netns

CONFIG = Path(__file__).resolve().parents[3] / "worlds" / "distributed_example.json"
STEPS = 500


@pytest.fixture
def two_hosts():
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.fail("network namespaces need root and iproute2 (make setup installs it)")
    with netns.two_hosts() as pair:
        yield pair.ns_a, pair.ns_b, pair.ip_a, pair.ip_b


def test_lockstep_across_two_namespaces(two_hosts, tmp_path: Path) -> None:
    ns_a, ns_b, ip_a, _ = two_hosts
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE="SUBNET", FASTDDS_BUILTIN_TRANSPORTS="UDPv4")
    redis_url = f"redis://{ip_a}:6379/0"
    report = tmp_path / "report.json"

    def in_ns(ns: str, *cmd: str) -> subprocess.Popen[str]:
        return subprocess.Popen(["ip", "netns", "exec", ns, *cmd], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    procs = [in_ns(ns_a, shutil.which("redis-server") or "redis-server", "--bind", ip_a, "--port", "6379",
                   "--save", "", "--appendonly", "no", "--protected-mode", "no")]
    try:
        time.sleep(0.5)
        master = in_ns(ns_a, sys.executable, "-m", "sim_distributed.master", "--config", str(CONFIG),
                       "--steps", str(STEPS), "--redis", redis_url, "--run", "netns", "--fresh",
                       "--report", str(report), "--step-timeout", "3")
        procs += [
            master,
            in_ns(ns_a, sys.executable, "-m", "sim_distributed.sim_node", "--id", "A", "--redis", redis_url),
            in_ns(ns_b, sys.executable, "-m", "sim_distributed.sim_node", "--id", "B", "--redis", redis_url),
        ]
        out, _ = master.communicate(timeout=180)
        assert master.returncode == 0, out[-3000:]
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    r = json.loads(report.read_text())
    assert r["step"] == STEPS
    for step in ("100", "200", "300", "400"):
        assert r["hashes"][step]["A"] == r["hashes"][step]["B"] == r["master_hashes"][step]
