"""The swarm example: 200 pushers over four SimPy nodes ticking behaviour trees, in
lockstep with a master; every node sees the same world, every robot moves, none leaves
the field or jumps."""
from __future__ import annotations

import json
import math
import subprocess
import uuid
from pathlib import Path

import pytest

CONFIG = Path(__file__).resolve().parents[3] / "worlds" / "swarm_example.json"
STEPS = 200


def test_swarm_of_200_pushers_on_four_simpy_nodes(redis_server: str, tmp_path: Path, launch) -> None:
    run, report_path = uuid.uuid4().hex[:8], tmp_path / "swarm.json"
    master = launch("sim_distributed.master", "--config", str(CONFIG), "--steps", str(STEPS),
                    "--redis", redis_server, "--run", run, "--fresh", "--report", str(report_path), "--trace",
                    "--step-timeout", "5")
    nodes = [launch("sim_distributed.sim_node", "--id", node_id, "--engine", "simpy",
                    "--redis", redis_server, "--run", run, log=tmp_path / f"node-{node_id}.log") for node_id in "ABCD"]
    out, _ = master.communicate(timeout=240)
    assert master.returncode == 0, out[-3000:]
    report = json.loads(report_path.read_text())
    assert report["step"] == STEPS
    for step in ("100",):
        assert set(report["hashes"][step]) == set("ABCD")
        assert len(set(report["hashes"][step].values())) == 1
        assert report["hashes"][step]["A"] == report["master_hashes"][step]
    trace = report["trace"]
    robots = [n for n in trace["1"] if n != "ball"]
    assert len(robots) == 200
    for name in robots:
        path = [trace[str(s)][name] for s in range(1, STEPS + 1)]
        assert math.dist(path[0], path[-1]) > 0.1  # it wandered
        assert all(abs(x) <= 16.0 and abs(y) <= 11.0 for x, y in path)
        assert all(math.dist(a, b) <= 1.0 * 0.02 + 1e-9 for a, b in zip(path, path[1:]))  # <= 1 m/s
    for proc in nodes:
        assert proc.poll() is None  # still serving: they stop when the test ends


def test_mujoco_and_simpy_nodes_share_one_world(redis_server: str, tmp_path: Path, launch) -> None:
    """Left team on a MuJoCo node, right team and ball on a SimPy node: each mirrors the
    other's assets, and both agree on the world."""
    config = CONFIG.parent / "distributed_example.json"
    run, report_path = uuid.uuid4().hex[:8], tmp_path / "mixed.json"
    master = launch("sim_distributed.master", "--config", str(config), "--steps", str(STEPS),
                    "--redis", redis_server, "--run", run, "--fresh", "--report", str(report_path), "--trace")
    launch("sim_distributed.sim_node", "--id", "A", "--engine", "mujoco", "--redis", redis_server, "--run", run,
           log=tmp_path / "node-A.log")
    launch("sim_distributed.sim_node", "--id", "B", "--engine", "simpy", "--redis", redis_server, "--run", run,
           log=tmp_path / "node-B.log")
    out, _ = master.communicate(timeout=240)
    assert master.returncode == 0, out[-3000:]
    report = json.loads(report_path.read_text())
    assert report["hashes"]["100"]["A"] == report["hashes"]["100"]["B"] == report["master_hashes"]["100"]
    trace = report["trace"]
    # Both wheels at 8 rad/s: 0.4 m/s in ideal kinematics (SimPy); MuJoCo's pusher slips and
    # drags its caster, so it makes about half of that.
    assert math.dist(trace["50"]["right_1"], trace["150"]["right_1"]) == pytest.approx(0.8, abs=0.01)
    assert 0.2 < math.dist(trace["50"]["left_1"], trace["150"]["left_1"]) < 0.8


def test_simpy_node_killed_and_restarted_rejoins_without_jumps(redis_server: str, tmp_path: Path, launch) -> None:
    import os
    import select
    import signal
    import time

    run, report_path = uuid.uuid4().hex[:8], tmp_path / "swarm-fault.json"
    master = launch("sim_distributed.master", "--config", str(CONFIG), "--steps", "300",
                    "--redis", redis_server, "--run", run, "--fresh", "--report", str(report_path), "--trace")
    nodes = {node_id: launch("sim_distributed.sim_node", "--id", node_id, "--engine", "simpy",
                             "--redis", redis_server, "--run", run, log=tmp_path / f"node-{node_id}.log")
             for node_id in "ABCD"}
    assert master.stdout is not None
    seen: list[str] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # (a master that stopped stepping fails here, with what it said)
        ready, _, _ = select.select([master.stdout], [], [], 1.0)
        line = master.stdout.readline() if ready else ""
        seen.append(line)
        if line.startswith("master: step ") and int(line.split()[-1]) >= 100:
            break
        if master.poll() is not None and not ready:
            break
    else:
        logs = {p.name: p.read_text()[-1500:] for p in tmp_path.glob("node-*.log")}
        pytest.fail(f"the master did not reach step 100 in 120 s: {''.join(seen)[-2000:]} nodes: {logs}")
    os.killpg(nodes["C"].pid, signal.SIGKILL)
    nodes["C"].wait()
    time.sleep(1.0)
    launch("sim_distributed.sim_node", "--id", "C", "--engine", "simpy", "--redis", redis_server, "--run", run,
           log=tmp_path / "node-C-again.log")
    try:
        out, _ = master.communicate(timeout=240)
    except subprocess.TimeoutExpired as exc:  # what the master and every node said, to tell why
        logs = {p.name: p.read_text()[-1500:] for p in tmp_path.glob("node-*.log")}
        pytest.fail(f"the master did not finish: {str(exc.output or '')[-2000:]} nodes: {logs}")
    assert master.returncode == 0, out[-3000:]
    report = json.loads(report_path.read_text())
    assert report["step"] == 300 and report["rejoins"] and report["rejoins"][0][0] == "C"
    trace = report["trace"]
    steps = sorted(int(s) for s in trace)
    for name in trace["1"]:
        for a, b in zip(steps, steps[1:]):
            assert math.dist(trace[str(a)][name], trace[str(b)][name]) <= 1.2 * 0.02 + 1e-9, (name, a)
    assert len(set(report["hashes"]["200"].values())) == 1  # after the rejoin all agree again
