"""Barrier overhead of distributed mode: wall time per step with no physics (the nodes
answer without simulating), with 1, 2 and 4 nodes, on loopback and across two network
namespaces joined by a veth pair (redis, the master and the first half of the nodes on one
"host", the rest on the other; UDP only). One JSON object per line, e.g.
{"nodes": 4, "where": "loopback", "barrier_ms": 0.9}. Target (issue #6): < 1 ms per step
on loopback with 4 nodes. Needs redis-server on PATH; the namespaces need root."""
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Launch = Callable[[int, list[str]], subprocess.Popen[bytes]]  # host index (0 or 1), command


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measure(n_nodes: int, steps: int, redis_url: str, launch: Launch, where: str) -> dict[str, object]:
    ids = [chr(ord("A") + i) for i in range(n_nodes)]
    config = {"world": "simspark_field", "assets": [
        {"name": f"p{i}", "model": "pusher", "owner": node_id, "pose": [-10 + 3 * i, 5, 0]}
        for i, node_id in enumerate(ids)]}
    tmp = tempfile.mkdtemp(prefix="bench-dist-")
    path, report = os.path.join(tmp, "config.json"), os.path.join(tmp, "report.json")
    with open(path, "w") as f:
        json.dump(config, f)
    run = f"bench{n_nodes}{time.time_ns()}"
    procs = [launch(0, [sys.executable, "-m", "sim_distributed.master", "--config", path,
                        "--steps", str(steps), "--redis", redis_url, "--run", run, "--fresh",
                        "--report", report, "--step-timeout", "5"])]
    procs += [launch(0 if i < (n_nodes + 1) // 2 else 1,
                     [sys.executable, "-m", "sim_distributed.sim_node", "--id", node_id,
                      "--redis", redis_url, "--run", run, "--no-physics"])
              for i, node_id in enumerate(ids)]
    try:
        procs[0].wait(timeout=600)
    finally:
        for p in procs[1:]:
            p.send_signal(signal.SIGTERM)
        for p in procs[1:]:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    with open(report) as f:
        r = json.load(f)
    per_step = r["stepping_s"] / max(1, r["step"] - r["first_step"])
    return {"nodes": n_nodes, "where": where, "steps": steps, "barrier_ms": round(1000 * per_step, 3),
            "steps_per_s": round(1 / per_step), "ratio_to_target_1ms": round(1000 * per_step / 1.0, 2)}


@contextmanager
def loopback() -> Iterator[tuple[str, Launch]]:
    port = free_port()
    redis = subprocess.Popen([shutil.which("redis-server") or "redis-server", "--port", str(port), "--save", "",
                              "--appendonly", "no"], stdout=subprocess.DEVNULL)
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST")

    def launch(_host: int, cmd: list[str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    try:
        time.sleep(0.5)
        yield f"redis://127.0.0.1:{port}/0", launch
    finally:
        redis.terminate()
        redis.wait(10)


@contextmanager
def namespaces() -> Iterator[tuple[str, Launch]]:
    from sim_distributed import netns

    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE="SUBNET", FASTDDS_BUILTIN_TRANSPORTS="UDPv4")
    with netns.two_hosts() as pair:
        spaces = (pair.ns_a, pair.ns_b)

        def launch(host: int, cmd: list[str]) -> subprocess.Popen[bytes]:
            return subprocess.Popen(pair.command(spaces[host], *cmd), env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)

        redis = launch(0, [shutil.which("redis-server") or "redis-server", "--bind", pair.ip_a, "--port", "6379",
                           "--save", "", "--appendonly", "no", "--protected-mode", "no"])
        try:
            time.sleep(0.5)
            yield f"redis://{pair.ip_a}:6379/0", launch
        finally:
            redis.terminate()
            redis.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, nargs="*", default=[1, 2, 4])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--where", nargs="*", default=["loopback", "netns"], choices=["loopback", "netns"])
    args = parser.parse_args()
    for where in args.where:
        if where == "netns" and os.geteuid() != 0:
            print(json.dumps({"where": "netns", "skipped": "network namespaces need root"}), flush=True)
            continue
        with (loopback() if where == "loopback" else namespaces()) as (redis_url, launch):
            for n in args.nodes:
                print(json.dumps(measure(n, args.steps, redis_url, launch, where)), flush=True)


if __name__ == "__main__":
    main()
