"""The referee run alone: judging a simulation in another process over DDS.

Why: the design's referee is a node of its own; run in its own process it shares no memory
with the simulation. Each cycle the simulation publishes what the referee's view reads
(`referee_world`); the judge steps the rules on it and answers `referee_verdict` (the game
state, the cycle's events, the placements the rules made), which the simulation waits for
in lockstep (sim_master/ros/remote_referee.py). The simulation's loop asks it to register
players, rule on beams and take commands through `~/register`, `~/request_beam` and
`~/command`. The user-facing services (init_agent, beam_agent: a robot must be made or
placed) are forwarded to the simulation node, whose loop asks the judge again; set_play_mode
and move_entity are ruled here and their placements travel with the answer.

Run: `ros2 run soccer_referee referee_node --ros-args -p rules:=simspark` next to
`soccersim server --referee external`.

Trust: a `referee_world` is judged only when it comes from the simulation's link node
(remote.LINK_NODE in this namespace, ros/senders.py) and carries a later cycle than the last
(or 1: a simulation that started again); a registration whose robot never appears in the
world within REGISTRATION_WINDOW_S of simulation time is dropped, so a `~/register` call
alone cannot hold a side."""
from __future__ import annotations

import sys
import threading
import time
from collections.abc import Sequence
from typing import Final

import rclpy
from rclpy.client import Client
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions
from rclpy.task import Future

from sim_contracts.agents import BeamFrame
from sim_contracts.node_cli import NodeParameter, declared_values, stop_on_signals, usage, wants_help
from sim_msgs.msg import RefereeVerdict, RefereeWorld
from sim_msgs.srv import BeamAgent, InitAgent, RefereeBeam, RefereeCommand, RefereeRegister
from soccer_referee.checks import step_problem
from soccer_referee.commands import SetPlayMode, entity_move
from soccer_referee.referee import Referee
from soccer_referee.ros.messages import event_to_msg, game_state_to_msg, seconds, stamp
from soccer_referee.ros.referee_node import RefereeNode
from soccer_referee.ros.remote import LINK_NODE, MessageWorld, command_from_request
from soccer_referee.ros.senders import TrustedSenders, node_endpoints
from soccer_referee.rules import RULE_BOOKS, rule_book

RELIABLE: Final = QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE)
FIND_SIMULATION_S: Final = 10.0
REGISTRATION_WINDOW_S: Final = 10.0  # simulation time for a registered player's robot to appear


class Judge:
    """The rules on a `MessageWorld`, and the services and topics the simulation uses; one
    cycle, registration or command at a time (one executor thread, and a lock besides)."""

    def __init__(self, node: Node, referee: Referee, simulation: str) -> None:
        self.node = node
        self.referee = referee
        self.world = MessageWorld()
        referee.world = self.world
        self.lock = threading.Lock()
        self.time = 0.0
        self.cycle = 0  # the last cycle judged
        self._senders = TrustedSenders("referee_world", [LINK_NODE], node_endpoints(node), node.get_namespace())
        self._unseen: dict[tuple[str, int], float] = {}  # registered, robot not yet in the world: since
        self.verdict_pub = node.create_publisher(RefereeVerdict, "referee_verdict", RELIABLE)
        node.create_subscription(RefereeWorld, "referee_world", self._on_world, RELIABLE)
        node.create_service(RefereeRegister, "~/register", self._register)
        node.create_service(RefereeBeam, "~/request_beam", self._request_beam)
        node.create_service(RefereeCommand, "~/command", self._command)
        self.add_player: Client = node.create_client(InitAgent, f"{simulation}/add_player")
        self.beam_player: Client = node.create_client(BeamAgent, f"{simulation}/beam_player")
        self.referee_node: RefereeNode | None = None  # set by main: publishes the state
        self._said_at = -1e9  # refused worlds are said at most once a second

    # ------------------------------------------------------------------ the simulation's side
    def _on_world(self, msg: RefereeWorld, info: object) -> None:
        if not self._senders.allows(info):  # not the simulation's link: dropped unread
            return
        problem = step_problem(msg.dt)
        if problem:  # the simulation's link, but no cycle the referee can judge: said, dropped
            now = time.monotonic()
            if now - self._said_at >= 1.0:
                self._said_at = now
                self.node.get_logger().warning(f"referee_world of cycle {msg.cycle} refused: {problem}")
            return
        with self.lock:
            if msg.cycle <= self.cycle and msg.cycle != 1:
                return  # an old or repeated cycle: judged once
            self.cycle = msg.cycle
            self.world.update(msg)
            self.time = seconds(msg.stamp)
            self._expire_unseen({(p.side, int(p.unum)) for p in msg.players})
            events = self.referee.step(msg.dt)
            stamp = msg.stamp
            state = game_state_to_msg(self.referee.state, stamp)
            event_msgs = [event_to_msg(e, stamp) for e in events]
            self.verdict_pub.publish(RefereeVerdict(cycle=msg.cycle, state=state, events=event_msgs,
                                                    moves=self.world.take_moves()))
        if self.referee_node is not None:
            self.referee_node.publish(state, event_msgs)

    def _expire_unseen(self, present: set[tuple[str, int]]) -> None:
        for key, since in list(self._unseen.items()):
            if key in present:
                del self._unseen[key]
            elif self.time - since > REGISTRATION_WINDOW_S:
                del self._unseen[key]
                self.referee.unregister(*key)
                self.node.get_logger().warning(f"{key[0]} #{key[1]} was registered but its robot never came within "
                                               f"{REGISTRATION_WINDOW_S:g} s: the place is free again")

    def _register(self, req: RefereeRegister.Request, res: RefereeRegister.Response) -> RefereeRegister.Response:
        with self.lock:
            decision = self.referee.register(req.team, req.unum)
            if decision.success:
                self._unseen[(decision.side, decision.unum)] = self.time
        res.success, res.error, res.side, res.unum = decision.success, decision.error, decision.side, decision.unum
        return res

    def _request_beam(self, req: RefereeBeam.Request, res: RefereeBeam.Response) -> RefereeBeam.Response:
        with self.lock:
            d = self.referee.request_beam(req.side, req.unum, req.x, req.y, req.rotation,
                                          frame=BeamFrame.named(req.dialect))
        res.success, res.error, res.x, res.y, res.yaw_deg = d.success, d.error, d.x, d.y, d.yaw_deg
        return res

    def _command(self, req: RefereeCommand.Request, res: RefereeCommand.Response) -> RefereeCommand.Response:
        command = command_from_request(req)
        with self.lock:
            if isinstance(command, str):
                res.ok, res.error = False, command
            elif isinstance(command, tuple):
                self.referee.unregister(*command)
                res.ok = True
            else:
                outcome = self.referee.command(command)
                res.ok, res.error = outcome.ok, outcome.error
            res.state = game_state_to_msg(self.referee.state, stamp(self.time))
            res.moves = self.world.take_moves()
        return res

    # ------------------------------------------------------------------ the user-facing services (host)
    async def _forward(self, client: Client, request: object) -> object | str:
        """The simulation's answer. Awaited, not waited for: the executor thread is free
        meanwhile, for the simulation's own calls back to the judge. A simulation not found
        yet (it may still be starting) is looked for up to FIND_SIMULATION_S."""
        waited = 0.0
        while not client.service_is_ready():
            if waited >= FIND_SIMULATION_S:
                return f"no simulation node answers {client.srv_name} (waited {FIND_SIMULATION_S:g} s)"
            await self._sleep(0.1)
            waited += 0.1
        return await client.call_async(request)

    async def _sleep(self, seconds: float) -> None:
        """A pause inside a service coroutine that holds no executor thread."""
        done: Future[None] = Future()

        def ring() -> None:
            if not done.done():
                done.set_result(None)

        timer = self.node.create_timer(seconds, ring)
        try:
            await done
        finally:
            self.node.destroy_timer(timer)

    async def init_agent(self, team: str, unum: int, model: str, perception: str) -> tuple[int, str, str] | str:
        res = await self._forward(self.add_player, InitAgent.Request(team=team, unum=unum, robot_model=model,
                                                                     perception=perception))
        if isinstance(res, str):
            return res
        assert isinstance(res, InitAgent.Response)
        return (res.unum, res.side, res.player_namespace) if res.success else res.error

    async def beam_agent(self, team: str, unum: int, x: float, y: float, rotation: float) -> str | None:
        res = await self._forward(self.beam_player, BeamAgent.Request(team=team, unum=unum, x=x, y=y,
                                                                      rotation=rotation))
        if isinstance(res, str):
            return res
        assert isinstance(res, BeamAgent.Response)
        return None if res.success else res.error

    def set_play_mode(self, name: str) -> str | None:
        with self.lock:
            outcome = self.referee.command(SetPlayMode(name))
        return None if outcome.ok else outcome.error

    def move_entity(self, entity: str, position: tuple[float, float, float], rotation: float,
                    velocity: tuple[float, float, float]) -> str | None:
        with self.lock:
            command = entity_move(entity, position, rotation, velocity, self.referee.registry.side_of)
            if isinstance(command, str):
                return command
            outcome = self.referee.command(command)
        return None if outcome.ok else outcome.error

PARAMETERS: Final = (
    NodeParameter("rules", "simspark", f"rule book: {', '.join(RULE_BOOKS)}"),
    NodeParameter("simulation", "soccersim", "the simulation node judged (relative names: in this node's namespace)"),
    NodeParameter("half_time", 0.0, "half length in s of game time; 0: the rule book's"),
)


def main(argv: Sequence[str] | None = None) -> int:
    """`referee_node`: the referee alone, judging the simulation node named by `simulation`
    (relative names resolve in this node's namespace)."""
    args = list(sys.argv if argv is None else argv)
    if wants_help(args[1:]):
        print(usage("referee_node", "The referee in a process of its own: game state, init and beam, the rules, "
                    "judging a simulation node over DDS.", PARAMETERS))
        return 0
    context = rclpy.Context()
    rclpy.init(args=args, context=context, signal_handler_options=SignalHandlerOptions.NO)
    stop = threading.Event()
    stop_on_signals(stop.set)
    referee_node = RefereeNode(None, context)  # type: ignore[arg-type]  # its host is the judge, below
    node = referee_node.node
    try:
        try:
            given = declared_values(node, PARAMETERS)
        except ValueError as exc:
            print(f"referee_node: {exc}", file=sys.stderr)
            return 2
        rules_name, simulation = str(given["rules"]), str(given["simulation"])
        half_time = float(given["half_time"] or 0.0)
        if rules_name not in RULE_BOOKS:
            print(f"referee_node: rules must be one of {', '.join(sorted(RULE_BOOKS))}, not {rules_name!r}",
                  file=sys.stderr)
            return 2
        if not 0 <= half_time <= 3600:
            print(f"referee_node: half_time must be in 0..3600 s, not {half_time:g}", file=sys.stderr)
            return 2
        overrides = {"half_time": half_time} if half_time else {}
        judge = Judge(node, Referee.create(rule_book(rules_name, **overrides)), simulation)
        referee_node.host = judge
        judge.referee_node = referee_node
        # One thread: the services that wait for the simulation are coroutines (they hold no
        # thread while they wait), and rclpy's multi-threaded executor spins a core busy. It
        # wakes at least every 0.2 s so that a signal's stop is seen.
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        print(f"referee ({rules_name}) judging {simulation}", flush=True)
        try:
            while context.ok() and not stop.is_set():
                executor.spin_once(timeout_sec=0.2)
        except (KeyboardInterrupt, ExternalShutdownException):
            pass
        finally:
            executor.shutdown()
    finally:
        referee_node.destroy()
        if context.ok():
            rclpy.shutdown(context=context)
    return 0


if __name__ == "__main__":
    sys.exit(main())
