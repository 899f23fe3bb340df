"""A referee in another process, as the loop's referee.

Why: with `referee: external` the rules are judged by `referee_node` (soccer_referee's own
process). The loop keeps calling its referee as in one process (register, request_beam,
command, step, state); this object answers each from the referee over DDS. After each
cycle it publishes what the referee's view reads (`referee_world`) and waits for the
verdict of that cycle (lockstep, bounded by `timeout`); the placements the referee made are
made here in the engine before anyone perceives the cycle. A referee that stops answering
never stops the match: the loop goes on with the last state it had, says so once, and waits
again when the referee answers."""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Final

from rclpy.client import Client
from rclpy.context import Context
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy

from sim_contracts.field import FieldSpec
from sim_master.ros.convert import stamp
from sim_master.ros.executor_thread import ExecutorThread
from sim_msgs.msg import GameState, RefereeMove, RefereeVerdict, RefereeWorld
from sim_msgs.srv import RefereeBeam, RefereeCommand, RefereeRegister
from soccer_referee.commands import CommandResult
from soccer_referee.commands import RefereeCommand as Command
from soccer_referee.events import GameEvent
from soccer_referee.play_modes import PlayMode
from soccer_referee.referee import BeamDecision, GameStateSnapshot
from soccer_referee.registry import Registration
from soccer_referee.ros.remote import apply_moves, command_request, unregister_request, world_to_msg
from soccer_referee.rules import RuleBook
from soccer_referee.world import WorldView

_log = logging.getLogger("soccersim.referee")
RELIABLE: Final = QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE)
CALL_TIMEOUT_S: Final = 5.0


class _Teams:
    """The registry's one question the server asks (a team's side), from the last state."""

    def __init__(self, state: GameStateSnapshot) -> None:
        self._state = state

    def side_of(self, team: str) -> str:
        s = self._state
        return "left" if team and team == s.team_left else "right" if team and team == s.team_right else ""


class RemoteReferee:
    """The loop's referee, judged by `referee` (a node name) in another process."""

    def __init__(self, context: Context, referee: str, rules: RuleBook, world: WorldView, clock: Callable[[], float],
                 *, timeout: float) -> None:
        # A hidden node on an executor thread of its own: the loop waits here for answers while
        # the server's executor threads may all be waiting for the loop (players joining).
        self.node = Node("_soccersim_referee_link", context=context)
        node = self.node
        self.executor = ExecutorThread(context, threads=1)
        self.executor.add(node)
        self.clock = clock  # the simulation time of the cycle just stepped
        self.rules = rules
        self.world = world
        self.field = FieldSpec()  # the loop sets the world file's field
        self.state = GameStateSnapshot()
        self.registry = _Teams(self.state)
        self.timeout = timeout
        self.cycle = 0
        self.waiting = True  # False after a verdict did not come in time, until one comes
        self._verdicts: dict[int, RefereeVerdict] = {}
        self._arrived = threading.Condition()
        self._world_pub = node.create_publisher(RefereeWorld, "referee_world", RELIABLE)
        node.create_subscription(RefereeVerdict, "referee_verdict", self._on_verdict, RELIABLE)
        self._register: Client = node.create_client(RefereeRegister, f"{referee}/register")
        self._beam: Client = node.create_client(RefereeBeam, f"{referee}/request_beam")
        self._command: Client = node.create_client(RefereeCommand, f"{referee}/command")
        self.referee = referee
        self.executor.start()

    def close(self) -> None:
        self.executor.stop()
        self.node.destroy_node()

    # ------------------------------------------------------------------ the calls
    def _ask(self, client: Client, request: object, what: str) -> object | None:
        """The referee's answer, or None (logged) when it gives none in time."""
        # a referee known to be silent is not waited for again here (each call would stall the loop)
        find, answer = (CALL_TIMEOUT_S, CALL_TIMEOUT_S) if self.waiting else (0.0, 1.0)
        if not client.service_is_ready() and not client.wait_for_service(timeout_sec=find):
            _log.warning("the referee %s does not answer %s", self.referee, what)
            return None
        future = client.call_async(request)
        done = threading.Event()
        future.add_done_callback(lambda _f: done.set())
        if not done.wait(answer):
            client.remove_pending_request(future)
            _log.warning("the referee %s did not answer %s within %.0f s", self.referee, what, answer)
            return None
        return future.result()

    def register(self, team: str, unum: int) -> Registration:
        res = self._ask(self._register, RefereeRegister.Request(team=team, unum=unum), "register")
        if not isinstance(res, RefereeRegister.Response):
            return Registration(False, error=f"the referee {self.referee} does not answer")
        if res.success:  # the teams' names are known at once (percepts of this cycle carry them)
            if res.side == "left":
                self.state.team_left = self.state.team_left or team
            elif res.side == "right":
                self.state.team_right = self.state.team_right or team
        return Registration(res.success, res.side, res.unum, res.error)

    def unregister(self, side: str, unum: int) -> None:
        self._ask(self._command, unregister_request(side, unum), "unregister")

    def request_beam(self, side: str, unum: int, x: float, y: float, rot_deg: float, *,
                     dialect: str = "simspark") -> BeamDecision:
        res = self._ask(self._beam, RefereeBeam.Request(side=side, unum=unum, x=x, y=y, rotation=rot_deg,
                                                        dialect=dialect), "request_beam")
        if not isinstance(res, RefereeBeam.Response):
            return BeamDecision(False, error=f"the referee {self.referee} does not answer")
        return BeamDecision(res.success, res.x, res.y, res.yaw_deg, res.error)

    def command(self, cmd: Command) -> CommandResult:
        try:
            request = command_request(cmd)
        except ValueError as exc:
            return CommandResult(False, str(exc))
        res = self._ask(self._command, request, type(cmd).__name__)
        if not isinstance(res, RefereeCommand.Response):
            return CommandResult(False, f"the referee {self.referee} does not answer")
        self._take_state(res.state)
        self._make(res.moves)
        return CommandResult(res.ok, res.error)

    # ------------------------------------------------------------------ the cycle
    def step(self, dt: float) -> list[GameEvent]:
        """Show the referee the cycle just stepped; wait for its verdict (lockstep)."""
        self.cycle += 1
        cycle = self.cycle
        self._world_pub.publish(world_to_msg(self.world, cycle, stamp(self.clock()), dt))
        verdict = self._wait(cycle)
        if verdict is None:
            return []
        self._take_state(verdict.state)
        self._make(verdict.moves)
        return [GameEvent(e.game_time, e.kind, e.team, e.unum, e.detail) for e in verdict.events]

    def _wait(self, cycle: int) -> RefereeVerdict | None:
        with self._arrived:
            if self.waiting:
                self._arrived.wait_for(lambda: cycle in self._verdicts, timeout=self.timeout)
            verdict = self._verdicts.pop(cycle, None)
            if verdict is None and self._verdicts:  # a late answer to an earlier cycle: its state still counts
                verdict = self._verdicts.pop(max(self._verdicts))
                verdict.events = []
            self._verdicts.clear()
        if verdict is None and self.waiting:
            self.waiting = False
            _log.warning("the referee %s gave no verdict within %.2f s: the match goes on with its last state "
                         "until it answers", self.referee, self.timeout)
        elif verdict is not None and not self.waiting:
            self.waiting = True
            _log.info("the referee %s answers again", self.referee)
        return verdict

    def _on_verdict(self, msg: RefereeVerdict) -> None:
        with self._arrived:
            if msg.cycle <= self.cycle:
                self._verdicts[msg.cycle] = msg
                self._arrived.notify_all()

    def _take_state(self, msg: GameState) -> None:
        s = self.state
        try:
            s.play_mode = PlayMode(msg.play_mode)
        except ValueError:
            _log.warning("the referee %s sent an unknown play mode %r", self.referee, msg.play_mode[:40])
        s.game_time, s.half = float(msg.game_time), int(msg.half)
        s.team_left, s.team_right = msg.team_left, msg.team_right
        s.score_left, s.score_right = int(msg.score_left), int(msg.score_right)
        s.last_touch = ((msg.last_touch_team, int(msg.last_touch_unum))
                        if msg.last_touch_team in ("left", "right") else None)

    def _make(self, moves: list[RefereeMove]) -> None:
        for problem in apply_moves(moves, self.world):
            _log.warning("the referee %s: %s (not made)", self.referee, problem)
