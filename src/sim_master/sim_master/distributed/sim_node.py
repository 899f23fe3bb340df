"""A simulation node of a distributed run: simulates the assets it owns and mirrors the
others as kinematic ghosts from the master's global snapshot; steps when the master says.

`python -m sim_master.distributed.sim_node --id B` (or `soccersim node --id B`)."""
from __future__ import annotations

import argparse
import logging
import signal
import socket
import sys

import rclpy
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

from sim_master.distributed import topics
from sim_master.distributed.world_config import WorldConfig
from sim_master.engine.mujoco.engine import MujocoEngine
from sim_master.ros.convert import snapshot_from_msg, snapshot_to_msg, stamp
from sim_master.snapshot import Snapshot
from sim_msgs.msg import NodeStatus, StepDone, StepStart
from sim_msgs.msg import Snapshot as SnapshotMsg
from sim_msgs.srv import RegisterNode

log = logging.getLogger("soccersim.node")


class SimNode:
    def __init__(self, node_id: str, context: rclpy.Context, redis_url: str | None, run_id: str,
                 heartbeat_s: float = 0.5, physics: bool = True) -> None:
        self.physics = physics  # False: answer without stepping (measures the barrier alone)
        self.node_id = node_id
        self.node = Node(f"sim_node_{node_id}", context=context)
        self.redis_url, self.run_id = redis_url, run_id
        self.engine: MujocoEngine | None = None
        self.config: WorldConfig | None = None
        self.owned: set[str] = set()
        self.last_step = -1
        self.global_snapshot: Snapshot | None = None
        self.global_hash = ""
        self._last_done: StepDone | None = None
        self._send_all = True
        self._pending: StepStart | None = None
        n = self.node
        self.done_pub = n.create_publisher(StepDone, topics.STEP_DONE, topics.RELIABLE)
        self.status_pub = n.create_publisher(NodeStatus, topics.STATUS, 10)
        n.create_subscription(StepStart, topics.STEP_START, self._on_step, topics.RELIABLE)
        n.create_subscription(SnapshotMsg, topics.GLOBAL, self._on_global, topics.LATCHED)
        self.client = n.create_client(RegisterNode, topics.REGISTER)
        n.create_timer(heartbeat_s, self._heartbeat)

    def register(self, executor: rclpy.executors.Executor, timeout: float = 30.0) -> None:
        if not self.client.wait_for_service(timeout_sec=timeout):
            raise RuntimeError("no master")
        future = self.client.call_async(RegisterNode.Request(node_id=self.node_id, engine="mujoco",
                                                             host=socket.gethostname()))
        executor.spin_until_future_complete(future, timeout_sec=timeout)
        reply = future.result()
        if reply is None or not reply.success:
            raise RuntimeError(f"registration refused: {reply.error if reply else 'no answer'}")
        self.config = WorldConfig.from_json(reply.world_config)
        self.owned = self.config.owned_by(self.node_id)
        self.engine = MujocoEngine(self.config.world, vision_noise=False)
        for asset in self.config.assets:
            x, y, yaw = asset.pose
            if asset.model == "ball":
                self.engine.set_ball((x, y, self.engine.field.ball_radius))
            else:
                self.engine.add_robot(asset.name, asset.model, x, y, yaw)
                if asset.drive != (0.0, 0.0):
                    self.engine.set_joint_velocities(asset.name, {"lwe": asset.drive[0], "rwe": asset.drive[1]})
        self.last_step = int(reply.current_step)
        if self.last_step > 0 and self.redis_url:  # a restart: continue from the cache
            from sim_master.store.redis_cache import SnapshotCache

            latest = SnapshotCache(self.redis_url, self.run_id).latest()
            if latest is not None:
                self.engine.apply_snapshot(latest)
                self.last_step = latest.step
                self.global_snapshot = latest
                self.global_hash = latest.digest()
        self._send_all = True  # the first answer carries every owned asset
        log.info("node %s owns %s, joins at step %d", self.node_id, sorted(self.owned), self.last_step)

    def _on_global(self, msg: SnapshotMsg) -> None:
        snap = snapshot_from_msg(msg)
        if self.global_snapshot is not None and snap.step <= self.global_snapshot.step:
            return
        self.global_snapshot = snap
        self.global_hash = snap.digest()
        if self._pending is not None:  # a StepStart that waited for this world
            pending, self._pending = self._pending, None
            self._on_step(pending)

    def _on_step(self, msg: StepStart) -> None:
        if self.engine is None:
            return
        behind = self.global_snapshot is None or self.global_snapshot.step < msg.step - 1
        if msg.step > self.last_step and msg.step > 1 and behind:
            self._pending = msg  # step on the world of the previous step, never a staler one
            return
        if msg.step <= self.last_step:  # a repeated StepStart: the master missed our answer
            if self._last_done is not None and self._last_done.step == msg.step:
                self.done_pub.publish(self._last_done)
            return
        if self.global_snapshot is not None:
            ghosts = {n for n in self.global_snapshot.entities if n not in self.owned}
            self.engine.apply_snapshot(self.global_snapshot, only=ghosts)
        if self.physics:
            self.engine.step()
        self.last_step = int(msg.step)
        delta = self.engine.snapshot() if self._send_all else self.engine.delta()
        if self._send_all:
            self.engine.delta()
            self._send_all = False
        owned = {n: e for n, e in delta.entities.items() if n in self.owned}
        mine = Snapshot(self.last_step, self.engine.time, False, owned)
        done = StepDone(node_id=self.node_id, step=self.last_step, delta=snapshot_to_msg(mine),
                        snapshot_hash=self.global_hash)
        self._last_done = done
        self.done_pub.publish(done)

    def _heartbeat(self) -> None:
        self.status_pub.publish(NodeStatus(node_id=self.node_id, engine="mujoco", host=socket.gethostname(),
                                           state=NodeStatus.STATE_READY, last_step=max(self.last_step, 0),
                                           stamp=stamp(self.engine.time if self.engine else 0.0)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="a simulation node of a distributed run")
    add_node_arguments(parser)
    return run_node(parser.parse_args(argv))


def add_node_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--id", required=True)
    parser.add_argument("--engine", default="mujoco", choices=["mujoco"])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--run", default="default")
    parser.add_argument("--heartbeat", type=float, default=0.5)
    parser.add_argument("--no-physics", action="store_true", help="answer steps without simulating (benchmarks)")


def run_node(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s: %(message)s")
    context = rclpy.Context()
    rclpy.init(context=context, signal_handler_options=SignalHandlerOptions.NO)
    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    node = SimNode(args.id, context, args.redis, args.run, args.heartbeat, physics=not args.no_physics)
    executor = rclpy.executors.SingleThreadedExecutor(context=context)
    executor.add_node(node.node)
    try:
        node.register(executor)
        while not stop["now"]:
            executor.spin_once(timeout_sec=0.1)
    finally:
        node.node.destroy_node()
        if context.ok():
            rclpy.shutdown(context=context)
    return 0


if __name__ == "__main__":
    sys.exit(main())
