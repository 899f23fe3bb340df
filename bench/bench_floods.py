"""What one attacker alone can do to the good agents of a real-time match (issue 42).

A `soccersim server` in real time (50 cycles/s; ROS on unless --no-ros) with two good SimSpark
agents, one per team, each answering every perception (worker processes). Then, one after the
other, one attacker process floods one surface for `--seconds`:

- effectors: 20 connections on the agent port, each sending messages of 2000 effector commands
  as fast as the port takes them;
- churn: connections to the agent port opened and closed as fast as possible;
- trainer: monitor commands (ball moves, play modes) as fast as the monitor port takes them;
- drawings: RoboViz datagrams (boards of 100 points, swaps of every set) to the draw port;
- pages: 200 WebSocket connections to the browser monitor, each sending commands;
- services: text commands on the service port as fast as it answers.

Prints one JSON object: per phase (quiet first, quiet last), the good agents' perceptions per
second (each; real time is 50) and the server's cycles per second (its clock over wall time)."""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

NOW = re.compile(rb"\(now ([0-9.]+)\)")
PORTS = {"simspark": re.compile(r"^simspark agents: [\d.]+:(\d+)"),
         "monitor": re.compile(r"^simspark monitors: [\d.]+:(\d+)"),
         "web": re.compile(r"^browser monitor: http://[\d.]+:(\d+)/"),
         "draw": re.compile(r"^agents' drawings .*UDP [\d.]+:(\d+)"),
         "service": re.compile(r"^service port: [\d.]+:(\d+)")}


def frame(text: bytes) -> bytes:
    return struct.pack(">I", len(text)) + text


def _recv_frame(sock: socket.socket, buf: bytearray) -> bytes:
    while True:
        if len(buf) >= 4:
            (size,) = struct.unpack_from(">I", buf)
            if len(buf) >= 4 + size:
                msg = bytes(buf[4:4 + size])
                del buf[:4 + size]
                return msg
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk


def good_agent(port: int, team: str, marks: Any, out: Any) -> None:
    """Answers every perception; at each mark (a wall time) says how many it got and the
    server time of the last one."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = bytearray()
    sock.sendall(frame(b"(scene rsg/agent/nao/nao_hetero.rsg 0)"))
    _recv_frame(sock, buf)
    sock.sendall(frame(f"(init (unum 1)(teamname {team}))(syn)".encode()))
    count, now = 0, 0.0
    reply = frame(b"(he1 0.1)(he2 -0.1)(syn)")
    pending = list(marks)
    while pending:
        try:
            msg = _recv_frame(sock, buf)
        except (OSError, ConnectionError):
            break
        count += 1
        m = NOW.search(msg)
        if m:
            now = float(m.group(1))
        sock.sendall(reply)
        if time.time() >= pending[0]:
            out.put((team, pending.pop(0), count, now))
    sock.close()


# ---------------------------------------------------------------------- the attackers
def _flood(port: int, connections: int, payload: Callable[[int], bytes], until: float) -> None:
    """Send `payload(i)` on each of `connections` as fast as the server takes it (reading and
    dropping what it answers) until `until`; a connection the server closed stays closed."""
    socks = []
    for _ in range(connections):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.setblocking(False)
        socks.append(s)
    i = 0
    while socks and time.time() < until:
        for s in list(socks):
            try:
                s.send(payload(i))
                s.recv(1 << 20)
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                socks.remove(s)
        i += 1


def effectors(ports: dict[str, int], until: float) -> None:
    flood = frame(b"".join(b"(he1 0.1)" for _ in range(2000)) + b"(syn)")
    _flood(ports["simspark"], 20, lambda _i: flood, until)


def churn(ports: dict[str, int], until: float) -> None:
    while time.time() < until:
        try:
            s = socket.create_connection(("127.0.0.1", ports["simspark"]), timeout=2)
            s.close()
        except OSError:
            time.sleep(0.001)


def trainer(ports: dict[str, int], until: float) -> None:
    commands = [frame(b"(ball (pos 1 1 0.1)(vel 1 0 0))"), frame(b"(playMode PlayOn)"),
                frame(b"(agent (unum 1)(team Left)(pos -3 0 0.4))"), frame(b"(dropBall)")]
    _flood(ports["monitor"], 1, lambda i: commands[i % len(commands)] * 50, until)


def drawings(ports: dict[str, int], until: float) -> None:
    def num(v: float) -> bytes:
        return (b"%6f" % v)[:6]

    points = b"".join(b"\x01\x02" + num(i * 0.1) + num(1) + num(0) + num(3) + b"\xff\x00\xff" + b"set%d\0" % (i % 50)
                      for i in range(100))
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    while time.time() < until:
        try:
            udp.sendto(points, ("127.0.0.1", ports["draw"]))
            udp.sendto(b"\x00\x00\0" * 33, ("127.0.0.1", ports["draw"]))
        except OSError:
            pass


def pages(ports: dict[str, int], until: float) -> None:
    from websockets.sync.client import connect

    open_pages = []
    for _ in range(200):
        try:
            open_pages.append(connect(f"ws://127.0.0.1:{ports['web']}/ws", open_timeout=2))
        except Exception:  # noqa: BLE001 - refused beyond the cap: the point
            pass
    while time.time() < until:
        for page in open_pages:
            try:
                page.send('{"cmd": "drop_ball"}')
            except Exception:  # noqa: BLE001
                pass
        time.sleep(0.001)
    for page in open_pages:
        page.close()


def services(ports: dict[str, int], until: float) -> None:
    _flood(ports["service"], 1,
           lambda i: b"".join(f"r{50 * i + k} simulation stats\n".encode() for k in range(50)), until)


ATTACKS = {"effectors": effectors, "churn": churn, "trainer": trainer, "drawings": drawings, "pages": pages,
           "services": services}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="per phase")
    parser.add_argument("--attacks", nargs="*", default=list(ATTACKS), choices=list(ATTACKS))
    parser.add_argument("--no-ros", action="store_true")
    args = parser.parse_args()
    logs = tempfile.mkdtemp(prefix="bench_floods.")
    env = dict(os.environ, ROS_DOMAIN_ID=os.environ.get("ROS_DOMAIN_ID", str(150 + os.getpid() % 50)),
               ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST")
    cmd = [shutil.which("soccersim") or "soccersim", "server", "--simspark-port", "0", "--rcsssmj-port", "-1",
           "--simspark-monitor-port", "0", "--rcsssmj-monitor-port", "-1", "--web-port", "0", "--service-port", "0",
           "--draw-port", "0", *(["--no-ros"] if args.no_ros else [])]
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=open(f"{logs}/server.err", "w"), text=True,
                              env=env)
    ports: dict[str, int] = {}
    assert server.stdout is not None
    while len(ports) < len(PORTS):
        line = server.stdout.readline()
        if not line:
            print(json.dumps({"error": "the server ended", "log": f"{logs}/server.err"}))
            return 1
        for name, pattern in PORTS.items():
            m = pattern.match(line)
            if m:
                ports[name] = int(m.group(1))
    phases = ["quiet", *args.attacks, "quiet again"]
    start = time.time() + 8.0  # the agents join and the models are read
    marks = [start + i * args.seconds for i in range(len(phases) + 1)]
    out: Any = mp.Queue()
    agents = [mp.Process(target=good_agent, args=(ports["simspark"], team, marks, out)) for team in ("Good", "Fine")]
    for a in agents:
        a.start()
    results: list[dict[str, Any]] = []
    try:
        for i, phase in enumerate(phases):
            while time.time() < marks[i]:
                time.sleep(0.05)
            attacker = None
            if phase in ATTACKS:
                attacker = mp.Process(target=ATTACKS[phase], args=(ports, marks[i + 1] - 0.5))
                attacker.start()
            while time.time() < marks[i + 1] + 0.5:
                time.sleep(0.05)
            if attacker is not None:
                attacker.join(10)
                if attacker.is_alive():
                    attacker.kill()
            results.append({"phase": phase})
            print(f"[bench_floods] {phase} done", file=sys.stderr, flush=True)
        seen: dict[str, list[tuple[float, int, float]]] = {}
        deadline = time.time() + 10
        while sum(len(v) for v in seen.values()) < 2 * len(marks) and time.time() < deadline:
            try:
                team, mark, count, now = out.get(timeout=1)
            except Exception:  # noqa: BLE001 - an agent that was dropped says no more
                break
            seen.setdefault(team, []).append((mark, count, now))
        for i, row in enumerate(results):
            for team, points in seen.items():
                at = {mark: (count, now) for mark, count, now in points}
                if marks[i] in at and marks[i + 1] in at:
                    (c0, t0), (c1, t1) = at[marks[i]], at[marks[i + 1]]
                    row[f"{team}_perceptions_per_s"] = round((c1 - c0) / args.seconds, 1)
                    row.setdefault("server_cycles_per_s", round((t1 - t0) / args.seconds / 0.02, 1))
    finally:
        for a in agents:
            a.kill()
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    print(json.dumps({"bench": "floods", "seconds_per_phase": args.seconds, "ros": not args.no_ros,
                      "cores": os.cpu_count(), "phases": results, "server_log": f"{logs}/server.err"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
