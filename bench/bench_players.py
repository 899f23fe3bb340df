"""ROS-native players against TCP agents: sync-mode throughput of `soccersim server` with N
minimal players of each kind, in the same run and on the same machine.

- tcp: bench_sync.py's minimal SimSpark agents (one worker process, selectors);
- ros: as many ROS-native players in one process and one node (as a team's node would be):
  each joins through the referee's init_agent, answers every <ns>/percept with a full
  joint_command (every joint +-0.2 rad/s, one cycle each way, as the TCP agents) that also
  synchronizes (`synchronize: true`, as a TCP agent's (syn) in the same packet), reading its
  percepts through the node's rclpy executor, as most ROS code does;
- ros_lean: the same players reading their percepts with sim_master's LeanReader (one rcl wait
  set, no executor), as `soccersim team` does;
- ros_raw: minimal ROS players as minimal as the TCP agents: the LeanReader hands them each
  percept's CDR bytes unparsed (`raw=True`) and they publish their two joint commands
  serialized once (rclpy publishes bytes as they are), as the TCP agents read their
  perceptions without parsing and send two prebuilt frames. The transport's own cost, DDS
  against TCP.

One JSON object per line: kind, players, cycles_per_s (the slowest player's percepts per
second), cpu_ms_per_cycle (server and players' processes), phase_ms_per_cycle (the
server's loop phases, from its counters), join_s (first request to last
player admitted), and per player count each ROS kind's ratio to tcp (vs_tcp). Issue 28's
target, 0.9x of tcp for 11 and 22 players, is met by ros_raw (the same work as the TCP
agents); ros and ros_lean add rclpy's message conversion in the players' process
(docs/speed.md). ROS runs on a private domain per run, loopback only."""
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
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sync import HETERO_TEAM, NAO_HINGES, agents_worker, free_port, phase_ms, server_stats

KINDS = ("tcp", "ros", "ros_lean", "ros_raw")
COMMON = ["--sync", "--simspark-monitor-port", "-1", "--rcsssmj-monitor-port", "-1", "--web-port", "-1",
          "--no-vision-noise", "--rcsssmj-port", "-1"]


def ros_players_worker(count: int, window: mp.Array, joined: mp.Queue, counts: mp.Queue, kind: str = "ros") -> None:
    """`count` ROS-native players on one node; counts percepts inside the measuring window.
    ros_lean, ros_raw: percepts read by sim_master's LeanReader instead of the node's executor
    (ros_raw: as bytes, answered with commands serialized once)."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from rclpy.serialization import serialize_message

    from sim_bridge.ros.lean_reader import LeanReader
    from sim_bridge.ros.qos import PERCEPT_QOS
    from sim_msgs.msg import JointCommand, Percept
    from sim_msgs.srv import InitAgent

    context = rclpy.Context()
    rclpy.init(context=context)
    node = Node("bench_players", context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
    client = node.create_client(InitAgent, "/soccer_referee/init_agent")
    assert client.wait_for_service(timeout_sec=60), "no init_agent"
    received: list[int] = []
    reader = LeanReader(node) if kind in ("ros_lean", "ros_raw") else None
    raw = kind == "ros_raw"
    for n in range(1, count + 1):
        team, unum = ("Alpha", n) if n <= 11 else ("Beta", n - 11)
        robot_type = HETERO_TEAM[(n - 1) % len(HETERO_TEAM)]
        future = client.call_async(InitAgent.Request(team=team, unum=unum, robot_model=f"nao{robot_type}"))
        executor.spin_until_future_complete(future, timeout_sec=60)
        reply = future.result()
        assert reply is not None and reply.success, reply
        ns = reply.player_namespace
        hinges = list(NAO_HINGES + (("lle7", "rle7") if robot_type == 4 else ()))
        commands: list[Any] = [JointCommand(mode=JointCommand.MODE_VELOCITY, names=hinges,
                                            velocities=[s] * len(hinges), synchronize=True) for s in (0.2, -0.2)]
        if raw:
            commands = [serialize_message(c) for c in commands]
        joints = node.create_publisher(JointCommand, f"{ns}/effectors/joint_command", reliable)
        index = len(received)
        received.append(0)

        def on_percept(_msg: Percept | bytes, index: int = index, joints=joints, commands=commands) -> None:
            now = time.monotonic()
            if window[0] and window[0] <= now <= window[1]:
                received[index] += 1
            joints.publish(commands[received[index] % 2])  # with its synchronize

        if reader is not None:
            reader.subscribe(Percept, f"{ns}/percept", on_percept, PERCEPT_QOS, raw=raw)
        else:
            node.create_subscription(Percept, f"{ns}/percept", on_percept, PERCEPT_QOS)
        joined.put(time.monotonic())
    while not window[1] or time.monotonic() < window[1]:
        if reader is not None:
            reader.spin_once(0.1)
        else:
            executor.spin_once(timeout_sec=0.1)
    counts.put(received)
    if reader is not None:
        reader.close()
    node.destroy_node()
    rclpy.shutdown(context=context)


def run(kind: str, players: int, seconds: float, domain: int) -> dict[str, object]:
    port, service = free_port(), free_port()
    env = {**os.environ, "ROS_DOMAIN_ID": str(domain)}
    logs = Path(tempfile.mkdtemp(prefix=f"bench-players-{kind}-"))
    exe = shutil.which("soccersim")
    assert exe, "soccersim not found: source install/setup.bash first"
    server = subprocess.Popen([exe, "server", *COMMON, "--simspark-port", str(port), "--service-port", str(service)],
                              stdout=(logs / "server.log").open("w"), stderr=subprocess.STDOUT, env=env)
    try:
        from bench_nodes import wait_listening

        wait_listening(port)
        window = mp.Array("d", [0.0, 0.0])
        joined: mp.Queue = mp.Queue()
        counts: mp.Queue = mp.Queue()
        os.environ["ROS_DOMAIN_ID"] = str(domain)
        worker = mp.Process(target=agents_worker, args=(port, 1, players, window, joined, counts)) if kind == "tcp" \
            else mp.Process(target=ros_players_worker, args=(players, window, joined, counts, kind))
        t0 = time.monotonic()
        worker.start()
        last = max(joined.get(timeout=180) for _ in range(players))
        join_s = last - t0
        time.sleep(1.0)
        procs = [psutil.Process(server.pid), psutil.Process(worker.pid)]
        cpu0 = [sum(p.cpu_times()[:2]) for p in procs]
        stats0 = server_stats(service)
        window[0] = time.monotonic()
        window[1] = window[0] + seconds
        time.sleep(seconds)
        cpu1 = [sum(p.cpu_times()[:2]) for p in procs]
        stats1 = server_stats(service)
        got = counts.get(timeout=60)
        worker.join(10)
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    cycles = max(min(got), 1)
    return {"kind": kind, "players": players, "cycles_per_s": round(cycles / seconds, 1),
            "cpu_ms_per_cycle": {"server": round(1000 * (cpu1[0] - cpu0[0]) / cycles, 2),
                                 "players": round(1000 * (cpu1[1] - cpu0[1]) / cycles, 2)},
            "phase_ms_per_cycle": phase_ms(stats0, stats1), "join_s": round(join_s, 2),
            "cores": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="*", default=[1, 11, 22])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--kinds", nargs="*", default=list(KINDS), choices=KINDS)
    args = parser.parse_args()
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    domains = iter(random.sample(range(120, 230), 100))
    for n in args.players:
        rates: dict[str, float] = {}
        for kind in args.kinds:
            row = run(kind, n, args.seconds, next(domains))
            rates[kind] = float(str(row["cycles_per_s"]))
            if kind != "tcp" and rates.get("tcp"):
                row["vs_tcp"] = round(rates[kind] / rates["tcp"], 3)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
