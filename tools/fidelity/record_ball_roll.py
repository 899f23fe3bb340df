#!/usr/bin/env python3
"""Record the ball's free roll on any SimSpark-protocol server over its monitor port alone.

Per speed: `(playMode PlayOn)`, then `(ball (pos -6 0 R)(vel V 0 0))` (a trainer command of
rcssserver3d's and ours), then the ball's position from every monitor frame (a full frame
asked for after each one, so positions are exact) until it has moved less than 1 mm in 2 s of
game time. One CSV row per frame (speed, run, t since the first frame after the command,
x, y, z) and a JSON summary: distance from the start, time until the speed stays below 0.01 m/s.

    python3 record_ball_roll.py --monitor-port 3200 --out /tmp/roll          # a running server
    python3 record_ball_roll.py --server-cmd 'exec soccersim server --sync --no-ros
        --simspark-monitor-port {monitor_port} ...' --port 48000 --out /tmp/roll

stdlib only, as record_traces.py (whose framing and scene reading it reuses)."""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record_traces import Framed, MonitorScene, _matmul4, launch_command

SPEEDS = (1.0, 3.0, 5.0, 8.0)
START = (-6.0, 0.0)
RADIUS = 0.042
STILL_M, STILL_S = 0.001, 2.0  # stopped: moved less than this in that much game time
SLOW = 0.01  # m/s: the "stops" figure is when the speed stays below this


class BallWatch(MonitorScene):
    """The scene, and the ball in it: the transform (under whatever wrapper nodes a server
    puts around it) whose node loads the soccer ball mesh."""

    def ball(self) -> tuple[float, float, float] | None:
        def walk(nodes: list, m: list[float]) -> tuple[float, float, float] | None:
            for node in nodes:
                here = _matmul4(m, node.slt) if node.slt is not None else m
                if any(c.mesh and "soccerball" in c.mesh for c in node.children):
                    return here[12], here[13], here[14]
                found = walk(node.children, here)
                if found is not None:
                    return found
            return None

        return walk(self.roots or [], [1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0])


def game_time(msg: str) -> float | None:
    head = msg[:4000]  # a full frame has it after the field's figures
    at = head.find("(time ")
    if at < 0:
        return None
    try:
        return float(head[at + 6:head.index(")", at)])
    except ValueError:
        return None


def roll(host: str, port: int, speed: float, timeout_s: float = 20.0) -> list[tuple[float, float, float, float]]:
    """(t, x, y, z) per frame from the first frame after the ball was set rolling."""
    sock = socket.create_connection((host, port), timeout=10)
    wire = Framed(sock)
    scene = BallWatch()
    try:
        deadline = time.monotonic() + 10
        while scene.roots is None:  # the first full frame
            if time.monotonic() > deadline:
                raise RuntimeError("no full monitor frame in 10 s")
            scene.feed(wire.recv(10))
        wire.send("(playMode PlayOn)")
        wire.send(f"(ball (pos {START[0]} {START[1]} {RADIUS})(vel {speed} 0 0))")
        wire.send("(reqfullstate)")
        rows: list[tuple[float, float, float, float]] = []
        t0: float | None = None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            msg = wire.recv(10)
            t = game_time(msg)
            if not scene.feed(msg) or t is None:
                continue
            wire.send("(reqfullstate)")
            ball = scene.ball()
            if ball is None:
                continue
            if t0 is None:
                if math.dist(ball[:2], START) > 0.5:  # a frame from before the command
                    continue
                t0 = t
            rows.append((round(t - t0, 4), *ball))
            recent = [r for r in rows if r[0] >= rows[-1][0] - STILL_S]
            if rows[-1][0] >= STILL_S + 0.5 and math.dist(recent[0][1:3], recent[-1][1:3]) < STILL_M:
                break
            if rows[-1][0] > 15.0:
                break
        return rows
    finally:
        sock.close()


def summary(rows: list[tuple[float, float, float, float]]) -> dict[str, float | None]:
    distance = math.dist(START, rows[-1][1:3]) if rows else 0.0  # from where it was set rolling
    slow_at = None
    by_time = {row[0]: row for row in rows}  # a full frame asked for may repeat a frame's time
    distinct = [by_time[t] for t in sorted(by_time)]
    for (t1, x1, y1, _), (t2, x2, y2, _) in zip(distinct, distinct[1:]):
        v = math.hypot(x2 - x1, y2 - y1) / (t2 - t1)
        if v >= SLOW:
            slow_at = None
        elif slow_at is None:
            slow_at = t1
    return {"distance": round(distance, 4), "slow_s": slow_at, "frames": len(rows)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--monitor-port", type=int, default=3200)
    ap.add_argument("--server-cmd", default=None,
                    help="start a fresh server per speed ({agent_port} {monitor_port} {base_port} filled in)")
    ap.add_argument("--port", type=int, default=48000, help="base port for --server-cmd")
    ap.add_argument("--speeds", default=",".join(f"{s:g}" for s in SPEEDS))
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    speeds = [float(s) for s in args.speeds.split(",")]
    results: dict[str, dict[str, float | None]] = {}
    with open(os.path.join(args.out, "ball_roll.csv"), "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["speed", "run", "t", "x", "y", "z"])
        for run in range(1, args.runs + 1):
            for speed in speeds:
                server = None
                port = args.monitor_port
                if args.server_cmd:
                    work = tempfile.mkdtemp(prefix="ballroll.")
                    port = args.port + 1
                    server = launch_command(args.server_cmd, args.port, port, args.port, work, False)
                try:
                    rows = roll(args.host, port, speed)
                finally:
                    if server is not None:
                        server.stop()
                for row in rows:
                    out.writerow([f"{speed:g}", run, *(f"{v:.4f}" for v in row)])
                results[f"{speed:g}/{run}"] = summary(rows)
                print(f"{speed:g} m/s run {run}: {results[f'{speed:g}/{run}']}", flush=True)
    with open(os.path.join(args.out, "ball_roll.json"), "w") as f:
        json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
