"""What the design's nodes cost when each runs in a process of its own: sync-mode
throughput of N minimal SimSpark agents (bench_sync.py's) with

- composed: `soccersim server` (the three nodes in one process, the default);
- referee_apart: the server with `--referee external` and `referee_node` beside it;
- bridge_apart: the server without agent ports and `bridge_node` beside it (the agents are
  ROS-native players of the simulation through the bridge);
- all_apart: `simulation_node`, `referee_node` and `bridge_node`.

One JSON object per line: layout, agents, cycles_per_s, cpu_ms_per_cycle (all the layout's
processes together) and per process, and the ratio to the composed layout's cycles/s. ROS
runs on a private domain, loopback only."""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sync import agents_worker, free_port

COMMON = ["--sync", "--simspark-monitor-port", "-1", "--rcsssmj-monitor-port", "-1", "--service-port", "-1",
          "--web-port", "-1", "--no-vision-noise"]
LAYOUTS = ("composed", "referee_apart", "bridge_apart", "all_apart")


def _exe(name: str) -> str:
    path = shutil.which(name)
    assert path, f"{name} not found: source install/setup.bash first"
    return path


def start(layout: str, port: int, domain: int) -> dict[str, subprocess.Popen[bytes]]:
    own_ports = ["--simspark-port", str(port), "--rcsssmj-port", "-1"]
    no_ports = ["--simspark-port", "-1", "--rcsssmj-port", "-1"]
    bridge = [_exe("bridge_node"), "--ros-args", "-p", f"simspark_port:={port}", "-p", "rcsssmj_port:=-1"]
    commands = {
        "composed": {"server": [_exe("soccersim"), "server", *COMMON, *own_ports]},
        "referee_apart": {"server": [_exe("soccersim"), "server", *COMMON, *own_ports, "--referee", "external"],
                          "referee": [_exe("referee_node")]},
        "bridge_apart": {"server": [_exe("soccersim"), "server", *COMMON, *no_ports], "bridge": bridge},
        "all_apart": {"server": [_exe("simulation_node"), *COMMON], "referee": [_exe("referee_node")],
                      "bridge": bridge},
    }[layout]
    env = {**os.environ, "ROS_DOMAIN_ID": str(domain)}  # a domain per run: no stale peers of the last one
    logs = Path(tempfile.mkdtemp(prefix=f"bench-nodes-{layout}-"))
    return {name: subprocess.Popen(cmd, stdout=(logs / f"{name}.log").open("w"), stderr=subprocess.STDOUT, env=env)
            for name, cmd in commands.items()}


def wait_listening(port: int, timeout: float = 60.0) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}")


def run(layout: str, n_agents: int, seconds: float, domain: int) -> dict[str, object]:
    port = free_port()
    procs = start(layout, port, domain)
    try:
        wait_listening(port)
        time.sleep(2.0)  # the other nodes discover each other
        window = mp.Array("d", [0.0, 0.0])
        joined: mp.Queue = mp.Queue()
        counts: mp.Queue = mp.Queue()
        worker = mp.Process(target=agents_worker, args=(port, 1, n_agents, window, joined, counts))
        worker.start()
        for _ in range(n_agents):
            joined.get(timeout=120)
        time.sleep(1.0)
        ps = {name: psutil.Process(p.pid) for name, p in procs.items()}
        cpu0 = {name: sum(p.cpu_times()[:2]) for name, p in ps.items()}
        window[0] = time.monotonic()
        window[1] = window[0] + seconds
        time.sleep(seconds)
        cpu1 = {name: sum(p.cpu_times()[:2]) for name, p in ps.items()}
        cycles = min(counts.get(timeout=60))
        worker.join(10)
    finally:
        for p in procs.values():
            p.terminate()
        for p in procs.values():
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
    per = {name: round(1000 * (cpu1[name] - cpu0[name]) / max(cycles, 1), 2) for name in procs}
    return {"layout": layout, "agents": n_agents, "cycles_per_s": round(cycles / seconds, 1),
            "cpu_ms_per_cycle": round(sum(per.values()), 2), "cpu_ms_per_cycle_by_process": per,
            "cores": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, nargs="*", default=[1, 11])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--layouts", nargs="*", default=list(LAYOUTS), choices=LAYOUTS)
    args = parser.parse_args()
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    domains = iter(random.sample(range(120, 230), 100))
    for n in args.agents:
        base = 0.0
        for layout in args.layouts:
            row = run(layout, n, args.seconds, next(domains))
            rate = float(str(row["cycles_per_s"]))
            if layout == "composed":
                base = rate
            if base:
                row["vs_composed"] = round(rate / base, 3)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
