"""A simulation node of a distributed run: simulates the assets it owns, mirrors the
others as kinematic ghosts from the world changes each StepStart carries, and steps when the
master says (engines: MuJoCo or gz-physics, or SimPy for kinematic swarms ticking behaviour trees).

`python -m sim_distributed.sim_node --id B` (or `soccersim node --id B`)."""
from __future__ import annotations

import argparse
import logging
import signal
import socket
import sys
import time

import rclpy
import redis
from rclpy.client import Client
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions
from sim_physics.engine.factory import physics_engine
from sim_physics.engine.node import SteppedWorld
from sim_physics.snapshot import Snapshot

from sim_bridge.ros.service_call import call_until_answered, fresh_client
from sim_distributed import topics
from sim_distributed.topic_reader import TopicReader
from sim_distributed.world_config import WorldConfig
from sim_master.ros.convert import snapshot_from_msg, snapshot_to_packed_msg, stamp
from sim_msgs.msg import NodeStatus, StepDone, StepStart
from sim_msgs.srv import RegisterNode

log = logging.getLogger("soccersim.node")
CONTROL_EVERY_S = 0.05  # heartbeats and the registration client are served this often
MASTER_LOST_S = 5.0  # no StepStart for this long: the node reports a lost master


class SimNode:
    def __init__(self, node_id: str, context: rclpy.Context, redis_url: str | None, run_id: str,
                 heartbeat_s: float = 0.5, physics: bool = True, engine: str = "mujoco") -> None:
        self.physics = physics  # False: answer without stepping (measures the barrier alone)
        self.node_id = node_id
        self.engine_kind = engine
        self.node = Node(f"sim_node_{node_id}", context=context)  # control plane: spun by an executor
        self.data_node = Node(f"sim_node_{node_id}_steps", context=context)  # data plane: read by hand
        self.redis_url, self.run_id = redis_url, run_id
        self.engine: SteppedWorld | None = None
        self.config: WorldConfig | None = None
        self.owned: set[str] = set()
        self.last_step = -1
        self.world = Snapshot(0, 0.0, True, {})  # this node's copy of the global world
        self._last_done: StepDone | None = None
        self._send_all = True
        self.done_pub = self.data_node.create_publisher(StepDone, topics.STEP_DONE, topics.RELIABLE)
        self.start_reader = TopicReader(self.data_node, StepStart, topics.STEP_START, topics.RELIABLE)
        self.status_pub = self.node.create_publisher(NodeStatus, topics.STATUS, 10)
        self.client: Client = self.node.create_client(RegisterNode, topics.REGISTER)
        self.heartbeat_s = heartbeat_s
        self.node.create_timer(heartbeat_s, self._heartbeat)

    def register(self, executor: rclpy.executors.Executor, timeout: float = 30.0) -> None:
        if not self.client.wait_for_service(timeout_sec=timeout):
            raise RuntimeError("no master")
        request = RegisterNode.Request(node_id=self.node_id, engine=self.engine_kind, host=socket.gethostname())
        # the master forgets a dead process 3 heartbeats after its last one: wait twice that
        deadline = time.monotonic() + 6 * self.heartbeat_s
        while True:
            # registering again is accepted by the master (it is how a restarted node rejoins)
            reply = call_until_answered(executor, self.client, request, attempts=6, timeout_s=timeout / 6,
                                        renew=self._renew_client)
            if reply is not None and not reply.success and reply.error.startswith(topics.NODE_ID_LIVE) \
                    and time.monotonic() < deadline:
                # our previous process may still be heard for a few heartbeats: wait it out
                log.info("node %s: %s; asking again", self.node_id, reply.error)
                time.sleep(self.heartbeat_s)
                continue
            break
        if reply is None or not reply.success:
            raise RuntimeError(f"registration refused: {reply.error if reply else 'no answer'}")
        self.config = WorldConfig.from_json(reply.world_config)
        self.owned = self.config.owned_by(self.node_id)
        try:
            self.engine = make_engine(self.engine_kind, self.config, self.node_id, reply.bt_xml)
        except Exception as exc:
            raise NodeBuildError(f"{type(exc).__name__}: {exc}"[:300]) from exc
        self.last_step = int(reply.current_step)
        if self.last_step > 0:  # a restart: continue from the cache
            self._resync()
        self._send_all = True  # the first answer carries every owned asset
        log.info("node %s (%s) owns %d assets, joins at step %d", self.node_id, self.engine_kind,
                 len(self.owned), self.last_step)

    def _renew_client(self, old: Client) -> Client:
        """A fresh registration client: the old one's answers went missing (see service_call)."""
        log.warning("node %s: the master did not answer the registration; asking with a new client",
                    self.node_id)
        self.client = fresh_client(self.node, old)
        return self.client

    def _resync(self, at_least: int = 0, timeout_s: float = 2.0) -> None:
        """Take the whole world, own assets included, from the Redis cache (waiting briefly
        for the master to write step `at_least`: it writes while the nodes step)."""
        if not self.redis_url or self.engine is None:
            return
        from sim_distributed.redis_cache import SnapshotCache

        cache = SnapshotCache(self.redis_url, self.run_id)
        deadline = time.monotonic() + timeout_s
        try:
            latest = cache.latest()
            while latest is not None and latest.step < at_least and time.monotonic() < deadline:
                time.sleep(0.005)
                latest = cache.latest()
        except redis.RedisError as exc:
            log.warning("node %s cannot resync: Redis at %s unreachable (%s); stepping on from its own state",
                        self.node_id, self.redis_url, exc)
            return
        if latest is not None:
            self.engine.apply_snapshot(latest)
            self.last_step = latest.step
            self.world = latest
            log.info("node %s resynchronised from Redis at step %d", self.node_id, latest.step)

    def on_step(self, msg: StepStart) -> None:
        if self.engine is None:
            return
        changes = snapshot_from_msg(msg.world)
        if changes.full:
            # A restarted master resumes from Redis, which may be a step behind us: its world
            # is the truth, our own assets included; we step on from there.
            self.engine.apply_snapshot(changes)
            self.world, self.last_step, self._last_done = changes, changes.step, None
            self._send_all = True
        if msg.step <= self.last_step:  # a repeated StepStart: the master missed our answer
            if self._last_done is not None and self._last_done.step == msg.step:
                self.done_pub.publish(self._last_done)
            return
        if msg.step > self.last_step + 1:  # we missed steps (cannot happen with reliable QoS, but)
            log.warning("node %s at step %d got StepStart %d: resync", self.node_id, self.last_step, msg.step)
            self._resync(at_least=int(msg.step) - 1)
        elif not changes.full and changes.step > self.world.step:
            self.world = self.world.merged(changes)
        ghosts = {n for n in changes.entities if n not in self.owned}
        if ghosts and not changes.full:
            self.engine.apply_snapshot(changes, only=ghosts, forward=False)  # the step computes it
        if self.physics:
            self.engine.step()
        self.last_step = int(msg.step)
        delta = self.engine.snapshot() if self._send_all else self.engine.delta(only=self.owned)
        if self._send_all:
            self.engine.delta(only=self.owned)
            self._send_all = False
        owned = {n: e for n, e in delta.entities.items() if n in self.owned}
        mine = Snapshot(self.last_step, self.last_step * msg.dt, False, owned)
        done = StepDone(node_id=self.node_id, step=self.last_step, delta=snapshot_to_packed_msg(mine),
                        snapshot_hash=self.world.digest() if msg.want_hash else "")
        self._last_done = done
        self.done_pub.publish(done)

    def report_failure(self, reason: str) -> None:
        """Tell the master why this node stops (it would otherwise wait for its steps)."""
        status = NodeStatus(node_id=self.node_id, engine=self.engine_kind, host=socket.gethostname(),
                            state=NodeStatus.STATE_DEAD, last_step=max(self.last_step, 0), reason=reason)
        for _ in range(20):  # a second of it: the status topic is not latched
            self.status_pub.publish(status)
            time.sleep(0.05)

    def _heartbeat(self) -> None:
        self.status_pub.publish(
            NodeStatus(
                node_id=self.node_id,
                engine=self.engine_kind,
                host=socket.gethostname(),
                state=NodeStatus.STATE_READY if self.engine is not None else NodeStatus.STATE_REGISTERING,
                last_step=max(self.last_step, 0),
                stamp=stamp(self.engine.time if self.engine else 0.0),
            )
        )


class NodeBuildError(RuntimeError):
    """The world the master sent cannot be built by this node's engine (one line)."""


class MasterWatch:
    """Says so (once) when the master has sent no step for a while, and again when it is
    back: a node whose master died would otherwise wait for ever without a word."""

    def __init__(self, node_id: str, lost_after_s: float) -> None:
        self.node_id, self.lost_after_s = node_id, lost_after_s
        self.last_heard = time.monotonic()
        self.lost = False

    def heard(self, step: int, now: float) -> None:
        if self.lost:
            log.warning("node %s: the master is back (step %d)", self.node_id, step)
            self.lost = False
        self.last_heard = now

    def silent(self, now: float) -> None:
        if not self.lost and now - self.last_heard > self.lost_after_s:
            self.lost = True
            log.warning("node %s: no step from the master for %.0f s (master lost, or waiting for other "
                        "nodes); waiting for it", self.node_id, now - self.last_heard)


def make_engine(kind: str, config: WorldConfig, node_id: str, bt_xml: str) -> SteppedWorld:
    """The engine of one node with every asset of the world in it (owned and ghosts)."""
    engine: SteppedWorld
    if kind == "simpy":
        from sim_distributed.simpy_engine.engine import SimpyEngine

        swarm = SimpyEngine(config.world, bt_xml=bt_xml, tick_ms=config.bt_tick_ms)
        swarm.set_owned(config.owned_by(node_id))
        engine = swarm
    else:
        engine = physics_engine(kind, config.world, vision_noise=False)
    for asset in config.assets:
        x, y, yaw = asset.pose
        if asset.model == "ball":
            engine.set_ball((x, y, engine.field.ball_radius))
        else:
            engine.add_robot(asset.name, asset.model, x, y, yaw)
            if asset.drive != (0.0, 0.0):
                engine.set_joint_velocities(asset.name, {"lwe": asset.drive[0], "rwe": asset.drive[1]})
    return engine


def main(argv: list[str] | None = None) -> int:
    from sim_master.cli import OneLineErrors

    parser = OneLineErrors(description="a simulation node of a distributed run")
    add_node_arguments(parser)
    return run_node(parser.parse_args(argv))


def add_node_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--id", required=True)
    from sim_physics.engine.factory import PHYSICS_ENGINES

    engines = [e for e in PHYSICS_ENGINES if e != "auto"] + ["simpy"]  # a node runs one engine, not a league's
    parser.add_argument("--engine", default="mujoco", choices=engines,
                        help="mujoco, ode (rcssserver3d's physics library) or gazebo (gz-physics with DART): physics; "
                             "simpy: kinematic swarms driven by behaviour trees")
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
    node = SimNode(args.id, context, args.redis, args.run, args.heartbeat, physics=not args.no_physics,
                   engine=args.engine)
    executor = rclpy.executors.SingleThreadedExecutor(context=context)
    executor.add_node(node.node)  # not data_node: StepStart is taken by the loop below
    try:
        try:
            node.register(executor)
        except NodeBuildError as exc:  # the master is told why, or it would wait for this node
            log.error("node %s: %s", args.id, exc)
            node.report_failure(str(exc))
            return 1
        except RuntimeError as exc:  # no master, or it refused us
            log.error("node %s: %s", args.id, exc)
            return 1
        control_at = 0.0
        watch = MasterWatch(args.id, lost_after_s=max(MASTER_LOST_S, 10 * args.heartbeat))
        while not stop["now"]:
            msg = node.start_reader.next(CONTROL_EVERY_S)
            if msg is not None:
                node.on_step(msg)
            now = time.monotonic()
            watch.heard(node.last_step, now) if msg is not None else watch.silent(now)
            if msg is None or now - control_at >= CONTROL_EVERY_S:
                control_at = now
                executor.spin_once(timeout_sec=0.0)
    finally:
        executor.shutdown()  # before the context goes: an executor collected after it raises at exit
        node.node.destroy_node()
        node.data_node.destroy_node()
        if context.ok():
            rclpy.shutdown(context=context)
    return 0


if __name__ == "__main__":
    sys.exit(main())
