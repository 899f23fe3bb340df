"""Barrier overhead of distributed mode: wall time per step with no physics (nodes answer
without simulating), 1, 2 and 4 nodes on loopback. One JSON object per line:
{"nodes": 4, "where": "loopback", "barrier_ms": ...}. Target (issue): < 1 ms with 4 nodes.
Needs redis-server on PATH (started here on a free port)."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measure(n_nodes: int, steps: int, redis_url: str) -> dict[str, object]:
    ids = [chr(ord("A") + i) for i in range(n_nodes)]
    config = {"world": "simspark_field", "assets": [
        {"name": f"p{i}", "model": "pusher", "owner": node_id, "pose": [-10 + 3 * i, 5, 0]}
        for i, node_id in enumerate(ids)]}
    tmp = tempfile.mkdtemp(prefix="bench-dist-")
    path, report = os.path.join(tmp, "config.json"), os.path.join(tmp, "report.json")
    with open(path, "w") as f:
        json.dump(config, f)
    run = f"bench{n_nodes}{time.time_ns()}"
    procs = [subprocess.Popen([sys.executable, "-m", "sim_master.distributed.master", "--config", path,
                               "--steps", str(steps), "--redis", redis_url, "--run", run, "--fresh",
                               "--report", report], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    procs += [subprocess.Popen([sys.executable, "-m", "sim_master.distributed.sim_node", "--id", node_id,
                                "--redis", redis_url, "--run", run, "--no-physics"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for node_id in ids]
    try:
        procs[0].wait(timeout=600)
    finally:
        for p in procs[1:]:
            p.send_signal(signal.SIGTERM)
        for p in procs[1:]:
            p.wait(10)
    with open(report) as f:
        r = json.load(f)
    return {"nodes": n_nodes, "where": "loopback", "steps": steps,
            "barrier_ms": round(1000 * r["stepping_s"] / max(1, r["step"] - r["first_step"]), 3),
            "note": "per step: StepStart, node answers, merge, Redis write, global snapshot out"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, nargs="*", default=[1, 2, 4])
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args()
    port = free_port()
    redis = subprocess.Popen([shutil.which("redis-server") or "redis-server", "--port", str(port), "--save", "",
                              "--appendonly", "no"], stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        for n in args.nodes:
            print(json.dumps(measure(n, args.steps, f"redis://127.0.0.1:{port}/0")), flush=True)
    finally:
        redis.terminate()
        redis.wait(10)


if __name__ == "__main__":
    main()
