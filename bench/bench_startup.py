"""How soon `soccersim server` accepts agents: seconds from the process start to its SimSpark
agent port accepting a connection, and to the first perception an agent that connected at
once receives (the robot models are read with the port already open).

One JSON object per line per run: ros (the ROS node on or off), ready_s, first_percept_s,
load_1min. Issue 31's target: ready in under 1 s on a quiet machine (it was 12.9 s under load
and 3-4 s quiet, the models read before listening)."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sync import free_port


def one_run(ros: bool) -> dict[str, object]:
    exe = shutil.which("soccersim")
    assert exe, "soccersim not found: source install/setup.bash first"
    port = free_port()
    args = [exe, "server", "--simspark-port", str(port), "--rcsssmj-port", "-1", "--simspark-monitor-port", "-1",
            "--rcsssmj-monitor-port", "-1", "--service-port", "-1", "--web-port", "-1"] + ([] if ros else ["--no-ros"])
    env = {**os.environ, "ROS_DOMAIN_ID": str(150 + port % 80)}
    t0 = time.monotonic()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=0.05)
                break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError("the server ended before listening") from None
                time.sleep(0.005)
        ready = time.monotonic() - t0
        scene = b"(scene rsg/agent/nao/nao_hetero.rsg 0)"
        sock.sendall(struct.pack(">I", len(scene)) + scene)
        sock.settimeout(30)
        sock.recv(4)  # the first perception's length prefix
        first = time.monotonic() - t0
        sock.close()
    finally:
        proc.terminate()
        proc.wait(20)
    return {"ros": ros, "ready_s": round(ready, 3), "first_percept_s": round(first, 3),
            "load_1min": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for _ in range(args.runs):
        for ros in (False, True):
            print(json.dumps(one_run(ros)), flush=True)


if __name__ == "__main__":
    main()
