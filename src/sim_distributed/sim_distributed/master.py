"""The master of a distributed run: registers nodes, steps them in lockstep (StepStart ->
every live node's StepDone), merges their deltas into the global snapshot, sends it back
(each node mirrors the others' assets from it), caches it in Redis and checks heartbeats.

Each StepStart carries what changed in the world at the previous step, so one message per
node per step drives the lockstep; the hot loop takes StepDone answers through its own wait
set (TopicReader) and serves registrations and heartbeats between waits.

Barrier policy when a node does not answer within the timeout: "pause" repeats the step
until the node is back (it re-registers and resumes from Redis), "continue" steps on
without it (its assets stay where they were). A restarted master resumes from Redis.
The barrier's rules (who is waited for, the policy, the merge, one process per node id)
are the pure `master.barrier`; this module does the messaging."""
from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import time

import rclpy
import redis
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions
from sim_physics.snapshot import Snapshot

from sim_contracts.logtext import clip
from sim_distributed import topics
from sim_distributed.api import API_BUDGET_S
from sim_distributed.barrier import NodeRecord, NodeRoster, StepBarrier, StepOutcome
from sim_distributed.cache_writer import PipelinedCacheWriter
from sim_distributed.redis_cache import SnapshotCache
from sim_distributed.topic_reader import TopicReader
from sim_distributed.world_config import WorldConfig
from sim_master.api.hub import SnapshotHub
from sim_master.api.server import ApiServer
from sim_master.master.loop_calls import LoopCalls
from sim_master.master.stepping import PausedStepping
from sim_master.ros.convert import snapshot_from_msg, snapshot_to_msg, snapshot_to_packed_msg, stamp
from sim_master.store.mcap_log import ReplayLogWriter
from sim_msgs.msg import NodeStatus, StepDone, StepStart
from sim_msgs.msg import Snapshot as SnapshotMsg
from sim_msgs.srv import RegisterNode

log = logging.getLogger("soccersim.master")
DT = 0.02
CONTROL_EVERY_S = 0.02  # registrations and heartbeats are served at least this often


class DistributedMaster:
    def __init__(self, config: WorldConfig, context: rclpy.Context, cache: SnapshotCache, *,
                 heartbeat_s: float = 0.5, step_timeout: float = 1.0, policy: str = "pause",
                 report_every: int = 100) -> None:
        self.config = config
        self.cache = cache
        self.heartbeat_s, self.step_timeout, self.policy = heartbeat_s, step_timeout, policy
        self.report_every = report_every
        self.node = Node("sim_master", context=context)  # control plane: spun by an executor
        self.data_node = Node("sim_master_steps", context=context)  # data plane: read by hand
        self.expected = config.owners()
        self.roster = NodeRoster(self.expected, heartbeat_s)
        self.failed: str | None = None  # a node's reason for stopping: the run stops with it
        self.barrier = StepBarrier(self.expected, policy, step_timeout)
        self.step = 0
        self.world = Snapshot(0, 0.0, True, {})  # filled by the nodes' first answers
        self._changes = snapshot_to_packed_msg(Snapshot(0, 0.0, False, {}))  # the world's last step, for StepStart
        self._control_at = 0.0
        self.writer = PipelinedCacheWriter(cache, cache.url)  # Redis writes overlap the nodes' stepping
        self._unrecorded: Snapshot | None = None  # merged, not yet in Redis, the log and the report
        self.hashes: dict[int, dict[str, str]] = {}  # step -> node -> hash it reported
        self.master_hashes: dict[int, str] = {}
        self.rejoins: list[tuple[str, int]] = []
        self.trace: dict[int, dict[str, list[float]]] = {}  # step -> entity -> x, y (--trace, for reports)
        self.keep_trace = False
        self.log_writer: ReplayLogWriter | None = None  # when --log
        self.control = PausedStepping()  # pause, resume, step (the API's)
        self.waiting_for: set[str] = set()  # the barrier holds the step for these nodes (policy pause)
        self.steps_run = 0
        self.node_info: dict[str, tuple[str, str]] = {}  # node -> (engine, host) it registered with
        self.node_steps: dict[str, int] = {}  # node -> the last step its heartbeat said
        self.api_calls = LoopCalls()  # the gRPC API's calls, run between steps
        self.snapshot_hub: SnapshotHub | None = None  # fed while somebody streams (--grpc-port)
        n = self.node
        self.start_pub = self.data_node.create_publisher(StepStart, topics.STEP_START, topics.RELIABLE)
        self.done_reader = TopicReader(self.data_node, StepDone, topics.STEP_DONE, topics.RELIABLE)
        self.global_pub = n.create_publisher(SnapshotMsg, topics.GLOBAL, topics.LATCHED)
        n.create_subscription(NodeStatus, topics.STATUS, self._on_status, 50)
        n.create_service(RegisterNode, topics.REGISTER, self._on_register)
        try:
            saved = cache.load_master_state()
            latest = cache.latest()
            known = cache.nodes()
        except redis.RedisError as exc:  # the writer has said it once already when it is down
            log.warning("cannot read the cache to resume (%s): starting from the world config", exc)
            saved = latest = None
            known = {}
        if saved is not None and latest is not None:  # a restarted master resumes
            self.step = latest.step
            self.world = latest
            self._changes = snapshot_to_packed_msg(latest)  # full: nodes that missed steps catch up
            now = time.monotonic()
            self.roster.nodes = {node_id: NodeRecord(node_id, now) for node_id in known if node_id in self.expected}
            log.info("master resumes at step %d from Redis with nodes %s", self.step, sorted(self.nodes))

    @property
    def nodes(self) -> dict[str, NodeRecord]:
        return self.roster.nodes

    # ------------------------------------------------------------------ callbacks
    def _on_register(self, req: RegisterNode.Request, res: RegisterNode.Response) -> RegisterNode.Response:
        known = req.node_id in self.roster.nodes
        error = self.roster.register(req.node_id, time.monotonic())
        if error is not None:
            res.success, res.error = False, error
            if known:
                log.warning("node %s (%s) refused: %s", req.node_id, req.host[:64], error)
            return res
        if known and self.step > 0:
            self.rejoins.append((req.node_id, self.step))
            log.warning("node %s registers again at step %d: resuming from the cache", req.node_id, self.step)
        self.writer.register_node(req.node_id, {"engine": req.engine, "host": req.host})
        self.node_info[req.node_id] = (req.engine[:64], req.host[:128])
        res.success, res.world_config, res.bt_xml, res.current_step = (
            True,
            self.config.to_json(),
            self.config.bt_xml,
            self.step,
        )
        return res

    def _on_status(self, msg: NodeStatus) -> None:
        if msg.state == NodeStatus.STATE_DEAD and msg.node_id in self.expected and self.failed is None:
            self.failed = f"node {msg.node_id} stopped: {msg.reason or 'no reason given'}"[:400]
            log.error("%s", self.failed)
            return
        if self.roster.heard(msg.node_id, time.monotonic(), playing=msg.state != NodeStatus.STATE_REGISTERING):
            self.writer.heartbeat(msg.node_id, int(msg.last_step))
            self.node_steps[msg.node_id] = int(msg.last_step)

    def _on_done(self, msg: StepDone) -> None:
        if msg.step != self.barrier.step:
            return
        if msg.node_id not in self.expected:
            log.warning("step %d: StepDone from unknown node %r dropped", msg.step, msg.node_id[:64])
            return
        try:  # bad data from a node is that node's fault: its answer is dropped, never the master
            delta = snapshot_from_msg(msg.delta)
        except Exception as exc:  # noqa: BLE001 - any decoding failure of foreign bytes
            log.warning("step %d: node %s sent an unreadable delta (%s: %s): dropped", msg.step,
                        msg.node_id, type(exc).__name__, exc)
            return
        if self.barrier.answer(msg.node_id, msg.step, delta, msg.snapshot_hash):
            self.roster.heard(msg.node_id, time.monotonic(), playing=True)

    def serve_control(self, executor: rclpy.executors.Executor, *, force: bool = False) -> None:
        """Registrations and heartbeats, at most every CONTROL_EVERY_S unless forced."""
        self.api_calls.run_for(API_BUDGET_S)
        now = time.monotonic()
        if force or now - self._control_at >= CONTROL_EVERY_S:
            self._control_at = now
            self.record()
            self.writer.flush()  # a node that registers now resumes from the newest step
            executor.spin_once(timeout_sec=0.0)

    # ------------------------------------------------------------------ the loop
    def alive(self) -> set[str]:
        return self.roster.alive(time.monotonic())

    def wait_for_nodes(self, executor: rclpy.executors.Executor, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        said_at = time.monotonic()
        while not self.roster.complete():
            if self.failed is not None:
                raise RuntimeError(self.failed)
            now = time.monotonic()
            missing = sorted(self.expected - set(self.nodes))
            if now > deadline:
                raise RuntimeError(f"nodes missing after {timeout:g} s: {', '.join(missing)}")
            if now - said_at >= 5.0:  # the wait says what it waits for
                said_at = now
                log.info("waiting for node(s) %s (the world's assets are theirs; %.0f s left)",
                         clip(", ".join(missing), 200), deadline - now)
            self.serve_control(executor, force=True)
            time.sleep(0.01)
        if self.world.entities:
            self._publish_global()

    def run_step(self, executor: rclpy.executors.Executor) -> bool:
        """One lockstep step; False when it had to be repeated (policy pause)."""
        target = self.step + 1
        barrier = self.barrier
        barrier.begin(target, self.alive(), time.monotonic())
        want_hash = (target - 1) % self.report_every == 0
        self.start_pub.publish(StepStart(step=target, stamp=stamp(target * DT), dt=DT, world=self._changes,
                                         want_hash=want_hash))
        self.record()  # the previous step, while the nodes simulate this one
        while (outcome := barrier.outcome(time.monotonic())) is StepOutcome.WAITING:
            if self.failed is not None:
                return False
            msg = self.done_reader.next(CONTROL_EVERY_S)
            if msg is not None:
                self._on_done(msg)
            else:
                self.serve_control(executor)
        if outcome is StepOutcome.PAUSED:
            self.waiting_for = set(barrier.missing())
            log.warning("step %d: no answer from %s: paused", target, sorted(barrier.missing()))
            return False
        self.waiting_for = set()
        if outcome is StepOutcome.CONTINUED:
            log.warning("step %d: continuing without %s", target, sorted(barrier.missing()))
        if want_hash:  # the world of step target-1 they stepped on
            self.hashes.setdefault(target - 1, {}).update(barrier.hashes)
        delta = barrier.merged_delta(DT)
        self.world = self.world.merged(delta)
        self.step = target
        self.steps_run += 1
        self.control.cycle_done()
        self._changes = snapshot_to_packed_msg(delta)
        self._unrecorded = delta
        return True

    def record(self) -> None:
        """The newest merged step to Redis, the replay log, the report and the global topic
        (once). Called right after the next StepStart goes out, so it overlaps the nodes'
        stepping instead of delaying it."""
        delta, self._unrecorded = self._unrecorded, None
        if delta is None:
            return
        target = delta.step
        if self.keep_trace:
            self.trace[target] = {n: [e.position[0], e.position[1]] for n, e in self.world.entities.items()}
        if target % self.report_every == 0:
            self.master_hashes[target] = self.world.digest()
        if self.log_writer is not None:
            from rosgraph_msgs.msg import Clock

            snap = self.world if self.log_writer.wants_keyframe() else delta
            self.log_writer.write_cycle(target, target * DT, snapshot_to_msg(snap), None, [],
                                        Clock(clock=stamp(target * DT)))
        self.writer.put(self.world, delta, {"step": target}, delta_bytes=self._changes.packed)
        if self.snapshot_hub is not None and self.snapshot_hub.subscribers:
            self.snapshot_hub.publish_delta(delta)  # every step while streamed: the master's are deltas
        if target % self.report_every == 0:
            self._publish_global()  # for tools and monitors; nodes follow the StepStart changes

    def _publish_global(self) -> None:
        self.global_pub.publish(snapshot_to_msg(self.world))


def add_master_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, help="world config JSON (assets and owners)")
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--run", default="default")
    parser.add_argument("--policy", choices=["pause", "continue"], default="pause")
    parser.add_argument("--heartbeat", type=float, default=0.5)
    parser.add_argument("--step-timeout", type=float, default=1.0)
    parser.add_argument("--report", default=None, help="write hashes and timings here (JSON) at the end")
    parser.add_argument("--trace", action="store_true", help="keep every step's positions for the report")
    parser.add_argument("--fresh", action="store_true", help="ignore a previous run's state in Redis")
    parser.add_argument("--log", default=None, metavar="FILE.mcap", help="replay log (same format as single mode)")
    parser.add_argument("--grpc-port", type=int, default=50051,
                        help="the core API over gRPC, soccersim.v1 (default %(default)s; 0: a free one; -1: off)")
    parser.add_argument("--grpc-host", default="127.0.0.1",
                        help="its bind address (another than loopback needs TLS and a token, or --grpc-insecure)")
    parser.add_argument("--grpc-tls-cert", default=None, metavar="PEM")
    parser.add_argument("--grpc-tls-key", default=None, metavar="PEM")
    parser.add_argument("--grpc-token-file", default=None, metavar="FILE",
                        help="every call carries this token (also $SOCCERSIM_GRPC_TOKEN)")
    parser.add_argument("--grpc-insecure", action="store_true")


def serve_api(master: DistributedMaster, args: argparse.Namespace) -> ApiServer | None:
    """The gRPC API of this run (None when off or its port is taken: said, and the run goes on)."""
    if args.grpc_port < 0:
        return None
    from sim_distributed.api import DistributedApi
    from sim_master.api.server import Owner, Security, read_pem
    from sim_master.commands.server import grpc_token

    owner = Owner(DistributedApi(master), master.api_calls, capture=lambda: master.world, mode="distributed")
    master.snapshot_hub = owner.snapshots
    security = Security(grpc_token(args.grpc_token_file), read_pem(args.grpc_tls_cert, "--grpc-tls-cert"),
                        read_pem(args.grpc_tls_key, "--grpc-tls-key"), args.grpc_insecure)
    server = ApiServer(owner, args.grpc_host, args.grpc_port, security)
    try:
        server.start()
    except (RuntimeError, OSError) as exc:
        log.warning("gRPC API: cannot listen on %s:%s (%s); going on without it", args.grpc_host, args.grpc_port,
                    str(exc)[:120])
        master.snapshot_hub = None
        return None
    print(f"master: gRPC API (soccersim.v1): {server.address}", flush=True)
    return server


def run_master(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s: %(message)s")
    try:
        config = WorldConfig.load(args.config)
    except ValueError as exc:
        print(f"soccersim master: {exc}", file=sys.stderr)
        return 2
    problems = config.problems()
    if problems:  # before any node is waited for: they would fail on it one by one
        print(f"soccersim master: {args.config}: {problems[0]}"
              + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""), file=sys.stderr)
        return 2
    cache = SnapshotCache(args.redis, args.run)
    if args.fresh:
        try:
            cache.clear()
        except redis.RedisError as exc:
            log.warning("cannot clear the previous run from Redis (%s)", exc)
    context = rclpy.Context()
    rclpy.init(context=context, signal_handler_options=SignalHandlerOptions.NO)
    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    master = DistributedMaster(config, context, cache, heartbeat_s=args.heartbeat, step_timeout=args.step_timeout,
                               policy=args.policy)
    master.keep_trace = args.trace
    if args.log:
        from rclpy.serialization import serialize_message

        master.log_writer = ReplayLogWriter(args.log, serialize_message)
    executor = rclpy.executors.SingleThreadedExecutor(context=context)
    executor.add_node(master.node)  # not data_node: its StepDone answers are taken by the loop
    try:
        api = serve_api(master, args)
    except ValueError as exc:  # an unsafe or unreadable gRPC setup: one line
        print(f"soccersim master: {exc}", file=sys.stderr)
        return 2
    started = time.monotonic()
    first_step = master.step
    stepping_since = time.monotonic()
    try:
        try:
            master.wait_for_nodes(executor)
        except RuntimeError as exc:  # nodes missing, or one stopped with its reason
            print(f"soccersim master: {exc}", file=sys.stderr)
            return 1
        print(f"master: {len(master.nodes)} nodes, from step {master.step}", flush=True)
        stepping_since = time.monotonic()
        while master.step < args.steps and not stop["now"] and master.failed is None:
            if master.control.holds():  # paused through the API: calls and heartbeats go on
                master.serve_control(executor)
                time.sleep(0.002)
                continue
            master.run_step(executor)
            master.serve_control(executor)
            if master.step % 50 == 0:
                print(f"master: step {master.step}", flush=True)
    finally:
        # each part of shutting down on its own: a failing one (Redis gone, a full disk) must
        # not keep the log from being closed
        for what, close in (("last step", master.record), ("cache", master.writer.close)):
            try:
                close()
            except Exception as exc:  # noqa: BLE001 - reported, and the rest still runs
                log.warning("at exit, writing the %s failed: %s", what, exc)
        if master.log_writer is not None:
            master.log_writer.close()
            log.info("replay log %s closed at step %d", args.log, master.step)
        elapsed = time.monotonic() - started
        if args.report:
            with open(args.report, "w") as f:
                json.dump(
                    {
                        "step": master.step,
                        "first_step": first_step,
                        "elapsed_s": elapsed,
                        "stepping_s": time.monotonic() - stepping_since,
                        "hashes": {str(k): v for k, v in master.hashes.items()},
                        "master_hashes": {str(k): v for k, v in master.master_hashes.items()},
                        "rejoins": master.rejoins,
                        "redis_outages": master.writer.outages,
                        "trace": {str(k): v for k, v in master.trace.items()},
                        "world": {n: list(e.position) for n, e in master.world.entities.items()},
                    },
                    f,
                )
        master.control.cancel_steps()
        master.api_calls.fail_pending("master stopped")
        if api is not None:
            api.close()
        master.node.destroy_node()
        master.data_node.destroy_node()
        if context.ok():
            rclpy.shutdown(context=context)
    if master.failed is not None:
        print(f"soccersim master: {master.failed}", file=sys.stderr)
    return 0 if master.step >= args.steps else 1


def main(argv: list[str] | None = None) -> int:
    from sim_master.cli import OneLineErrors

    parser = OneLineErrors(description="the master of a distributed run")
    add_master_arguments(parser)
    return run_master(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
