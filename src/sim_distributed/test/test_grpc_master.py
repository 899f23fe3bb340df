"""A distributed run's master serves the core API over gRPC: the merged world of two nodes
streamed as snapshots, the nodes' health, pause and step of the lockstep, and UNAVAILABLE
while the barrier waits for a node that died."""
from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
from lockstep_helpers import Launch, master, node, wait_for_line
from sim_physics.snapshot import Snapshot

from sim_master.api import convert
from soccersim_api.v1 import soccersim_pb2 as pb
from soccersim_api.v1 import soccersim_pb2_grpc as rpc


def _code(call: Any, request: Any) -> grpc.StatusCode:
    try:
        call(request, timeout=20)
    except grpc.RpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


def test_the_master_streams_the_merged_world_and_steers_the_lockstep(redis_server: str, tmp_path: Path,
                                                                    launch: Launch) -> None:
    run = uuid.uuid4().hex[:8]
    m = master(launch, redis_server, run, tmp_path / "r.json", "--fresh", "--steps", "1000000", "--grpc-port", "0")
    line = wait_for_line(m, lambda s: s.startswith("master: gRPC API"), "the master's API address")
    address = line.split()[-1]
    node(launch, redis_server, run, "A")
    b = node(launch, redis_server, run, "B")
    wait_for_line(m, lambda s: s.startswith("master: step "), "the lockstep running")
    channel = grpc.insecure_channel(address)
    sim, entities, streams = rpc.SimulationStub(channel), rpc.EntitiesStub(channel), rpc.StreamsStub(channel)
    cluster = rpc.ClusterStub(channel)
    got: list[pb.Snapshot] = []
    world = {"now": Snapshot(0, 0.0, True, {})}
    stream = streams.Snapshots(pb.SnapshotsRequest(), timeout=300)

    def read() -> None:
        try:
            for msg in stream:
                got.append(msg)
                world["now"] = world["now"].merged(convert.snapshot_from(msg))
        except grpc.RpcError:
            pass

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 30
        while len(got) < 50 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(got) >= 50 and got[0].full
        owners = {e.owner for e in world["now"].entities.values()}
        assert owners == {"A", "B"}, owners  # the merged world: both nodes' assets
        steps = [msg.step for msg in got]
        assert steps == sorted(steps) and steps[-1] - steps[0] >= 49

        nodes = cluster.ListNodes(pb.ListNodesRequest(), timeout=20)
        assert [(n.node_id, n.registered, n.alive) for n in nodes.nodes] == [("A", True, True), ("B", True, True)]
        assert all(n.engine and n.heartbeat_age_s < 5 for n in nodes.nodes) and not nodes.missing

        listed = entities.List(pb.ListEntitiesRequest(tags=["node:B"]), timeout=20)
        assert listed.entities and all(e.state.owner == "B" for e in listed.entities)
        assert _code(entities.SetState, pb.SetEntityStateRequest(name="ball")) == grpc.StatusCode.UNIMPLEMENTED
        assert _code(rpc.GameStub(channel).GetState, pb.GetGameStateRequest()) == grpc.StatusCode.UNIMPLEMENTED

        paused = sim.Pause(pb.PauseRequest(), timeout=20)
        assert paused.mode == "distributed" and paused.state == pb.SimulationState.STATE_PAUSED
        time.sleep(0.5)
        held = sim.GetState(pb.GetStateRequest(), timeout=20).cycle
        time.sleep(0.5)
        assert sim.GetState(pb.GetStateRequest(), timeout=20).cycle == held
        assert sim.Step(pb.StepRequest(cycles=5), timeout=60).cycle == held + 5
        deadline = time.monotonic() + 10
        while world["now"].step < held + 4 and time.monotonic() < deadline:  # the hub lags the master by one
            time.sleep(0.05)
        assert world["now"].step >= held + 4

        os.killpg(b.pid, signal.SIGKILL)  # the barrier waits for B (policy pause)
        b.wait()
        sim.Resume(pb.ResumeRequest(), timeout=20)
        deadline = time.monotonic() + 30
        while sim.GetState(pb.GetStateRequest(), timeout=20).state != pb.SimulationState.STATE_WAITING:
            assert time.monotonic() < deadline, "the master never said it waits for B"
            time.sleep(0.2)
        assert _code(sim.Resume, pb.ResumeRequest()) == grpc.StatusCode.UNAVAILABLE
        sim.Pause(pb.PauseRequest(), timeout=20)
        assert _code(sim.Step, pb.StepRequest(cycles=1)) == grpc.StatusCode.UNAVAILABLE
        node(launch, redis_server, run, "B")  # it registers again and resumes from Redis
        deadline = time.monotonic() + 60
        while True:
            health = {n.node_id: n for n in cluster.ListNodes(pb.ListNodesRequest(), timeout=20).nodes}
            if health["B"].resyncs >= 1 and health["B"].alive:
                break
            assert time.monotonic() < deadline, "B never came back"
            time.sleep(0.2)
        assert sim.Step(pb.StepRequest(cycles=3), timeout=60).state == pb.SimulationState.STATE_PAUSED
    finally:
        stream.cancel()
        reader.join(10)
        channel.close()
