"""Sync-mode throughput of `soccersim server` with N minimal SimSpark agents of our own
(each answers every perception with a full 22-joint command and (syn)), as fast as possible.

One JSON object per line: server, agents, cycles_per_s, cpu_ms_per_cycle (server process),
rss_mb (server), join_s (until every agent got its unum). Targets (issue): 22 agents at
>= 250 cycles/s, < 600 MB, joined in < 3 s. Agents run in worker processes (selectors), so
the client side is not the bottleneck on 2 cores... as far as 2 cores allow: say so."""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import selectors
import shutil
import socket
import struct
import subprocess
import time

import psutil

REPLY = ("".join(f"({e} 0.0)" for e in ("he1", "he2", "lae1", "lae2", "lae3", "lae4", "rae1", "rae2", "rae3",
                                           "rae4", "lle1", "lle2", "lle3", "lle4", "lle5", "lle6", "rle1",
                                           "rle2", "rle3", "rle4", "rle5", "rle6")) + "(syn)").encode()
FRAME = struct.pack(">I", len(REPLY)) + REPLY


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def agents_worker(port: int, first_unum: int, count: int, window: mp.Array, joined: mp.Queue,
                  counts: mp.Queue) -> None:
    """Runs `count` agents; counts perceptions received inside the measuring window."""
    sel = selectors.DefaultSelector()
    for i in range(count):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        n = first_unum + i
        team, unum = ("Alpha", n) if n <= 11 else ("Beta", n - 11)
        msg = b"(scene rsg/agent/nao/nao_hetero.rsg 0)"
        s.sendall(struct.pack(">I", len(msg)) + msg)
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, {"buf": bytearray(), "team": team, "unum": unum,
                                               "inited": False, "joined": False, "n": 0})
    while True:
        start, end = window[0], window[1]
        if end and time.monotonic() > end:
            break
        for key, _ in sel.select(0.2):
            st = key.data
            try:
                data = key.fileobj.recv(1 << 20)  # type: ignore[union-attr]
            except BlockingIOError:
                continue
            if not data:
                return
            st["buf"] += data
            while len(st["buf"]) >= 4:
                (size,) = struct.unpack_from(">I", st["buf"])
                if len(st["buf"]) < 4 + size:
                    break
                payload = bytes(st["buf"][4:4 + size])
                del st["buf"][:4 + size]
                now = time.monotonic()
                if start and start <= now <= end:
                    st["n"] += 1
                if not st["inited"]:
                    init = f"(init (unum {st['unum']})(teamname {st['team']}))(syn)".encode()
                    key.fileobj.sendall(struct.pack(">I", len(init)) + init)  # type: ignore[union-attr]
                    st["inited"] = True
                    continue
                if not st["joined"] and b"(unum" in payload:
                    st["joined"] = True
                    joined.put(now)
                key.fileobj.sendall(FRAME)  # type: ignore[union-attr]
    counts.put([k.data["n"] for k in sel.get_map().values() if k.data is not None])
    for key in list(sel.get_map().values()):
        key.fileobj.close()  # type: ignore[union-attr]


def run(n_agents: int, seconds: float) -> dict[str, object]:
    port = free_port()
    exe = shutil.which("soccersim")
    assert exe, "source install/setup.bash first"
    server = subprocess.Popen([exe, "server", "--sync", "--no-ros", "--simspark-port", str(port),
                               "--rcsssmj-port", "-1", "--simspark-monitor-port", "-1",
                               "--rcsssmj-monitor-port", "-1", "--service-port", "-1", "--web-port", "-1"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert server.stdout is not None
    while not server.stdout.readline().startswith("mode:"):
        pass
    proc = psutil.Process(server.pid)
    window = mp.Array("d", [0.0, 0.0])
    joined: mp.Queue = mp.Queue()
    counts: mp.Queue = mp.Queue()
    workers_n = 1 if n_agents < 4 else 2
    per = -(-n_agents // workers_n)
    start = time.monotonic()
    workers, unum = [], 1
    while unum <= n_agents:
        count = min(per, n_agents - unum + 1)
        w = mp.Process(target=agents_worker, args=(port, unum, count, window, joined, counts))
        w.start()
        workers.append(w)
        unum += count
    join_s = max(joined.get(timeout=60) for _ in range(n_agents)) - start
    time.sleep(0.5)
    cpu0 = sum(proc.cpu_times()[:2])
    window[0] = time.monotonic()
    window[1] = window[0] + seconds
    time.sleep(seconds)
    cpu1 = sum(proc.cpu_times()[:2])
    rss = proc.memory_info().rss / 2**20
    per_agent = [n for _ in workers for n in counts.get(timeout=60)]
    for w in workers:
        w.join(10)
    server.terminate()
    server.wait(10)
    cycles = min(per_agent)
    return {"server": "soccersim", "agents": n_agents, "cycles_per_s": round(cycles / seconds, 1),
            "cpu_ms_per_cycle": round(1000 * (cpu1 - cpu0) / max(cycles, 1), 2),
            "rss_mb": round(rss, 1), "join_s": round(join_s, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--agents", type=int, nargs="*", default=[1, 2, 6, 11, 22])
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    for n in args.agents:
        print(json.dumps(run(n, args.seconds)), flush=True)


if __name__ == "__main__":
    main()
