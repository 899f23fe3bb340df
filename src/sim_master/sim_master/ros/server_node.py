"""The ROS 2 face of the single-mode server: /clock, /game_state, entity and joint states,
the soccer services, ROS-native players, and the ROS simulation standard's services
(`simulation_services.py`).

Runs in the server's process on its own executor thread. To the loop it is an adapter (it
publishes each finished cycle, cheap and skipped when nobody listens, and mirrors legacy
agents' percepts and commands) and the percept outlet of ROS-native players; every service
callback hands its work to the loop through LoopCalls, so engine and referee stay
single-threaded."""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Final

import rclpy
from builtin_interfaces.msg import Time
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.publisher import Publisher
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Empty, String

from sim_contracts.commands import JointTargets, JointVelocities
from sim_master.master.adapters import LoopAdapter
from sim_master.ros.convert import joint_command_msg, percept_to_msg, snapshot_to_msg, stamp
from sim_master.ros.executor_thread import ExecutorThread
from sim_master.ros.frames import robot_description, tf_message
from sim_master.ros.gazebo_services import GazeboServices
from sim_master.ros.names import player_namespace, ros_token
from sim_master.ros.parameters import declare as declare_parameters
from sim_master.ros.service_guard import guarded
from sim_master.ros.simulation_services import SimulationServices
from sim_msgs.msg import Beam, GameEvent, GameState, JointCommand, Say, Snapshot
from sim_msgs.msg import Percept as PerceptMsg
from sim_msgs.srv import BeamAgent, InitAgent, MoveEntity, SetPlayMode
from soccer_referee.ros.messages import event_to_msg, game_key, game_state_to_msg
from tf2_msgs.msg import TFMessage

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sim_contracts.commands import Command
    from sim_contracts.percept import Percept
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
LEGACY_SOURCES: Final = ("simspark", "rcsssmj")  # TCP agents, mirrored on their player topics


def joint_command(msg: JointCommand) -> JointVelocities | JointTargets | str:
    """A JointCommand message as the loop's command, or why it cannot be one."""
    names = list(msg.names)
    if msg.mode == JointCommand.MODE_VELOCITY:
        if len(msg.velocities) != len(names):
            return f"joint_command: {len(names)} names but {len(msg.velocities)} velocities"
        return JointVelocities({n: float(v) for n, v in zip(names, msg.velocities, strict=True)})
    arrays = (msg.q, msg.dq, msg.kp, msg.kd, msg.tau)
    if any(len(a) != len(names) for a in arrays):
        return "joint_command: q, dq, kp, kd, tau must have the length of names"
    return JointTargets({n: (float(msg.q[i]), float(msg.dq[i]), float(msg.kp[i]), float(msg.kd[i]), float(msg.tau[i]))
                         for i, n in enumerate(names)})


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
        ns = player_namespace(player.team, player.unum, node.get_namespace())
        self.namespace = ns
        self.percept_pub = node.create_publisher(PerceptMsg, f"{ns}/percept", qos_profile_sensor_data)
        self.joint_state_pub = node.create_publisher(JointState, f"{ns}/joint_states", 10)
        calls, agent = owner.server.calls, player.agent_id
        server = owner.server
        self.subs = [
            node.create_subscription(
                JointCommand,
                f"{ns}/effectors/joint_command",
                lambda m: calls.submit(lambda: server.ros_joint_command(agent, joint_command(m))),
                RELIABLE,
            ),
            node.create_subscription(
                Beam,
                f"{ns}/effectors/beam",
                lambda m: calls.submit(lambda: server.ros_beam(agent, m.x, m.y, m.rotation)),
                RELIABLE,
            ),
            node.create_subscription(
                Say, f"{ns}/effectors/say", lambda m: calls.submit(lambda: server.ros_say(agent, m.message)), RELIABLE
            ),
            node.create_subscription(
                Empty,
                f"{ns}/effectors/synchronize",
                lambda _m: calls.submit(lambda: server.ros_synchronize(agent)),
                RELIABLE,
            ),
        ]

    def destroy(self, node: Node) -> None:
        for sub in self.subs:
            node.destroy_subscription(sub)
        node.destroy_publisher(self.percept_pub)
        node.destroy_publisher(self.joint_state_pub)


class ServerNode(LoopAdapter):
    name = "ROS node"

    def __init__(self, server: SimulationLoop, context: rclpy.Context, name: str = "soccersim") -> None:
        self.server = server
        self.context = context
        self.node = Node(name, context=context)
        node = self.node
        # /clock is global, as ROS tools expect; the rest follows the server's namespace
        self.clock_pub = node.create_publisher(Clock, "/clock", 10)
        self.game_pub = node.create_publisher(GameState, "game_state", GAME_STATE_QOS)
        self.events_pub = node.create_publisher(GameEvent, "game_events", 50)
        self.entities_pub = node.create_publisher(Snapshot, "entity_states", 10)
        self.tf_pub = node.create_publisher(TFMessage, "tf", 10)
        self._descriptions: dict[str, Publisher] = {}  # model -> its latched robot_description
        self.players: dict[str, RosPlayer] = {}
        self._legacy: dict[str, tuple[str, Publisher, Publisher]] = {}  # agent -> (namespace, percept, command)
        self._last_game_state: GameState | None = None
        group = ReentrantCallbackGroup()
        services = [
            (InitAgent, "~/init_agent", self._init_agent), (BeamAgent, "~/beam_agent", self._beam_agent),
            (SetPlayMode, "~/set_play_mode", self._set_play_mode), (MoveEntity, "~/move_entity", self._move_entity),
        ]
        self.services = [node.create_service(t, n, guarded(n, cb), callback_group=group) for t, n, cb in services]
        declare_parameters(node, server.config)  # the settings, read-only, with descriptions and ranges
        self.simulation = SimulationServices(server, node)  # the ROS simulation standard's services
        self.gazebo = GazeboServices(server, node)  # gazebo_ros's, for scripts written for Gazebo
        node.create_timer(0.1, self._republish_game_state, callback_group=group)
        self.executor = ExecutorThread(context)
        self.executor.add(node)
        self.rosout = RosoutHandler(node)  # the server's log lines reach /rosout through the node

    def start(self) -> None:
        self.executor.start()
        logging.getLogger("soccersim").addHandler(self.rosout)

    def close(self) -> None:
        logging.getLogger("soccersim").removeHandler(self.rosout)
        self.executor.stop()
        self.node.destroy_node()

    # ------------------------------------------------------------------ loop adapter (loop thread)
    def on_cycle(self, loop: SimulationLoop, events: Sequence[RefereeEvent]) -> None:
        t = stamp(loop.engine.time)
        self.publish_cycle(game_state_to_msg(loop.referee.state, t), [event_to_msg(e, t) for e in events],
                           loop.engine.cycle)
        if loop.engine.cycle % STATES_EVERY == 0:
            self._publish_frames(loop, t)

    def _publish_frames(self, loop: SimulationLoop, t: Time) -> None:
        """/tf for viewers (10 Hz of sim time, only while somebody listens) and a latched
        robot_description/<model> for each model in play."""
        if self.tf_pub.get_subscription_count() > 0:
            names, poses = loop.engine.frames()
            self.tf_pub.publish(tf_message(names, poses, t))
        for robot_id in loop.engine.robot_ids():
            model = loop.engine.robot_model(robot_id)
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

    def on_effector(self, loop: SimulationLoop, player: Player, command: Command) -> None:
        if player.source in LEGACY_SOURCES:
            msg = joint_command_msg(command)
            if msg is not None:
                self.mirror_legacy(player, command=msg)

    def on_percept(self, loop: SimulationLoop, player: Player, percept: Percept) -> None:
        if player.source in LEGACY_SOURCES:
            self.mirror_legacy(player, percept=percept)

    def on_player_left(self, loop: SimulationLoop, agent_id: str) -> None:
        self.forget_legacy(agent_id)

    def wants_vision(self, agent_id: str) -> bool:
        """ROS players see every third cycle, each in its own phase (by unum), as SimSpark's."""
        player = self.server.players.get(agent_id)
        return player is not None and (self.server.engine.cycle - player.unum) % 3 == 0

    def publish_cycle(self, game_state: GameState, events: list[GameEvent], cycle: int) -> None:
        t = self.server.engine.time
        self.clock_pub.publish(Clock(clock=stamp(t)))
        if self._last_game_state is None or game_key(self._last_game_state) != game_key(game_state):
            self.game_pub.publish(game_state)
        self._last_game_state = game_state
        for event in events:
            self.events_pub.publish(event)
        if cycle % STATES_EVERY == 0:
            if self.entities_pub.get_subscription_count() > 0:
                self.entities_pub.publish(snapshot_to_msg(self.server.engine.snapshot()))
            for ros_player in self.players.values():
                if ros_player.joint_state_pub.get_subscription_count() > 0:
                    ros_player.joint_state_pub.publish(self._joint_state(ros_player.player, t))

    def send_percept(self, agent_id: str, percept: Percept) -> None:
        ros_player = self.players.get(agent_id)
        if ros_player is None:
            return
        p = ros_player.player
        ros_player.percept_pub.publish(percept_to_msg(percept, stamp(percept.time), p.side, p.unum))

    def mirror_legacy(self, player: Player, percept: Percept | None = None,
                      command: JointCommand | None = None) -> None:
        """A TCP agent's percept and joint commands on its player topics, for ROS tools
        (published only while somebody listens)."""
        if not player.registered:
            return
        pubs = self._legacy.get(player.agent_id)
        if pubs is None or pubs[0] != player.namespace:
            ns = player_namespace(player.team, player.unum, self.node.get_namespace())
            pubs = (player.namespace, self.node.create_publisher(PerceptMsg, f"{ns}/percept", qos_profile_sensor_data),
                    self.node.create_publisher(JointCommand, f"{ns}/effectors/joint_command", RELIABLE))
            self._legacy[player.agent_id] = pubs
        _, percept_pub, command_pub = pubs
        if percept is not None and percept_pub.get_subscription_count() > 0:
            percept_pub.publish(percept_to_msg(percept, stamp(percept.time), player.side, player.unum))
        if command is not None and command_pub.get_subscription_count() > 0:
            command_pub.publish(command)

    def forget_legacy(self, agent_id: str) -> None:
        pubs = self._legacy.pop(agent_id, None)
        if pubs is not None:
            self.node.destroy_publisher(pubs[1])
            self.node.destroy_publisher(pubs[2])

    def _joint_state(self, player: Player, t: float) -> JointState:
        entity = self.server.engine.snapshot().entities[player.robot_id]
        msg = JointState()
        msg.header.stamp = stamp(t)
        msg.name = list(entity.joint_names)
        msg.position = list(entity.joint_positions)
        msg.velocity = list(entity.joint_velocities)
        return msg

    def _republish_game_state(self) -> None:
        if self._last_game_state is not None:
            self.game_pub.publish(self._last_game_state)

    # ------------------------------------------------------------------ services (executor threads)
    def _call(self, fn, timeout: float = 10.0):
        return self.server.calls.call(fn, timeout)

    def _init_agent(self, req: InitAgent.Request, res: InitAgent.Response) -> InitAgent.Response:
        outcome = self._call(lambda: self.server.add_ros_player(req.team, req.unum, req.robot_model or "nao0"))
        if isinstance(outcome, str):
            res.success, res.error = False, outcome
            return res
        player = outcome
        self.players[player.agent_id] = RosPlayer(self, player)
        res.success, res.unum, res.side = True, player.unum, player.side
        res.player_namespace = player_namespace(player.team, player.unum, self.node.get_namespace())
        return res

    def _beam_agent(self, req: BeamAgent.Request, res: BeamAgent.Response) -> BeamAgent.Response:
        error = self._call(lambda: self.server.beam_player(req.team, req.unum, req.x, req.y, req.rotation))
        res.success, res.error = error is None, error or ""
        return res

    def _set_play_mode(self, req: SetPlayMode.Request, res: SetPlayMode.Response) -> SetPlayMode.Response:
        error = self._call(lambda: self.server.set_play_mode(req.play_mode))
        res.success, res.error = error is None, error or ""
        return res

    def _move_entity(self, req: MoveEntity.Request, res: MoveEntity.Response) -> MoveEntity.Response:
        p, v = req.position, req.velocity
        error = self._call(lambda: self.server.move_entity(req.entity, (p.x, p.y, p.z), req.rotation, (v.x, v.y, v.z)))
        res.success, res.error = error is None, error or ""
        return res
