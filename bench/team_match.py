#!/usr/bin/env python3
"""A full match of the base team against itself, as the league plays it: a real `soccersim
server --sync` (ODE, the SimSpark rules) and two `soccersim team --simspark` processes of
eleven Nao agents each over TCP, to GameOver. Not part of `make test`: a match takes minutes.

    python bench/team_match.py --half-time 300 --out /tmp/team_match

Prints one JSON line: the score and goals, falls per player per minute (get-ups the players'
motion layer started), players still connected at the end, the match's cycles/s, and the CPU
each team process spent per player per cycle (it runs beside the server on the same cores).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """utime + stime of a live process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half-time", type=float, default=300.0, help="s of game time per half")
    parser.add_argument("--players", type=int, default=11)
    parser.add_argument("--robot-types", default="", metavar="T,T,...",
                        help="soccersim team's --robot-types for both teams (default: the team's roster)")
    parser.add_argument("--engine", default="ode")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=7200.0, help="wall-clock s the match may take")
    parser.add_argument("--out", default="/tmp/team_match")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    agent_port = free_port()
    server_cmd = [sys.executable, "-m", "sim_master.cli", "server", "--sync", "--engine", args.engine,
                  "--half-time", str(args.half_time), "--kickoff-after", "1", "--simspark-port", str(agent_port),
                  "--rcsssmj-port", "-1", "--service-port", "-1", "--web-port", "-1", "--no-ros",
                  "--seed", str(args.seed), "--log", str(out / "match.mcap")]
    started = time.monotonic()
    teams: list[tuple[str, subprocess.Popen[str]]] = []
    logs = []
    with open(out / "server.log", "w") as server_err:
        server = subprocess.Popen(server_cmd, stdout=server_err, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    socket.create_connection(("127.0.0.1", agent_port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        print(json.dumps({"error": "the server did not open its agent port"}))
                        return 1
                    time.sleep(0.2)
            for name in ("BaseLeft", "BaseRight"):
                cmd = [sys.executable, "-m", "sim_master.cli", "team", "--team", name, "--players", str(args.players),
                       "--simspark", f"127.0.0.1:{agent_port}", "--until-game-over",
                       *(("--robot-types", args.robot_types) if args.robot_types else ())]
                err = open(out / f"{name}.log", "w")
                logs.append(err)
                teams.append((name, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)))
                time.sleep(2.0)  # the first team takes the left side
            cpu = {name: 0.0 for name, _ in teams}
            limit = time.monotonic() + args.timeout
            last_note = 0.0
            while any(p.poll() is None for _, p in teams) and time.monotonic() < limit:
                for name, p in teams:
                    if p.poll() is None:
                        try:
                            cpu[name] = cpu_seconds(p.pid)
                        except OSError:
                            pass
                if time.monotonic() - last_note > 30:
                    last_note = time.monotonic()
                    print(f"team_match: {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
                time.sleep(1.0)
            runs: dict[str, Any] = {}
            for name, p in teams:
                try:
                    stdout, _ = p.communicate(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    stdout, _ = p.communicate()
                lines = [line for line in stdout.splitlines() if line.startswith("{")]
                runs[name] = json.loads(lines[-1]) if lines else {"error": f"exit {p.returncode}"}
        finally:
            for _, p in teams:  # a bench stopped early leaves no player behind
                if p.poll() is None:
                    p.kill()
                    p.wait()
            for log in logs:
                log.close()
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGTERM)
                try:
                    server.wait(15)
                except subprocess.TimeoutExpired:
                    os.killpg(server.pid, signal.SIGKILL)
                    server.wait()
    wall = time.monotonic() - started
    game_minutes = 2 * args.half_time / 60.0
    stopped = re.search(r"stopped after (\d+) cycles", (out / "server.log").read_text(errors="replace"))
    cycles = int(stopped.group(1)) if stopped else 2 * args.half_time / 0.02  # stoppages included
    report: dict[str, Any] = {"half_time": args.half_time, "engine": args.engine, "wall_s": round(wall, 1),
                              "cycles_per_s": round(cycles / wall, 1)}
    for name, run in runs.items():
        falls = run.get("falls", {})
        report[name] = {
            "side": run.get("side"), "score_seen": run.get("score"), "play_mode": run.get("play_mode"),
            "connected": f"{run.get('connected')}/{run.get('players')}",
            "falls": sum(falls.values()), "falls_by_player": falls,
            "falls_per_player_per_minute": round(sum(falls.values()) / max(1, len(falls)) / game_minutes, 3),
            "kicks": sum(run.get("kicks", {}).values()),
            "cpu_ms_per_player_per_cycle": round(1000 * cpu[name] / max(1, args.players) / cycles, 3)}
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
