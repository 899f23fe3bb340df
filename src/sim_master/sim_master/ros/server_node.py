"""The ROS 2 face of the single-mode server: the design's three nodes, composed in this
process on one executor (two threads); the services that wait for the loop are coroutines
(ros/loop_await.py), so no request holds a thread while the loop answers it.

- the simulation node (`/soccersim`, this package): /clock, entity and joint states, /tf,
  the entity services of the ROS simulation standard and of gazebo_ros, the settings as
  parameters, ROS-native players' topics, and `~/add_player`/`~/beam_player` (a robot made
  or placed for a player the referee admitted);
- the referee node (`/soccer_referee`, soccer_referee.ros.referee_node): /game_state,
  /game_events, init_agent, beam_agent, set_play_mode, move_entity;
- the bridge node (`/soccer_bridge`, sim_bridge.ros.bridge_node): the TCP agents on their
  player topics.

The loop drives all three in lockstep: to the loop this is an adapter (it publishes each
finished cycle, cheap and skipped when nobody listens) and the percept outlet of ROS-native
players; every service callback hands its work to the loop through LoopCalls, so engine and
referee stay single-threaded. With `referee: external` the referee node runs in its own
process and the loop asks it through `remote_referee.RemoteReferee`."""
from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Final

import rclpy
from builtin_interfaces.msg import Time
from geometry_msgs.msg import TransformStamped
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.publisher import Publisher
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Empty, String
from visualization_msgs.msg import MarkerArray

from sim_bridge.dialects import all_dialects
from sim_bridge.ros.audience import Audience
from sim_bridge.ros.bridge_node import BridgeNode
from sim_bridge.ros.cdr_path import CdrPath, cdr_path
from sim_bridge.ros.cdr_path import warning as cdr_warning
from sim_bridge.ros.lean_reader import NO_PUB_EVENTS, NO_SUB_EVENTS, ReadByInbox, never_called
from sim_bridge.ros.qos import PERCEPT_QOS
from sim_contracts.commands import JointTargets, JointVelocities
from sim_master.master.adapters import LoopAdapter
from sim_master.ros.convert import joint_command_msg, percept_to_msg, snapshot_to_msg, stamp
from sim_master.ros.drawings import DrawingSource, marker_view
from sim_master.ros.executor_thread import ExecutorThread
from sim_master.ros.frames import robot_description, tf_cdr, tf_messages
from sim_master.ros.gazebo_services import GazeboServices
from sim_master.ros.loop_await import on_loop
from sim_master.ros.markers import loop_markers
from sim_master.ros.names import player_namespace, ros_entity_path, ros_token
from sim_master.ros.parameters import declare as declare_parameters
from sim_master.ros.player_inbox import InboxEntry, PlayerInbox
from sim_master.ros.service_guard import guarded
from sim_master.ros.simulation_services import SimulationServices
from sim_msgs.msg import Beam, JointCommand, Say, Snapshot
from sim_msgs.msg import Percept as PerceptMsg
from sim_msgs.srv import BeamAgent, InitAgent
from soccer_referee.ros.messages import event_to_msg, game_state_to_msg
from soccer_referee.ros.referee_node import JOIN_QOS, RefereeNode, init_response
from tf2_msgs.msg import TFMessage

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sim_contracts.commands import Command
    from sim_contracts.percept import Percept
    from sim_master.master.adapters import CycleView
    from sim_master.master.loop import SimulationLoop
    from sim_master.master.players import Player
    from soccer_referee.events import GameEvent as RefereeEvent

_log = logging.getLogger("soccersim.ros")

GAME_STATE_QOS: Final = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                                   reliability=ReliabilityPolicy.RELIABLE,
                                   durability=DurabilityPolicy.TRANSIENT_LOCAL)
RELIABLE: Final = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
STATES_EVERY: Final = 5  # entity and joint states every 5th cycle (10 Hz of sim time)
STEP_TIMEOUT_S: Final = 120.0
CLOCK_CHECK_EVERY: Final = 500  # cycles between two looks for another publisher on the clock
LEGACY_SOURCES: Final = tuple(all_dialects())  # TCP agents, mirrored on their player topics
REFEREE_NODE: Final = "soccer_referee"
BRIDGE_NODE: Final = "soccer_bridge"


def joint_command(data: bytes | JointCommand,
                  path: CdrPath | None = None) -> tuple[JointVelocities | JointTargets | str, bool]:
    """A JointCommand (serialized, or rclpy's message where the CDR path does not fit) as the
    loop's command (or why it cannot be one) and whether it also synchronizes. Bytes are read by
    sim_hotpath (rclpy's conversion of 22 names was most of a ROS player's cost to the server)."""
    try:
        mode, names, velocities, q, dq, kp, kd, tau, synchronize = (path or cdr_path()).joint_command_in(data)
    except ValueError as exc:
        return str(exc), False
    if mode == JointCommand.MODE_VELOCITY:
        if len(velocities) != len(names):
            return f"joint_command: {len(names)} names but {len(velocities)} velocities", synchronize
        return JointVelocities(dict(zip(names, velocities, strict=True))), synchronize
    if mode != JointCommand.MODE_PD:
        return f"joint_command: mode {mode} is neither MODE_VELOCITY (0) nor MODE_PD (1)", synchronize
    if any(len(a) != len(names) for a in (q, dq, kp, kd, tau)):
        return "joint_command: q, dq, kp, kd, tau must have the length of names", synchronize
    return JointTargets(dict(zip(names, zip(q, dq, kp, kd, tau, strict=True), strict=True))), synchronize


def sibling_args(ros_args: list[str]) -> list[str]:
    """The process's ROS arguments for the nodes composed beside the simulation node: all but
    a node name (`-r __node:=name`, as launch gives the process's node), which would rename
    every node in the process alike."""
    out: list[str] = []
    skip = False
    for i, arg in enumerate(ros_args):
        if skip:
            skip = False
            continue
        following = ros_args[i + 1] if i + 1 < len(ros_args) else ""
        if arg in ("-r", "--remap") and "__node:=" in following:
            skip = True
            continue
        if "__node:=" in arg or arg.startswith("__name:="):
            continue
        out.append(arg)
    return out if "--ros-args" in out else ["--ros-args", *out]


class RosoutHandler(logging.Handler):
    """Python log records of the server through the node's ROS logger (to /rosout, where ROS
    tools read them); INFO and above, as the console shows them."""

    def __init__(self, node: Node) -> None:
        super().__init__(logging.INFO)
        self._logger = node.get_logger()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = f"{record.name}: {record.getMessage()}"
            if record.levelno >= logging.ERROR:
                self._logger.error(text)
            elif record.levelno >= logging.WARNING:
                self._logger.warning(text)
            else:
                self._logger.info(text)
        except Exception:  # noqa: BLE001 - a log line must never take the server down
            self.handleError(record)


class RosPlayer:
    """Topics of one ROS-native player under /<team>/p<unum>/."""

    def __init__(self, owner: ServerNode, player: Player) -> None:
        self.player = player
        node = owner.node
        ns = player_namespace(player.team, player.unum, owner.namespace)
        self.namespace = ns
        # no QoS event handlers: each is a waitable that every wake of the server's executor
        # walks in Python (22 players' default handlers cost it ~4 ms per cycle, issue 28)
        self.percept_pub = node.create_publisher(PerceptMsg, f"{ns}/percept", PERCEPT_QOS,
                                                 event_callbacks=NO_PUB_EVENTS)
        self.joint_state_pub = node.create_publisher(JointState, f"{ns}/joint_states", 10,
                                                     event_callbacks=NO_PUB_EVENTS)
        agent, server = player.agent_id, owner.server

        path = owner.cdr

        def command_and_sync(data: bytes | JointCommand) -> Callable[[], None]:
            command, synchronize = joint_command(data, path)  # read on the inbox's thread

            def apply() -> None:
                server.player_joint_command(agent, command)
                if synchronize:
                    server.player_synchronize(agent)
            return apply

        # read by the server's PlayerInbox, not the executor; each message's work runs on the
        # loop, in this order per wake. Joint commands come raw (bytes, read by sim_hotpath)
        # where the CDR path fits (sim_bridge.ros.cdr_path), else as rclpy's messages.
        handlers: list[tuple[type, str, Callable[[Any], Callable[[], None]]]] = [
            (JointCommand, "joint_command", command_and_sync),
            (Beam, "beam", lambda m: partial(server.player_beam, agent, m.x, m.y, m.rotation)),
            (Say, "say", lambda m: partial(server.player_say, agent, m.message)),
            (Empty, "synchronize", lambda _m: partial(server.player_synchronize, agent)),
        ]
        self.subs = [node.create_subscription(kind, f"{ns}/effectors/{topic}", never_called, RELIABLE,
                                              callback_group=owner.inbox_group, event_callbacks=NO_SUB_EVENTS,
                                              raw=kind is JointCommand and path.raw)
                     for kind, topic, _ in handlers]
        self.inbox_entry = InboxEntry(agent, [(sub, fn) for sub, (_, _, fn) in zip(self.subs, handlers, strict=True)])

    def destroy(self, node: Node) -> None:
        for sub in self.subs:
            node.destroy_subscription(sub)
        node.destroy_publisher(self.percept_pub)
        node.destroy_publisher(self.joint_state_pub)


class ServerNode(LoopAdapter):
    name = "ROS nodes"

    def __init__(self, server: SimulationLoop, context: rclpy.Context, name: str = "soccersim", *,
                 referee: bool = True, bridge_ports: dict[str, int] | None = None,
                 ros_args: list[str] | None = None, drawing: DrawingSource | None = None) -> None:
        self.server = server
        self.drawing = drawing  # agents' RoboViz drawings (server/draw_feed.py), when their port is open
        self.context = context
        self.node = Node(name, context=context)
        node = self.node
        self.cdr = cdr_path()  # the players' messages: sim_hotpath's bytes, or rclpy's messages
        if (line := cdr_warning(self.cdr)) is not None:
            server.log.warning("%s", line)
        # /clock is global, as ROS tools expect, for a server in the root namespace; a server in
        # a namespace publishes <ns>/clock, so two matches in one domain do not interleave their
        # times (its ROS nodes remap: -r /clock:=<ns>/clock); the rest follows the namespace
        self.namespace = node.get_namespace()  # fixed for the node's life: asked of rcl once
        self.clock_topic = "/clock" if self.namespace == "/" else f"{self.namespace}/clock"
        self.audience = Audience()  # who listens, asked of DDS a few times a second
        self._namespaces: dict[tuple[str, int], str] = {}  # (team, unum) -> the player's namespace
        self.clock_pub = node.create_publisher(Clock, self.clock_topic, 10)
        self._clock_checked_at = 0
        self._clock_warned = False
        self.entities_pub = node.create_publisher(Snapshot, "entity_states", 10)
        self.tf_pub = node.create_publisher(TFMessage, "tf", 10)
        self.tf_static_pub = node.create_publisher(TFMessage, "tf_static", GAME_STATE_QOS)
        self.markers_pub = node.create_publisher(MarkerArray, "markers", 10)  # the match drawn, at tf_rate
        # agents' RoboViz drawings, whole, when what is shown changes (latched: a late viewer gets them)
        self.drawings_pub = node.create_publisher(MarkerArray, "drawings", GAME_STATE_QOS)
        self._drawn_version = -1
        self._static: list[TransformStamped] = []  # every robot's fixed joints, latched together
        self._static_done: set[str] = set()
        self._descriptions: dict[str, Publisher] = {}  # model -> its latched robot_description
        self._urdf: dict[str, str] = {}
        self._robot_descriptions: dict[str, Publisher] = {}  # entity -> <entity>/robot_description
        self._tf_period = 1.0 / server.config.tf_rate  # s of sim time between two /tf messages
        self._tf_last = -1e9
        self._robots_key: tuple[str, ...] = ()
        self._models: dict[str, str] = {}
        self.players: dict[str, RosPlayer] = {}
        self.inbox_group = ReadByInbox()
        self.inbox = PlayerInbox(context, node.count_publishers, self._player_gone, server.calls.submit)
        group = ReentrantCallbackGroup()
        services = [(InitAgent, "~/add_player", self._add_player), (BeamAgent, "~/beam_player", self._beam_player)]
        self.services = [node.create_service(t, n, guarded(n, cb), callback_group=group, qos_profile=JOIN_QOS)
                         for t, n, cb in services]
        # the settings, with descriptions and ranges; read-only but for the dynamic ones
        declare_parameters(node, server.config, self._parameter_changed)
        self.simulation = SimulationServices(server, node)  # the ROS simulation standard's services
        self.gazebo = GazeboServices(server, node)  # gazebo_ros's, for scripts written for Gazebo
        # the referee's node (unless it runs in its own process) and the bridge's
        siblings = sibling_args(ros_args or [])
        self.referee: RefereeNode | None = RefereeNode(self, context, REFEREE_NODE, cli_args=siblings) \
            if referee else None
        # the bridge's node where this process has agent ports (a bridge in its own process has its own)
        self.bridge: BridgeNode | None = BridgeNode(context, BRIDGE_NODE, ports=bridge_ports, cli_args=siblings) \
            if bridge_ports else None
        self.executor = ExecutorThread(context)
        for each in (node, self.referee.node if self.referee else None, self.bridge.node if self.bridge else None):
            if each is not None:
                self.executor.add(each)
        self.rosout = RosoutHandler(node)  # the server's log lines reach /rosout through the node

    def start(self) -> None:
        self.executor.start()
        self.inbox.start()
        logging.getLogger("soccersim").addHandler(self.rosout)

    def close(self) -> None:
        logging.getLogger("soccersim").removeHandler(self.rosout)
        self.inbox.stop()
        self.executor.stop()
        if self.referee is not None:
            self.referee.destroy()
        if self.bridge is not None:
            self.bridge.destroy()
        self.node.destroy_node()

    # ------------------------------------------------------------------ loop adapter (loop thread)
    def on_cycle(self, loop: CycleView, events: Sequence[RefereeEvent]) -> None:
        t = stamp(loop.engine.time)
        if self.audience.listening(self.clock_pub):
            self.clock_pub.publish(Clock(clock=t))
        if loop.engine.cycle >= self._clock_checked_at:  # every 10 s of sim time
            self._clock_checked_at = loop.engine.cycle + CLOCK_CHECK_EVERY
            self._check_clock_alone()
        if self.referee is not None:
            self.referee.publish(game_state_to_msg(loop.referee.state, t), [event_to_msg(e, t) for e in events])
        if loop.engine.cycle % STATES_EVERY == 0:
            if self.audience.listening(self.entities_pub):
                self.entities_pub.publish(snapshot_to_msg(loop.engine.snapshot()))
            for ros_player in self.players.values():
                if self.audience.listening(ros_player.joint_state_pub):
                    ros_player.joint_state_pub.publish(self._joint_state(ros_player.player, loop.engine.time))
        self._publish_frames(loop, t)
        drawn = marker_view(self.drawing)  # agents' RoboViz drawings, drawn off this thread
        if drawn is not None and drawn[0] != self._drawn_version:
            self._drawn_version = drawn[0]
            self.drawings_pub.publish(drawn[1])

    def _check_clock_alone(self) -> None:
        """Another publisher on our clock topic (a second server, a replay) makes every
        use_sim_time node's time jump back and forth: said once, with the way out."""
        others = self.node.count_publishers(self.clock_topic) - 1
        if others > 0 and not self._clock_warned:
            self._clock_warned = True
            _log.warning("%d other publisher(s) on %s: use_sim_time nodes will see time jump; run each "
                         "server in its own namespace (-r __ns:=/m1, its clock is then /m1/clock) or domain",
                         others, self.clock_topic)

    def _publish_frames(self, loop: CycleView, t: Time) -> None:
        """/tf (each robot's tree; at `tf_rate` Hz of sim time, only while somebody listens),
        /tf_static (fixed joints, latched), and latched descriptions: per robot at
        <entity>/robot_description (its links are its frames after the prefix <entity>/) and per
        model at robot_description/<model>."""
        engine = loop.engine
        key = tuple(engine.robot_ids())
        if key != self._robots_key:  # a robot came or went
            self._robots_key = key
            self._models = {rid: engine.robot_model(rid) for rid in key}
            self._robots_changed()
        wants_tf = self.audience.listening(self.tf_pub) or self.audience.listening(self.tf_static_pub)
        wants_markers = self.audience.listening(self.markers_pub)
        if (wants_tf or wants_markers) and engine.time - self._tf_last >= self._tf_period - 1e-9:
            self._tf_last = engine.time
            if wants_markers:
                self.markers_pub.publish(loop_markers(loop, t))
        if wants_tf and self._tf_last == engine.time:
            names, poses = engine.frames()
            if self._static_done.issuperset(self._models):  # every fixed joint sent: bytes of the plan
                self.tf_pub.publish(tf_cdr(names, poses, t, self._models, fixed=False))
                return
            moving, fixed = tf_messages(names, poses, self._models, t, self._static_done)
            self.tf_pub.publish(moving)
            if fixed:
                self._static += fixed
                self.tf_static_pub.publish(TFMessage(transforms=self._static))

    def _robots_changed(self) -> None:
        gone = [rid for rid in self._robot_descriptions if rid not in self._models]
        for rid in gone:
            self.node.destroy_publisher(self._robot_descriptions.pop(rid))
        if gone:
            self._static_done.difference_update(gone)
            self._static = [s for s in self._static if s.header.frame_id.rsplit("/", 1)[0] not in gone]
            self.tf_static_pub.publish(TFMessage(transforms=self._static))
        for robot_id, model in self._models.items():
            if robot_id in self._robot_descriptions:
                continue
            urdf = self._description(model)
            pub = self.node.create_publisher(String, f"{ros_entity_path(robot_id)}/robot_description", GAME_STATE_QOS,
                                             event_callbacks=NO_PUB_EVENTS)
            if urdf:
                pub.publish(String(data=urdf))
            self._robot_descriptions[robot_id] = pub

    def _parameter_changed(self, name: str, value: Any) -> None:
        """(executor thread) A dynamic parameter's new, checked value: to the loop (its control
        tells every adapter, this one too: `on_setting`)."""
        self.server.calls.submit(lambda: self.server.control.change_setting(name, value))

    def _description(self, model: str) -> str:
        if model not in self._descriptions:
            try:
                urdf = robot_description(model)
            except (ValueError, OSError) as exc:  # a model only the engine knows (SDF text): none
                _log.info("no robot_description for %s: %s", model, exc)
                urdf = ""
            pub = self.node.create_publisher(String, f"robot_description/{ros_token(model)}", GAME_STATE_QOS)
            if urdf:
                pub.publish(String(data=urdf))
            self._descriptions[model] = pub
            self._urdf[model] = urdf
        return self._urdf[model]

    def on_setting(self, name: str, value: object) -> None:
        if name == "tf_rate":
            self._tf_period = 1.0 / float(str(value))

    def on_effector(self, loop: CycleView, player: Player, command: Command) -> None:
        if self.bridge is not None and player.source in LEGACY_SOURCES and player.registered:
            ns = self._namespace(player)
            if self.bridge.wants_commands(player.agent_id, ns) and (msg := joint_command_msg(command)) is not None:
                self.bridge.mirror_command(player.agent_id, ns, msg)

    def on_percept(self, loop: CycleView, player: Player, percept: Percept) -> None:
        if self.bridge is not None and player.source in LEGACY_SOURCES and player.registered:
            ns = self._namespace(player)
            if self.bridge.wants_percepts(player.agent_id, ns):
                self.bridge.mirror_percept(player.agent_id, ns,
                                           percept_to_msg(percept, stamp(percept.time), player.side, player.unum))

    def on_player_left(self, loop: CycleView, agent_id: str) -> None:
        if self.bridge is not None:
            self.bridge.forget(agent_id)
        ros_player = self.players.pop(agent_id, None)
        if ros_player is not None:  # its topics go with it
            self.inbox.remove(agent_id)
            ros_player.destroy(self.node)

    def _player_gone(self, agent_id: str) -> None:
        """(inbox thread) Every publisher of the player's effector topics has gone: its node
        left the graph, its process ended. It leaves, as a TCP agent whose connection closed."""
        def leave() -> None:
            player = self.server.players.get(agent_id)
            if player is not None:
                self.server.log.info("ROS player %s left: no publisher on its effector topics (gone, or none "
                                     "came after it joined)", self._namespace(player))
                self.server.remove_player(agent_id)
        self.server.calls.submit(leave)

    def _namespace(self, player: Player) -> str:
        key = (player.team, player.unum)
        ns = self._namespaces.get(key)
        if ns is None:  # asked twice a cycle per agent: made once
            ns = self._namespaces[key] = player_namespace(player.team, player.unum, self.namespace)
        return ns

    def wants_vision(self, agent_id: str) -> bool:
        """ROS players see every third cycle, each in its own phase (by unum), as SimSpark's."""
        player = self.server.players.get(agent_id)
        return player is not None and (self.server.engine.cycle - player.unum) % 3 == 0

    def send_percept(self, agent_id: str, percept: Percept) -> None:
        ros_player = self.players.get(agent_id)
        if ros_player is None:
            return
        p = ros_player.player
        t = stamp(percept.time)
        # serialized by sim_hotpath where the CDR path fits (10x rclpy's conversion; the
        # contract tests hold the two equal), else rclpy's message
        ros_player.percept_pub.publish(self.cdr.percept_out(percept, t, p.side, p.unum))

    def _joint_state(self, player: Player, t: float) -> JointState:
        entity = self.server.engine.snapshot().entities[player.robot_id]
        msg = JointState()
        msg.header.stamp = stamp(t)
        msg.name = list(entity.joint_names)
        msg.position = list(entity.joint_positions)
        msg.velocity = list(entity.joint_velocities)
        return msg

    # ------------------------------------------------------------------ the referee node's host (executor threads)
    async def _call(self, fn, timeout: float = 10.0):
        """`fn` run by the loop, awaited: the executor's threads serve other requests meanwhile."""
        return await on_loop(self.server.calls, self.node, self.executor.executor, fn, timeout)

    async def init_agent(self, team: str, unum: int, model: str, perception: str) -> tuple[int, str, str] | str:
        """A robot for a ROS-native player (or a bridged agent), joined to its team."""
        outcome = await self._call(lambda: self._join(team, unum, model, perception))
        if isinstance(outcome, str):
            return outcome
        return outcome.unum, outcome.side, self._namespace(outcome)

    def _join(self, team: str, unum: int, model: str, perception: str) -> Player | str:
        """(loop thread) The player joins with its topics; /game_state says so at once, also
        while the simulation is held for the teams (no cycle publishes it then)."""
        outcome = self.server.add_messaging_player(team, unum, model, perception)
        if isinstance(outcome, str):
            return outcome
        # its topics, made here on the loop's thread as its leaving removes them: a player that
        # leaves before the caller hears back leaves nothing behind
        ros_player = RosPlayer(self, outcome)
        self.players[outcome.agent_id] = ros_player
        self.inbox.add(ros_player.inbox_entry)
        if self.referee is not None:
            self.referee.publish(game_state_to_msg(self.server.referee.state, stamp(self.server.engine.time)), [])
        return outcome

    async def beam_agent(self, team: str, unum: int, x: float, y: float, rotation: float) -> str | None:
        return await self._call(lambda: self.server.control.beam_player(team, unum, x, y, rotation))

    async def set_play_mode(self, name: str) -> str | None:
        return await self._call(lambda: self.server.control.set_play_mode(name))

    async def move_entity(self, entity: str, position: tuple[float, float, float], rotation: float,
                          velocity: tuple[float, float, float]) -> str | None:
        return await self._call(lambda: self.server.control.move_entity(entity, position, rotation, velocity))

    # ------------------------------------------------------------------ the simulation's own services
    async def _add_player(self, req: InitAgent.Request, res: InitAgent.Response) -> InitAgent.Response:
        joined = await self.init_agent(req.team, req.unum, req.robot_model or "nao0", req.perception)
        return init_response(joined, res)

    async def _beam_player(self, req: BeamAgent.Request, res: BeamAgent.Response) -> BeamAgent.Response:
        error = await self.beam_agent(req.team, req.unum, req.x, req.y, req.rotation)
        res.success, res.error = error is None, error or ""
        return res
