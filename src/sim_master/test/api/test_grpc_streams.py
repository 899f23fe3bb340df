"""The API's streams with real grpcio clients: snapshots that are the world the ROS topic
shows cycle for cycle, a reader that stops and comes back to the newest world (no queue of
old ones), game updates, and many calls and streams while agents play."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import grpc
import numpy as np
from sim_physics.snapshot import Snapshot

from sim_bridge.clients import SimSparkAgent
from sim_master.api import convert
from soccersim_api.v1 import soccersim_pb2 as pb

from .conftest import Stubs, stubs_for
from .test_grpc_api import CRATE


def _vector(world: Snapshot, name: str) -> np.ndarray:
    e = world.entities[name]
    return np.array([*e.position, *e.orientation, *e.linear_velocity, *e.angular_velocity, *e.joint_positions,
                     *e.joint_velocities])


class StreamReader:
    """Reads a snapshot stream on a thread, keeping the world as of every message."""

    def __init__(self, stubs: Stubs, request: pb.SnapshotsRequest | None = None) -> None:
        self.call = stubs.streams.Snapshots(request or pb.SnapshotsRequest(), timeout=300)
        self.worlds: dict[int, Snapshot] = {}
        self.messages: list[pb.Snapshot] = []
        self.world = Snapshot(0, 0.0, True, {})
        self.go = threading.Event()
        self.go.set()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for msg in self.call:
                self.go.wait()
                self.messages.append(msg)
                self.world = self.world.merged(convert.snapshot_from(msg))
                self.worlds[msg.step] = self.world
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                self.error = exc

    def wait_for(self, step: int, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while self.world.step < step and time.monotonic() < deadline and self.error is None:
            time.sleep(0.01)
        assert self.error is None, self.error
        assert self.world.step >= step, f"the stream reached step {self.world.step}, not {step}"

    def close(self) -> None:
        self.call.cancel()
        self.thread.join(10)


def test_snapshots_are_the_worlds_entity_states_shows(running_server: Callable[..., Any], grpc_clients: list[Stubs],
                                                      ros_context: Any) -> None:
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node

    from sim_master.ros.convert import snapshot_from_msg
    from sim_msgs.msg import Snapshot as SnapshotMsg

    with running_server(sync=False, realtime=True, ros=True, node_name="api_vs_ros", grpc_port=0) as server:
        api = stubs_for(server.api.server.address)
        grpc_clients.append(api)
        agent = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Alpha", 3)
        node = Node("api_vs_ros_probe", context=ros_context)
        executor = SingleThreadedExecutor(context=ros_context)
        executor.add_node(node)
        seen: dict[int, Snapshot] = {}
        node.create_subscription(SnapshotMsg, "/entity_states", lambda m: seen.__setitem__(
            m.step, snapshot_from_msg(m)), 50)
        reader = None
        try:
            agent.join()
            while len(server.loop.engine.robot_ids()) < 1:
                time.sleep(0.01)
            deadline = time.monotonic() + 20
            while node.count_publishers("/entity_states") < 1 and time.monotonic() < deadline:
                executor.spin_once(timeout_sec=0.05)
            start = api.sim.Pause(pb.PauseRequest(), timeout=20).cycle
            time.sleep(1.0)  # the server's node sees our subscription (asked a few times a second)
            reader = StreamReader(api)
            reader.wait_for(start)
            api.sim.Step(pb.StepRequest(cycles=60), timeout=60)
            reader.wait_for(start + 60)
            deadline = time.monotonic() + 20
            while max(seen, default=0) < start + 60 and time.monotonic() < deadline:
                executor.spin_once(timeout_sec=0.05)
            steps = sorted(reader.worlds)
            # a reader that keeps up is sent every cycle (this one shares the server's process)
            assert steps[0] == start and steps[-1] == start + 60 and len(steps) >= 50, steps
            common = sorted(set(seen) & set(reader.worlds))
            assert len(common) >= 10, f"ROS published {sorted(seen)}"
            for step in common:
                ros_world, api_world = seen[step], reader.worlds[step]
                assert set(ros_world.entities) == set(api_world.entities)
                for name in ros_world.entities:
                    assert np.allclose(_vector(ros_world, name), _vector(api_world, name), atol=1e-8, rtol=0), \
                        (step, name)
            robot = next(n for n in reader.world.entities if n != "ball")
            assert len(reader.world.entities[robot].joint_names) >= 22
            assert [m.full for m in reader.messages[:2]] == [True, False]  # the world, then what changed
        finally:
            if reader is not None:
                reader.close()
            agent.close()
            node.destroy_node()


def test_a_reader_that_stops_costs_nothing_and_comes_back_to_the_newest(
        running_server: Callable[..., Any], grpc_clients: list[Stubs]) -> None:
    """The server writes to a reader that stopped only until the transport's buffers (HTTP/2
    windows, the sockets') are full, then not at all; nothing queues in the server. When it
    reads again it is brought to the newest world."""
    with running_server(sync=False, realtime=True, grpc_port=0) as server:
        api = stubs_for(server.api.server.address)
        grpc_clients.append(api)
        for i in range(40):  # a world of 41 entities: a full message is a few KB
            api.entities.Spawn(pb.SpawnEntityRequest(name=f"crate{i}", sdf=CRATE, pose=pb.Pose(
                position=pb.Vector3(x=-10.0 + i * 0.5, y=5.0, z=0.15))), timeout=20)
        api.sim.SetSpeed(pb.SetSpeedRequest(real_time_factor=10), timeout=20)
        api.game.SetPlayMode(pb.SetPlayModeRequest(play_mode="PlayOn"), timeout=20)
        api.game.MoveBall(pb.MoveBallRequest(position=pb.Vector3(x=0, y=0, z=0.042),
                                             velocity=pb.Vector3(x=2.0, y=1.0)), timeout=20)
        reader = StreamReader(api, pb.SnapshotsRequest(full_only=True))
        try:
            first = api.sim.GetState(pb.GetStateRequest(), timeout=20).cycle
            reader.wait_for(first)
            reader.go.clear()  # it stops reading
            written = server.api.server.stream_messages
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:  # until the server stops writing to it
                time.sleep(1.0)
                now = server.api.server.stream_messages
                if now == written:
                    break
                written = now
            assert server.api.server.stream_messages == written, "the server wrote on to a reader that stopped"
            size = len(reader.messages[-1].SerializeToString())
            cycles = server.loop.engine.cycle - first
            assert written * size < 16 << 20, f"{written} messages of {size} bytes in flight"
            time.sleep(1.0)
            assert server.api.server.stream_messages == written and server.loop.engine.cycle - first > cycles
            paused = api.sim.Pause(pb.PauseRequest(), timeout=20).cycle
            reader.go.set()
            reader.wait_for(paused)
            world = server.loop.calls.call(server.loop.engine.snapshot)
            assert world.step == reader.world.step
            for name in world.entities:
                assert np.allclose(_vector(world, name), _vector(reader.world, name), atol=1e-8, rtol=0), name
        finally:
            reader.close()


def test_rate_and_full_messages(running_server: Callable[..., Any], grpc_clients: list[Stubs]) -> None:
    with running_server(sync=False, realtime=True, grpc_port=0) as server:
        api = stubs_for(server.api.server.address)
        grpc_clients.append(api)
        every = StreamReader(api, pb.SnapshotsRequest(every_cycles=10, full_only=True))
        try:
            start = api.sim.Pause(pb.PauseRequest(), timeout=20).cycle
            every.wait_for(start)
            api.sim.Step(pb.StepRequest(cycles=40), timeout=60)
            every.wait_for(start + 40)
            steps = sorted(every.worlds)
            assert all(b - a >= 10 for a, b in zip(steps, steps[1:])), steps
            assert all(m.full for m in every.messages)
            bad = api.streams.Snapshots(pb.SnapshotsRequest(max_rate_hz=float("nan")))
            try:
                next(bad)
                raise AssertionError("a NaN rate was taken")
            except grpc.RpcError as exc:
                assert exc.code() == grpc.StatusCode.INVALID_ARGUMENT
        finally:
            every.close()


def test_game_updates(running_server: Callable[..., Any], grpc_clients: list[Stubs]) -> None:
    with running_server(sync=False, realtime=True, grpc_port=0) as server:
        api = stubs_for(server.api.server.address)
        grpc_clients.append(api)
        updates = api.streams.GameEvents(pb.GameEventsRequest())
        got: list[pb.GameUpdate] = []

        def read() -> None:
            try:
                for u in updates:
                    got.append(u)
            except grpc.RpcError:
                pass

        thread = threading.Thread(target=read, daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + 20
            while not got and time.monotonic() < deadline:
                time.sleep(0.01)
            assert got and got[0].state.play_mode == "BeforeKickOff"
            api.game.SetPlayMode(pb.SetPlayModeRequest(play_mode="PlayOn"), timeout=20)
            api.game.SetScore(pb.SetScoreRequest(left=1, right=0), timeout=20)
            api.game.MoveBall(pb.MoveBallRequest(position=pb.Vector3(x=14.0, y=0.0, z=0.042),
                                                 velocity=pb.Vector3(x=5.0)), timeout=20)
            while time.monotonic() < deadline and not any(e.kind == "goal" for u in got for e in u.events):
                time.sleep(0.01)
            assert any(u.state.play_mode == "PlayOn" for u in got)
            assert any(u.state.score_left == 1 for u in got)
            goals = [(e.kind, e.team, u.state.score_left) for u in got for e in u.events if e.kind == "goal"]
            assert goals == [("goal", "left", 2)], goals
            assert len(got) < 20, "an update when the game changes, not every cycle"
        finally:
            updates.cancel()
            thread.join(10)


def test_many_calls_and_streams_while_agents_play(running_server: Callable[..., Any],
                                                  grpc_clients: list[Stubs]) -> None:
    """200 calls in flight and 20 streams while 4 agents play in sync mode: every call answers,
    every stream follows the match, the match goes on."""
    with running_server(grpc_port=0, sync_timeout=2.0) as server:
        port = server.agent_servers["simspark"].port
        agents = [SimSparkAgent("127.0.0.1", port, "Alpha", n) for n in range(1, 5)]
        stop = threading.Event()

        def play() -> None:
            try:
                while not stop.is_set():
                    for a in agents:
                        a.act({"he1": 0.5})
            except (OSError, ConnectionError):
                pass

        for a in agents:
            a.join()
        player = threading.Thread(target=play, daemon=True)
        player.start()
        channels = [stubs_for(server.api.server.address) for _ in range(4)]
        grpc_clients.extend(channels)
        readers = [StreamReader(channels[i % 4]) for i in range(20)]
        try:
            begin = server.loop.engine.cycle
            futures = []
            for i in range(200):
                api = channels[i % 4]
                call = (api.sim.GetState.future(pb.GetStateRequest(), timeout=60) if i % 3 == 0 else
                        api.entities.List.future(pb.ListEntitiesRequest(), timeout=60) if i % 3 == 1 else
                        api.game.GetState.future(pb.GetGameStateRequest(), timeout=60))
                futures.append(call)
            answers = [f.result(timeout=120) for f in futures]
            assert len(answers) == 200
            now = server.loop.engine.cycle
            for r in readers:
                r.wait_for(now)
            assert server.loop.engine.cycle > begin
            assert all(len(a.log.times) > 10 for a in agents)  # they were sent perceptions all along
        finally:
            stop.set()
            player.join(10)
            for r in readers:
                r.close()
            for a in agents:
                a.close()
