"""A referee in another process, as the loop's referee.

Why: with `referee: external` the rules are judged by `referee_node` (soccer_referee's own
process). The loop keeps calling its referee as in one process (register, request_beam,
command, step, state); this object answers each from the referee over DDS. After each
cycle it publishes what the referee's view reads (`referee_world`) and waits for the
verdict of that cycle (lockstep, bounded by `timeout`); the placements the referee made are
made here in the engine before anyone perceives the cycle. A referee that stops answering
never stops the match: the loop goes on with the last state it had, says so once, and waits
again when the referee answers.

Trust: a verdict is taken only from a publisher of the referee's node (ros/senders.py), for a
cycle this loop has published, and only whole: its state passes the game state's one check
(team names the referee admitted through `register`, known play modes, bounded times and
scores), its events name known kinds and sides, and each placement passes the field's check
where the engine is moved (master/referee_world.py). A verdict that fails is refused and
said (once a second at most); the match goes on with the state it had."""
from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Final

from rclpy.client import Client
from rclpy.context import Context
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy

from sim_contracts.agents import BeamFrame
from sim_contracts.field import FieldSpec
from sim_master.ros.convert import stamp
from sim_master.ros.executor_thread import ExecutorThread
from sim_msgs.msg import GameState, RefereeMove, RefereeVerdict, RefereeWorld
from sim_msgs.srv import RefereeBeam, RefereeCommand, RefereeRegister
from soccer_referee.commands import CommandResult
from soccer_referee.commands import RefereeCommand as Command
from soccer_referee.events import GameEvent
from soccer_referee.game_state import BeamDecision, GameStateSnapshot
from soccer_referee.registry import Registration
from soccer_referee.ros.messages import game_state_from_msg
from soccer_referee.ros.remote import LINK_NODE, apply_moves, command_request, unregister_request, world_to_msg
from soccer_referee.ros.senders import TrustedSenders, node_endpoints
from soccer_referee.rules import RuleBook
from soccer_referee.service import RefereeHost
from soccer_referee.world import WorldView

_log = logging.getLogger("soccersim.referee")
RELIABLE: Final = QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE)
CALL_TIMEOUT_S: Final = 5.0
EVENT_KINDS: Final = frozenset({"goal", "foul", "play_mode", "refused", "sides_swapped", "half_time"})
MAX_EVENTS: Final = 64  # per verdict
MAX_MOVES: Final = 64  # placements per verdict (two teams of 11, the ball, with room)
MAX_DETAIL: Final = 200


class _Teams:
    """The registry's one question the server asks (a team's side), from the last state."""

    def __init__(self, state: GameStateSnapshot) -> None:
        self._state = state

    def side_of(self, team: str) -> str:
        s = self._state
        return "left" if team and team == s.team_left else "right" if team and team == s.team_right else ""


class RemoteReferee(RefereeHost):
    """The loop's referee, judged by `referee` (a node name) in another process. What it is
    asked has passed RefereeHost's checks before it goes on the wire."""

    def __init__(self, context: Context, referee: str, rules: RuleBook, world: WorldView, clock: Callable[[], float],
                 *, timeout: float) -> None:
        # A hidden node on an executor thread of its own: the loop waits here for answers while
        # the server's executor threads may all be waiting for the loop (players joining).
        self.node = Node(LINK_NODE, context=context)
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
        self._senders = TrustedSenders("referee_verdict", [referee], node_endpoints(node), node.get_namespace())
        self._teams: set[str] = set()  # the names the referee admitted through register
        self._said_at = -1e9
        node.create_subscription(RefereeVerdict, "referee_verdict", self._on_verdict, RELIABLE)
        self._register_client: Client = node.create_client(RefereeRegister, f"{referee}/register")
        self._beam_client: Client = node.create_client(RefereeBeam, f"{referee}/request_beam")
        self._command_client: Client = node.create_client(RefereeCommand, f"{referee}/command")
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

    def _register(self, team: str, unum: int) -> Registration:
        res = self._ask(self._register_client, RefereeRegister.Request(team=team, unum=unum), "register")
        if not isinstance(res, RefereeRegister.Response):
            return Registration(False, error=f"the referee {self.referee} does not answer")
        if res.success:  # the teams' names are known at once (percepts of this cycle carry them)
            self._teams.add(team)
            if res.side == "left":
                self.state.team_left = self.state.team_left or team
            elif res.side == "right":
                self.state.team_right = self.state.team_right or team
        return Registration(res.success, res.side, res.unum, res.error)

    def _unregister(self, side: str, unum: int) -> None:
        self._ask(self._command_client, unregister_request(side, unum), "unregister")

    def _request_beam(self, side: str, unum: int, x: float, y: float, rot_deg: float,
                      frame: BeamFrame) -> BeamDecision:
        res = self._ask(self._beam_client, RefereeBeam.Request(side=side, unum=unum, x=x, y=y, rotation=rot_deg,
                                                        dialect=frame.value), "request_beam")
        if not isinstance(res, RefereeBeam.Response):
            return BeamDecision(False, error=f"the referee {self.referee} does not answer")
        return BeamDecision(res.success, res.x, res.y, res.yaw_deg, res.error)

    def _command(self, cmd: Command) -> CommandResult:
        try:
            request = command_request(cmd)
        except ValueError as exc:
            return CommandResult(False, str(exc))
        res = self._ask(self._command_client, request, type(cmd).__name__)
        if not isinstance(res, RefereeCommand.Response):
            return CommandResult(False, f"the referee {self.referee} does not answer")
        problem = self._take_state(res.state) or self._too_many(res.moves)
        if problem:
            self._refuse(f"an answer to {type(cmd).__name__}", problem)
            return CommandResult(False, f"the referee {self.referee} answered {problem}")
        self._make(res.moves)
        return CommandResult(res.ok, res.error[:MAX_DETAIL])

    # ------------------------------------------------------------------ the cycle
    def _step(self, dt: float) -> list[GameEvent]:
        """Show the referee the cycle just stepped; wait for its verdict (lockstep)."""
        self.cycle += 1
        cycle = self.cycle
        self._world_pub.publish(world_to_msg(self.world, cycle, stamp(self.clock()), dt))
        verdict = self._wait(cycle)
        if verdict is None:
            return []
        events = self._events(verdict)
        problem = events if isinstance(events, str) else self._too_many(verdict.moves) \
            or self._take_state(verdict.state)
        if problem:
            self._refuse(f"the verdict of cycle {verdict.cycle}", problem)
            return []
        self._make(verdict.moves)
        assert not isinstance(events, str)
        return events

    def _events(self, verdict: RefereeVerdict) -> list[GameEvent] | str:
        if len(verdict.events) > MAX_EVENTS:
            return f"{len(verdict.events)} events (at most {MAX_EVENTS})"
        out = []
        for e in verdict.events:
            if e.kind not in EVENT_KINDS or e.team not in ("", "left", "right") or not 0 <= e.unum <= 99:
                return f"an event {e.kind[:20]!r} of {e.team[:10]!r} #{e.unum}"
            if len(e.detail) > MAX_DETAIL or not e.detail.isprintable() or not math.isfinite(e.game_time):
                return f"an event {e.kind!r} whose detail or time is not plain"
            out.append(GameEvent(float(e.game_time), e.kind, e.team, int(e.unum), e.detail))
        return out

    @staticmethod
    def _too_many(moves: list[RefereeMove]) -> str | None:
        return f"{len(moves)} placements (at most {MAX_MOVES})" if len(moves) > MAX_MOVES else None

    def _refuse(self, what: str, problem: str) -> None:
        now = time.monotonic()
        if now - self._said_at >= 1.0:
            self._said_at = now
            _log.warning("the referee %s: %s refused: %s (the match goes on with the state it had)",
                         self.referee, what, problem)

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

    def _on_verdict(self, msg: RefereeVerdict, info: object) -> None:
        if not self._senders.allows(info):  # not the referee's node: dropped unread
            return
        with self._arrived:
            if self.cycle - 100 < msg.cycle <= self.cycle:
                self._verdicts[msg.cycle] = msg
                self._arrived.notify_all()

    def _take_state(self, msg: GameState) -> str | None:
        """Take the referee's state, or say why not (the state it had stays)."""
        try:
            new = game_state_from_msg(msg)
        except ValueError as exc:
            return str(exc)
        for team in (new.team_left, new.team_right):
            if team and team not in self._teams:
                return f"team {team!r}, which the referee never admitted here"
        s = self.state
        s.play_mode, s.game_time, s.half = new.play_mode, new.game_time, new.half
        s.team_left, s.team_right = new.team_left, new.team_right
        s.score_left, s.score_right, s.last_touch = new.score_left, new.score_right, new.last_touch
        return None

    def _make(self, moves: list[RefereeMove]) -> None:
        for problem in apply_moves(moves, self.world):
            _log.warning("the referee %s: %s (not made)", self.referee, problem)
