"""What the gRPC API's clients cost a match, and what the snapshot stream delivers.

22 of bench_sync's agents play in sync mode (as fast as they answer) on `soccersim server`
(ROS node off unless --ros) while API clients, each in a process of its own, do one of:
  none            no client (the reference row);
  1 reader        one Snapshots stream, every cycle;
  20 readers      twenty Snapshots streams, every cycle;
  20 at 10 Hz     twenty streams at max_rate_hz 10 (a GUI) and 200 unary calls at once every second;
  20 stalled      twenty streams that read one message and then stop reading;
  stand-in        the 10 Hz row's clients against bench/grpc_standin.py (canned answers, a
                  process of its own, no simulation behind it) while the match runs without
                  the API: what the clients and a gRPC server at all take from the match on
                  these cores, the control the real row is read against
                  (api_vs_standin_cycles_ratio).
One JSON line per row: the match's cycles/s and the server's CPU per cycle (bench_sync's
figures), the ratio of each to the row without clients, and the readers' snapshots/s each
and MB/s all told (and calls/s for the calls). The target (issue 46): cycles/s within 5 %
of no clients with 20 readers and 200 calls; a reader that stops costs nothing. On a machine
whose cores the match fills, the stand-in row says how much of that no server can avoid.

    python bench/bench_grpc.py [--agents 22] [--seconds 10] [--ros]
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import bench_sync


def reader(address: str, rate: float, stall: bool, stop: Any, ready: Any, out: Any) -> None:
    import grpc

    from soccersim_api.v1 import soccersim_pb2 as pb
    from soccersim_api.v1 import soccersim_pb2_grpc as rpc

    channel = grpc.insecure_channel(address)
    call = rpc.StreamsStub(channel).Snapshots(pb.SnapshotsRequest(max_rate_hz=rate))
    messages = size = 0
    started = time.monotonic()
    try:
        for msg in call:
            if messages == 0:
                ready.put(1)
                started = time.monotonic()
            messages += 1
            size += msg.ByteSize()
            if stall:
                stop.wait()
            if stop.is_set():
                break
    except grpc.RpcError:
        pass
    out.put((messages, size, time.monotonic() - started))
    call.cancel()
    channel.close()


def caller(address: str, in_flight: int, stop: Any, ready: Any, out: Any) -> None:
    """Once a second, `in_flight` unary calls at once (GetState, List, game GetState), all
    awaited: a tool's poll of the match, not a flood (the text budget bounds a flood)."""
    import grpc

    from soccersim_api.v1 import soccersim_pb2 as pb
    from soccersim_api.v1 import soccersim_pb2_grpc as rpc

    channel = grpc.insecure_channel(address)
    sim, entities, game = rpc.SimulationStub(channel), rpc.EntitiesStub(channel), rpc.GameStub(channel)
    made = [lambda: sim.GetState.future(pb.GetStateRequest(), timeout=30),
            lambda: entities.List.future(pb.ListEntitiesRequest(), timeout=30),
            lambda: game.GetState.future(pb.GetGameStateRequest(), timeout=30)]
    answered = failed = 0
    sim.GetState(pb.GetStateRequest(), timeout=30)
    ready.put(1)
    started = time.monotonic()
    latencies = []
    while not stop.is_set():
        burst = time.monotonic()
        pending = [made[i % 3]() for i in range(in_flight)]
        for f in pending:
            if f.exception() is None:
                answered += 1
            else:
                failed += 1
        latencies.append(time.monotonic() - burst)
        stop.wait(max(0.0, 1.0 - (time.monotonic() - burst)))
    out.put((answered, failed, time.monotonic() - started, max(latencies, default=0.0)))
    channel.close()


def clients_for(grpc_port: int, readers: int, rate: float, stall: bool,
                calls: int) -> Callable[[], Callable[[], dict[str, object]]]:
    address = f"127.0.0.1:{grpc_port}"

    def start() -> Callable[[], dict[str, object]]:
        ctx = mp.get_context("spawn")
        stop, ready, out, calls_out = ctx.Event(), ctx.Queue(), ctx.Queue(), ctx.Queue()
        procs = [ctx.Process(target=reader, args=(address, rate, stall, stop, ready, out)) for _ in range(readers)]
        if calls:
            procs.append(ctx.Process(target=caller, args=(address, calls, stop, ready, calls_out)))
        for p in procs:
            p.start()
        for _ in procs:  # every client started (imports take a while) and served once
            ready.get(timeout=120)
        time.sleep(8.0 if stall else 0.5)  # stalled readers: the transport's buffers (a few MB each) fill first

        def finish() -> dict[str, object]:
            stop.set()
            got = [out.get(timeout=60) for _ in range(readers)]
            did: dict[str, object] = {}
            if got:
                did["snapshots_per_s_each"] = round(sum(m / s for m, _, s in got) / len(got), 1)
                did["stream_mb_per_s"] = round(sum(b / s for _, b, s in got) / 2**20, 2)
                did["messages_each"] = round(sum(m for m, _, _ in got) / len(got), 1)
            if calls:
                answered, failed, seconds, slowest = calls_out.get(timeout=60)
                did.update(calls_per_s=round(answered / seconds, 1), calls_failed=failed,
                           slowest_burst_s=round(slowest, 3))
            for p in procs:
                p.join(10)
            return did

        return finish

    return start


def with_standin(port: int, start_clients: Callable[[], Callable[[], dict[str, object]]]
                 ) -> Callable[[], Callable[[], dict[str, object]]]:
    """The clients of `start_clients`, served by the stand-in process (started first)."""
    def start() -> Callable[[], dict[str, object]]:
        here = os.path.dirname(os.path.abspath(__file__))
        standin = subprocess.Popen([sys.executable, os.path.join(here, "grpc_standin.py"), str(port)])
        try:
            deadline = time.monotonic() + 60
            while True:  # until it listens (its imports take a second)
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if standin.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError("the stand-in API server did not start") from None
                    time.sleep(0.1)
            finish = start_clients()
        except BaseException:
            standin.kill()
            raise

        def stop() -> dict[str, object]:
            try:
                return finish()
            finally:
                standin.kill()
                standin.wait(10)
        return stop
    return start


PAIRED = "20 at 10 Hz + 200 calls"
ROWS = (("none", 0, 0.0, False, 0), ("1 reader", 1, 0.0, False, 0), ("20 readers", 20, 0.0, False, 0),
        (PAIRED, 20, 10.0, False, 200), ("20 stalled", 20, 0.0, True, 0), ("stand-in", 20, 10.0, False, 200))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=22)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--ros", action="store_true", help="the server's ROS node on (its default)")
    args = parser.parse_args()
    base: dict[str, object] | None = None
    paired: float | None = None
    for name, readers, rate, stall, calls in ROWS:
        port = bench_sync.free_port()
        clients = clients_for(port, readers, rate, stall, calls) if readers or calls else None
        if name == "stand-in" and clients is not None:
            row = bench_sync.run(args.agents, args.seconds, ros=args.ros, extra=("--grpc-port", "-1"),
                                 clients=with_standin(port, clients))
        else:
            row = bench_sync.run(args.agents, args.seconds, ros=args.ros, extra=("--grpc-port", str(port)),
                                 clients=clients)
        figures = {k: row[k] for k in ("agents", "cycles_per_s", "cpu_ms_per_cycle", "rss_mb")}
        extra = {k: v for k, v in row.items() if k in ("snapshots_per_s_each", "stream_mb_per_s", "messages_each",
                                                         "calls_per_s", "calls_failed", "slowest_burst_s")}
        if base is None:
            base = figures
        ratios = {f"{k}_ratio": round(float(str(row[k])) / float(str(base[k])), 3)
                  for k in ("cycles_per_s", "cpu_ms_per_cycle")}
        if name == PAIRED:
            paired = float(str(row["cycles_per_s"]))
        elif name == "stand-in" and paired:
            ratios["api_vs_standin_cycles_ratio"] = round(paired / float(str(row["cycles_per_s"])), 3)
        print(json.dumps({"bench": "grpc", "clients": name, **figures, **ratios, **extra,
                          "phase_ms_per_cycle": row.get("phase_ms_per_cycle")}), flush=True)


if __name__ == "__main__":
    main()
