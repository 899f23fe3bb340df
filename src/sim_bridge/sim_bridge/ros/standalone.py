"""The bridge run alone: legacy TCP agents as ROS-native players of a simulation elsewhere.

Why: the design's bridge is a node of its own; in its own process (or on another host) it
shares no memory with the simulation. Each agent that connects to an agent port joins
through the referee's `init_agent` service as a ROS player would; from then on its percepts
come from `/<team>/p<unum>/percept`, encoded in its dialect, and what it sends goes out on
the player's effector topics (joint speeds or PD targets, beam, say, `(syn)` as
`synchronize`). An agent that leaves has its robot deleted through the simulation's
`delete_entity`. Before it has joined (SimSpark agents send `scene` first and wait for a
perception before `init`), an agent gets a perception of the time and play mode each cycle
until it sends `init`; the next one it gets carries its side and number, as rcssserver3d's.

Run: `ros2 run sim_bridge bridge_node --ros-args -p simspark_port:=3100` next to
`soccersim server --simspark-port -1 --rcsssmj-port -1` (the simulation without its own
agent ports)."""
from __future__ import annotations

import functools
import logging
import selectors
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

import rclpy
from rclpy.client import Client
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.publisher import Publisher
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions
from rclpy.subscription import Subscription
from rclpy.task import Future
from std_msgs.msg import Empty

from sim_bridge.agent_server import AgentServer
from sim_bridge.dialects import all_dialects
from sim_bridge.ros.bridge_node import NODE_NAME
from sim_bridge.ros.cdr_path import cdr_path
from sim_bridge.ros.cdr_path import warning as cdr_warning
from sim_bridge.ros.lean_reader import NO_PUB_EVENTS, LeanReader
from sim_bridge.ros.percepts import seconds
from sim_bridge.ros.qos import PERCEPT_QOS
from sim_bridge.ros.service_call import fresh_client
from sim_contracts import names
from sim_contracts.agent_log import AgentLog
from sim_contracts.agents import AgentCommands, AgentConnected, AgentDisconnected, AgentError, PlayerRules
from sim_contracts.commands import Beam as BeamCommand
from sim_contracts.commands import Command, InitPlayer, JointTargets, JointVelocities, Say, Scene, Syn
from sim_contracts.node_cli import NodeParameter, declared_values, stop_on_signals, usage, wants_help
from sim_contracts.percept import GameStateView, Percept
from sim_msgs.msg import Beam, GameState, JointCommand
from sim_msgs.msg import Percept as PerceptMsg
from sim_msgs.msg import Say as SayMsg
from sim_msgs.srv import InitAgent
from simulation_interfaces.srv import DeleteEntity
from soccer_referee.ros.messages import game_state_from_msg
from soccer_referee.ros.senders import TrustedSenders, node_endpoints

RELIABLE: Final = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
WAITING_PERCEPT_S: Final = 0.02  # a not yet joined agent's perception, once a cycle
MAX_PENDING: Final = 500  # effector messages held per agent until its topics have matched
JOIN_ANSWER_S: Final = 10.0  # an init_agent call the referee does not answer in this long is given up
EXECUTOR_EVERY_S: Final = 0.005  # the main loop spins the node's executor this often
PROBE_ANSWER_S: Final = 1.0  # a probe of init_agent unanswered this long is asked again with a new client
# A request init_agent refuses before doing anything (an unknown perception): the probe that
# proves the referee's answers reach us. Fast DDS drops a service's answer to a client whose
# response reader the server has not matched yet, which `service_is_ready` does not show: an
# agent's init, which cannot be asked twice, would be lost (seen: the first of 11 agents).
_PROBE = InitAgent.Request(team="", unum=0, robot_model="", perception="probe")
_log = logging.getLogger("sim_bridge.standalone")


@dataclass(slots=True)
class BridgedAgent:
    """One TCP agent and the ROS player it is."""

    agent_id: str
    server: AgentServer
    rules: PlayerRules  # its dialect's (sim_contracts.agents)
    model: str = ""  # SimSpark: from scene
    joining: bool = False
    join_call: Future | None = None
    join_asked_at: float = 0.0
    init: InitPlayer | None = None  # an init waiting for the referee's service to be found
    team: str = ""
    unum: int = 0
    namespace: str = ""
    announced: bool = False  # the first percept after joining carries unum and side
    side: str = ""
    subscription: Subscription | None = None
    senders: TrustedSenders | None = None  # who may publish its percepts: the simulation node
    publishers: dict[str, Publisher] = field(default_factory=dict)
    # what it sent before the simulation's subscriptions matched its new publishers (DDS
    # discovery takes a moment; a reliable volatile topic drops what is published before)
    pending: list[tuple[str, object]] = field(default_factory=list)


class StandaloneBridge:
    def __init__(self, node: Node, servers: dict[str, AgentServer], referee: str, simulation: str) -> None:
        self.node = node
        self.servers = servers
        self.agents: dict[str, BridgedAgent] = {}
        self.init_client: Client = node.create_client(InitAgent, f"{referee}/init_agent")
        self.reader = LeanReader(node)  # the players' percepts
        self.simulation = simulation
        # percepts and joint commands as CDR bytes, by sim_hotpath, where that fits the
        # middleware and messages running (else rclpy's messages, said once)
        self.cdr = cdr_path()
        if (line := cdr_warning(self.cdr)) is not None:
            _log.warning("%s", line)
        self._refused_at = 0.0
        self._answers_reach_us = False  # a probe was answered: inits may be asked
        self._probe: Future | None = None
        self._probe_at = 0.0
        self.delete_client: Client = node.create_client(DeleteEntity, f"{simulation}/delete_entity")
        self.game = GameStateView()
        node.create_subscription(GameState, "game_state", self._on_game_state, RELIABLE)
        self._clock = 0.0
        self.callbacks = 0  # DDS callbacks run so far: the main loop drains them before it waits on TCP
        self._next_waiting = time.monotonic()
        self.agent_log = AgentLog(_log)  # what agents make the bridge say, bounded per agent

    # ------------------------------------------------------------------ the loop
    def run_once(self, timeout: float) -> None:
        for server in self.servers.values():
            for event in server.poll(timeout / max(len(self.servers), 1)):
                try:
                    self._handle(server, event)
                except Exception as exc:  # noqa: BLE001 - one fault boundary per agent
                    agent_id = getattr(event, "agent_id", "?")
                    _log.error("agent %s: %s: %s; disconnected", agent_id, type(exc).__name__, exc)
                    server.disconnect(agent_id, f"internal error: {type(exc).__name__}")
        now = time.monotonic()
        if now >= self._next_waiting:
            self._next_waiting = now + WAITING_PERCEPT_S
            self._init_ready()  # probed from the start: the first agent's init is not held up
            for agent in self.agents.values():
                # until it inits, where its robot exists before init (SimSpark; an agent that sent
                # init waits for the perception that answers it)
                if not agent.namespace and not agent.joining and agent.rules.robot_from_scene:
                    agent.server.send_percept(agent.agent_id, self._waiting_percept())
                elif agent.pending:
                    self._flush(agent)
                if agent.init is not None and self._init_ready():
                    self._ask_to_join(agent)
                if agent.joining and now - agent.join_asked_at > JOIN_ANSWER_S:
                    if agent.join_call is not None:
                        self.init_client.remove_pending_request(agent.join_call)
                    agent.joining, agent.join_call, agent.init = False, None, None
                    agent.server.disconnect(agent.agent_id, f"{self.init_client.srv_name} did not answer its init "
                                                            f"within {JOIN_ANSWER_S:g} s")

    def _waiting_percept(self) -> Percept:
        return Percept(time=self._clock, game=GameStateView(
            play_mode=self.game.play_mode, game_time=self.game.game_time, score_left=self.game.score_left,
            score_right=self.game.score_right, team_left=self.game.team_left, team_right=self.game.team_right),
            gyro=(0.0, 0.0, 0.0), accel=(0.0, 0.0, 0.0), joint_names=[], joint_angles=[], joint_velocities=[])

    def _on_game_state(self, msg: GameState) -> None:
        self.callbacks += 1
        try:  # the game state's one check: what goes into the agents' perceptions
            state = game_state_from_msg(msg)
        except ValueError as exc:
            _log.warning("a /game_state refused: %s", exc)
            return
        self.game = GameStateView(play_mode=state.play_mode.value, game_time=state.game_time,
                                  score_left=state.score_left, score_right=state.score_right,
                                  team_left=state.team_left, team_right=state.team_right)
        self._clock = max(self._clock, seconds(msg.stamp))

    def _handle(self, server: AgentServer, event: object) -> None:
        if isinstance(event, AgentConnected):
            self.agents[event.agent_id] = BridgedAgent(event.agent_id, server, server.dialect.rules)
            _log.info("agent %s connected from %s", event.agent_id, event.peer)
        elif isinstance(event, AgentDisconnected):
            agent = self.agents.pop(event.agent_id, None)
            if agent is not None:
                self._leave(agent, event.reason)
        elif isinstance(event, AgentError):
            self.agent_log.warn(event.agent_id, event.message, once=True)
        elif isinstance(event, AgentCommands):
            agent = self.agents.get(event.agent_id)
            if agent is not None:
                self._commands(agent, event.commands)

    def _commands(self, agent: BridgedAgent, commands: list[Command]) -> None:
        """An agent's message: its every-cycle message (a joint command and its (syn), nothing
        else) travels as one JointCommand with `synchronize` set, as one TCP message carries
        both; anything else command by command, in order."""
        joints = [c for c in commands if isinstance(c, JointVelocities | JointTargets)]
        if agent.namespace and len(joints) == 1 and len(commands) > 1 \
                and all(c is joints[0] or isinstance(c, Syn) for c in commands):
            data = self.cdr.joint_command_out(joints[0], True)
            if data is not None:
                self._send(agent, "joint_command", data)
                return
        for command in commands:
            self._command(agent, command)

    def _command(self, agent: BridgedAgent, command: object) -> None:
        if isinstance(command, Scene):
            agent.model = agent.model or agent.rules.scene_model(command.robot_type)
        elif isinstance(command, InitPlayer):
            self._join(agent, command)
        elif not agent.namespace:
            return  # not joined yet: nothing to act on (as the composed server ignores it)
        elif isinstance(command, JointVelocities | JointTargets):
            data = self.cdr.joint_command_out(command, False)  # CDR written here: no message built per cycle
            if data is not None:
                self._send(agent, "joint_command", data)
        elif isinstance(command, BeamCommand):
            self._send(agent, "beam", Beam(x=command.x, y=command.y, rotation=command.rotation_deg))
        elif isinstance(command, Say):
            self._send(agent, "say", SayMsg(message=command.message))
        elif isinstance(command, Syn):
            self._send(agent, "synchronize", Empty())

    def _send(self, agent: BridgedAgent, effector: str, msg: object) -> None:
        """Out on the player's effector topic, in order; held while the simulation's
        subscription has not matched yet."""
        if agent.pending or agent.publishers[effector].get_subscription_count() == 0:
            if len(agent.pending) < MAX_PENDING:
                agent.pending.append((effector, msg))
            self._flush(agent)
            return
        agent.publishers[effector].publish(msg)

    def _flush(self, agent: BridgedAgent) -> None:
        while agent.pending:
            effector, msg = agent.pending[0]
            pub = agent.publishers[effector]
            if pub.get_subscription_count() == 0:
                return
            pub.publish(msg)
            agent.pending.pop(0)

    # ------------------------------------------------------------------ joining and leaving
    def _join(self, agent: BridgedAgent, command: InitPlayer) -> None:
        """An init, ruled as the server's loop rules it (PlayerRules.init_refusal), then asked
        of the referee's init_agent."""
        refusal = agent.rules.init_refusal(has_robot=bool(agent.model), joined=bool(agent.namespace),
                                           joining=agent.joining)
        if refusal is not None:
            self.agent_log.warn(agent.agent_id, refusal, once=True)
            return
        agent.joining, agent.init, agent.join_asked_at = True, command, time.monotonic()
        if self._init_ready():  # else asked as soon as the referee's answers reach us (run_once)
            self._ask_to_join(agent)

    def _init_ready(self) -> bool:
        """Whether init_agent's answers reach this node (a probe was answered); probes it with
        a fresh client while not (see _PROBE)."""
        if self._answers_reach_us:
            return True
        now = time.monotonic()
        if self._probe is not None and self._probe.done():
            self._answers_reach_us = True
            return True
        if self._probe is not None and now - self._probe_at < PROBE_ANSWER_S:
            return False
        if self._probe is not None:  # unanswered: new endpoints, paired afresh (not waited for here)
            self.init_client.remove_pending_request(self._probe)
            self.init_client = fresh_client(self.node, self.init_client, wait_s=0.0)
            self._probe = None
        if self.init_client.service_is_ready():
            self._probe, self._probe_at = self.init_client.call_async(_PROBE), now
        return False

    def _ask_to_join(self, agent: BridgedAgent) -> None:
        command, agent.init = agent.init, None
        assert command is not None
        model = agent.rules.init_model(command.model, agent.model or None)
        agent.team = command.team
        request = InitAgent.Request(team=command.team, unum=command.unum, robot_model=model,
                                    perception=agent.rules.dialect)
        future = self.init_client.call_async(request)
        agent.join_call = future
        future.add_done_callback(functools.partial(self._joined, agent))

    def _joined(self, agent: BridgedAgent, future: Future) -> None:
        self.callbacks += 1
        agent.joining, agent.join_call = False, None
        res = future.result()
        if self.agents.get(agent.agent_id) is not agent:  # it left while its init was answered
            if res is not None and res.success:  # its robot goes too
                self._delete_robot(agent.team, res.unum)
            return
        if res is None or not res.success:
            reason = "no answer" if res is None else res.error
            self.agent_log.warn(agent.agent_id, f"init refused: {reason}")
            if agent.rules.close_refused:  # rcsssmj closes the connection of a refused agent
                agent.server.disconnect(agent.agent_id, f"init refused: {reason}")
            return
        agent.namespace, agent.side, agent.unum = res.player_namespace, res.side, res.unum
        ns = agent.namespace
        node = self.node
        agent.publishers = {
            effector: node.create_publisher(kind, f"{ns}/effectors/{effector}", RELIABLE, event_callbacks=NO_PUB_EVENTS)
            for effector, kind in (("joint_command", JointCommand), ("beam", Beam), ("say", SayMsg),
                                   ("synchronize", Empty))
        }
        # read by the bridge's LeanReader, not the executor: a cycle's percepts cost no wait set
        # taken only from the simulation's node: anyone in the domain may publish on the topic
        agent.senders = TrustedSenders(f"{ns}/percept", [self.simulation], node_endpoints(node), node.get_namespace())
        agent.subscription = self.reader.subscribe(PerceptMsg, f"{ns}/percept",
                                                   functools.partial(self._percept, agent), PERCEPT_QOS,
                                                   raw=self.cdr.raw, with_info=True)
        agent.server.mark_registered(agent.agent_id)
        _log.info("agent %s plays as %s (%s)", agent.agent_id, ns, agent.side)

    def _percept(self, agent: BridgedAgent, msg: PerceptMsg | bytes, info: object = None) -> None:
        """One percept to its agent, if the simulation's node published it; a fault boundary of
        its own: a percept that cannot be read or sent is refused and said, at most once a second."""
        self.callbacks += 1
        if self.agents.get(agent.agent_id) is not agent:
            return
        if agent.senders is not None and info is not None and not agent.senders.allows(info):
            return  # another participant's: dropped unread (TrustedSenders counts it)
        try:
            self._pass_on(agent, msg)
        except Exception as exc:  # noqa: BLE001 - one fault boundary per percept
            now = time.monotonic()
            if now - self._refused_at >= 1.0:
                self._refused_at = now
                _log.warning("agent %s: a percept on %s/percept refused: %s: %s", agent.agent_id, agent.namespace,
                             type(exc).__name__, str(exc)[:200])

    def _pass_on(self, agent: BridgedAgent, msg: PerceptMsg | bytes) -> None:
        percept = self.cdr.percept_in(msg)
        told = percept.game.side
        if agent.announced and told in ("", agent.side):
            # SimSpark tells unum and side once, in the first GS after init, and again only
            # when the side changed (a rule book that changes ends at half time)
            percept.game.unum, percept.game.side = 0, ""
        elif told:
            agent.side = told
        agent.announced = True
        self._clock = max(self._clock, percept.time)
        agent.server.send_percept(agent.agent_id, percept)

    def _leave(self, agent: BridgedAgent, reason: str) -> None:
        _log.info("agent %s left: %s", agent.agent_id, reason)
        self.agent_log.forget(agent.agent_id)
        if agent.subscription is not None:
            self.reader.unsubscribe(agent.subscription)
            self.node.destroy_subscription(agent.subscription)
        for pub in agent.publishers.values():
            self.node.destroy_publisher(pub)
        if agent.namespace:  # its robot leaves the field with it
            self._delete_robot(agent.team, agent.unum)

    def _delete_robot(self, team: str, unum: int) -> None:
        """A player's robot by its entity name (the team as given, not its ROS token)."""
        self.delete_client.call_async(DeleteEntity.Request(entity=names.player_entity(team, unum)))

    def close(self) -> None:
        self.reader.close()
        for server in self.servers.values():
            server.close()


PARAMETERS: Final = (
    NodeParameter("host", "127.0.0.1", "bind address of the agent ports"),
    *(NodeParameter(f"{name}_port", d.default_port, f"{name} agents' TCP port; 0 picks a free one, -1 disables it")
      for name, d in all_dialects().items()),
    NodeParameter("referee", "soccer_referee", "the referee node (relative names: in this node's namespace)"),
    NodeParameter("simulation", "soccersim", "the simulation node whose players the agents become"),
)


def main(argv: Sequence[str] | None = None) -> int:
    """`bridge_node`: the agent ports of both dialects, as ROS players of `simulation`."""
    args = list(sys.argv if argv is None else argv)
    if wants_help(args[1:]):
        print(usage("bridge_node", "The legacy agent ports (SimSpark and rcsssmj dialects): each agent becomes a "
                    "ROS player of the simulation node.", PARAMETERS))
        return 0
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s: %(message)s")
    context = rclpy.Context()
    rclpy.init(args=args, context=context, signal_handler_options=SignalHandlerOptions.NO)
    stop = threading.Event()
    stop_on_signals(stop.set)
    node = Node(NODE_NAME, context=context)
    bridge: StandaloneBridge | None = None
    try:
        try:
            given = declared_values(node, PARAMETERS)
        except ValueError as exc:
            print(f"bridge_node: {exc}", file=sys.stderr)
            return 2
        host = str(given["host"])
        dialects = all_dialects()
        ports = {name: int(given[f"{name}_port"]) for name in dialects}
        referee, simulation = str(given["referee"]), str(given["simulation"])
        servers: dict[str, AgentServer] = {}
        for name, dialect in dialects.items():
            port = ports[name]
            if port < 0:
                continue
            if port > 65535:
                print(f"bridge_node: {name}_port must be in 0..65535 (-1: off), not {port}", file=sys.stderr)
                return 2
            server = AgentServer(dialect, host, port)
            try:
                server.start()
            except OSError as exc:
                print(f"bridge_node: {name}_port {port}: cannot listen on {host}:{port} ({exc.strerror or exc})",
                      file=sys.stderr)
                return 2
            servers[name] = server
            print(f"{name} agents: {host}:{server.port}", flush=True)
        bridge = StandaloneBridge(node, servers, referee, simulation)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        try:
            # One wait for all the bridge serves: a percept (the reader's bell), an agent's bytes or
            # connection (each port's poller), or the executor's turn (the game state, init_agent's
            # answers: every 5 ms, or at once again while it has callbacks to run).
            waiting = selectors.DefaultSelector()
            waiting.register(bridge.reader.fileno(), selectors.EVENT_READ)
            for server in servers.values():
                waiting.register(server.fileno(), selectors.EVENT_READ)
            next_spin = 0.0
            while context.ok() and not stop.is_set():
                waiting.select(max(next_spin - time.monotonic(), 0.0))
                bridge.reader.spin_once(0.0)
                now = time.monotonic()
                if now >= next_spin:
                    ran = bridge.callbacks
                    executor.spin_once(timeout_sec=0.0)
                    next_spin = now if bridge.callbacks != ran else now + EXECUTOR_EVERY_S
                bridge.run_once(0.0)
        except KeyboardInterrupt:
            pass
        finally:
            executor.shutdown()
    finally:
        if bridge is not None:
            bridge.close()
        node.destroy_node()
        if context.ok():
            rclpy.shutdown(context=context)
    return 0


if __name__ == "__main__":
    sys.exit(main())
