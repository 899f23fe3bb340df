"""The referee: steps with the simulation after each physics cycle and decides from the
world's state (rcssserver3d 0.7.3 SoccerRuleAspect semantics).

It changes the world only through WorldView (ball and player teleports), so it runs the
same against the real engine, a replayed log or a scripted world in a table test."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as _field

from sim_contracts.agents import BeamFrame
from sim_contracts.field import FIELD_PRESETS, FieldSpec
from soccer_referee.commands import (
    CommandResult,
    DropBall,
    KickOff,
    MoveAgent,
    MoveBall,
    RefereeCommand,
    SetPlayMode,
    SetScore,
    SetTime,
)
from soccer_referee.events import FoulType, GameEvent
from soccer_referee.game_state import BeamDecision, GameStateSnapshot
from soccer_referee.play_modes import PlayMode, for_side, other
from soccer_referee.registry import Registration, TeamRegistry
from soccer_referee.rules import RuleBook, rule_book
from soccer_referee.service import RefereeHost
from soccer_referee.world import PlayerId, PlayerView, Side, WorldView

GROUND_Z = 0.15
STANDING_Z = 0.25
STAND_RESET_TIME = 0.5
BEAM_MODES = (PlayMode.BEFORE_KICK_OFF, PlayMode.GOAL_LEFT, PlayMode.GOAL_RIGHT)
PAUSED_MODES = (PlayMode.BEFORE_KICK_OFF, PlayMode.GOAL_LEFT, PlayMode.GOAL_RIGHT, PlayMode.GAME_OVER)
SET_PLAYS = ("KickIn", "corner_kick", "goal_kick", "free_kick", "direct_free_kick")


@dataclass(slots=True)
class _FoulClock:
    ground: float = 0.0
    not_standing: float = 0.0
    standing: float = 0.0


@dataclass(slots=True)
class Referee(RefereeHost):
    """The rules judged in this process (the server's, or referee_node's)."""

    rules: RuleBook
    world: WorldView | None = None
    field: FieldSpec = _field(default_factory=FieldSpec)
    state: GameStateSnapshot = _field(default_factory=GameStateSnapshot)
    registry: TeamRegistry = _field(default_factory=TeamRegistry)
    _mode_time: float = 0.0  # seconds in the current play mode
    _clocks: dict[tuple[str, int], _FoulClock] = _field(default_factory=dict)
    _set_spot: tuple[float, float] | None = None
    _area_entry: dict[tuple[str, int], float] = _field(default_factory=dict)
    _first_half_kicker: str = "left"
    fouls: list[GameEvent] = _field(default_factory=list)
    _dt: float = 0.02

    @staticmethod
    def create(rules: RuleBook | str = "simspark", world: WorldView | None = None) -> Referee:
        book = rule_book(rules) if isinstance(rules, str) else rules
        return Referee(book, world, FIELD_PRESETS.get(book.field, FieldSpec()),
                       registry=TeamRegistry(book.players_per_side))

    # ------------------------------------------------------------------ registration, beam
    def _register(self, team: str, unum: int) -> Registration:
        decision = self.registry.register(team, unum)
        self.state.team_left, self.state.team_right = self.registry.team_left, self.registry.team_right
        return decision

    def _unregister(self, side: str, unum: int) -> None:
        s = self.state
        not_started = s.play_mode == PlayMode.BEFORE_KICK_OFF and s.game_time == 0.0 and s.half == 1 \
            and s.score_left == 0 and s.score_right == 0
        self.registry.unregister(side, unum, free_empty_side=not_started)
        s.team_left, s.team_right = self.registry.team_left, self.registry.team_right
        self._clocks.pop((side, unum), None)

    def _request_beam(self, side: str, unum: int, x: float, y: float, rot_deg: float,
                      frame: BeamFrame) -> BeamDecision:
        if unum not in self.registry.members.get(side, set()):
            return BeamDecision(False, error=f"no player {side} #{unum}")
        if self.rules.beam_modes_only and self.state.play_mode not in BEAM_MODES:
            return BeamDecision(False, error=f"beam is not allowed in {self.state.play_mode.value} "
                                             "(only BeforeKickOff and Goal_*)")
        hl, hw = self.field.half_length, self.field.half_width
        if frame is BeamFrame.ABSOLUTE_X:  # own half by |x|, y as given, right team turned by 180 deg
            gx = -abs(x) if side == "left" else abs(x)
            gx = max(-hl, min(hl, gx))
            gy = max(-hw, min(hw, y))
            yaw = rot_deg + (180.0 if side == "right" else 0.0)
        else:  # SimSpark: team frame clamped to the own half, flipped for the right team
            tx, ty = max(-hl, min(0.0, x)), max(-hw, min(hw, y))
            gx, gy = (tx, ty) if side == "left" else (-tx, -ty)
            yaw = rot_deg + (180.0 if side == "right" else 0.0)
        yaw = (yaw + 180.0) % 360.0 - 180.0
        return BeamDecision(True, gx, gy, yaw)

    # ------------------------------------------------------------------ commands
    def _command(self, cmd: RefereeCommand) -> CommandResult:
        """A checked command (service.RefereeHost): what is left is the game's own say."""
        try:
            if isinstance(cmd, KickOff):
                side = cmd.side.lower() if cmd.side else self.state.kick_off_side
                if self.state.play_mode == PlayMode.GAME_OVER:
                    return CommandResult(False, "the game is over")
                self._kick_off(side)
            elif isinstance(cmd, SetPlayMode):
                self._set_mode(PlayMode.parse(cmd.name))
                if self.state.play_mode.value.split("_")[0] in ("KickIn", "corner", "goal", "free", "direct"):
                    bx, by, _ = self.world.ball_position() if self.world else (0.0, 0.0, 0.0)
                    self._set_spot = (bx, by)
            elif isinstance(cmd, DropBall):
                self._drop_ball()
            elif isinstance(cmd, MoveBall):
                self._world().move_ball(cmd.position, cmd.velocity)
            elif isinstance(cmd, MoveAgent):
                mover: Side = "left" if cmd.side == "left" else "right"
                if cmd.unum not in self.registry.members.get(mover, set()):
                    return CommandResult(False, f"no player {cmd.side} #{cmd.unum}")
                self._world().move_player(mover, cmd.unum, cmd.x, cmd.y, cmd.rotation, z=cmd.z,
                                          upright=cmd.upright, orientation=cmd.orientation,
                                          zero_joints=cmd.zero_joints, beside=True)
            elif isinstance(cmd, SetTime):
                self.state.game_time = cmd.time
            elif isinstance(cmd, SetScore):
                self.state.score_left, self.state.score_right = cmd.left, cmd.right
        except ValueError as exc:  # a world the referee cannot act on
            return CommandResult(False, str(exc))
        return CommandResult(True)

    # ------------------------------------------------------------------ the cycle
    def _step(self, dt: float) -> list[GameEvent]:
        events: list[GameEvent] = []
        s = self.state
        world = self.world
        if world is None:
            return events
        self._mode_time += dt
        self._dt = dt
        if s.play_mode not in (PlayMode.BEFORE_KICK_OFF, PlayMode.GAME_OVER):
            s.game_time += dt
        touchers = list(world.ball_touchers())
        if touchers:
            s.last_touch = touchers[-1]
        mode = s.play_mode
        if mode == PlayMode.BEFORE_KICK_OFF:
            self._hold_ball((0.0, 0.0))
        elif mode in (PlayMode.KICK_OFF_LEFT, PlayMode.KICK_OFF_RIGHT):
            if touchers:
                self._set_mode(PlayMode.PLAY_ON, events)
            elif self._mode_time > self.rules.drop_ball_time:
                self._drop_ball(events)
            else:
                self._keep_out_for_kick_off(mode.side)
        elif mode in (PlayMode.GOAL_LEFT, PlayMode.GOAL_RIGHT):
            if self._mode_time >= self.rules.goal_pause:
                self._kick_off(other(mode.side), events)
        elif mode == PlayMode.PLAY_ON:
            self._check_ball(events)
        elif mode.value.startswith(SET_PLAYS):
            self._update_set_play(mode, touchers, events)
        if s.play_mode not in PAUSED_MODES:
            self._check_fouls(events)
        self._check_time(events)
        return events

    # ------------------------------------------------------------------ internals
    def _world(self) -> WorldView:
        if self.world is None:
            raise ValueError("the referee has no world to act on")
        return self.world

    def _set_mode(self, mode: PlayMode, events: list[GameEvent] | None = None) -> None:
        if mode != self.state.play_mode:
            self.state.play_mode = mode
            self._mode_time = 0.0
            if events is not None:
                events.append(GameEvent(self.state.game_time, "play_mode", mode.side, 0, mode.value))

    def _hold_ball(self, spot: tuple[float, float]) -> None:
        world = self._world()
        x, y, _ = world.ball_position()
        if math.hypot(x - spot[0], y - spot[1]) > 0.01:
            world.move_ball((spot[0], spot[1], self.field.ball_radius))

    def _kick_off(self, side: str, events: list[GameEvent] | None = None) -> None:
        if self.world is not None:
            self.world.move_ball((0.0, 0.0, self.field.ball_radius))
        self.state.last_touch = None
        self._set_mode(PlayMode.KICK_OFF_LEFT if side == "left" else PlayMode.KICK_OFF_RIGHT, events)
        if self.state.game_time == 0.0 and self.state.half == 1:
            self._first_half_kicker = side
        if self.world is not None:
            self._keep_out_for_kick_off(side)

    def _keep_out_for_kick_off(self, kicker: str) -> None:
        """As rcssserver3d's ClearPlayersBeforeKickOff: the defending team out of the other
        half and out of the centre circle; the kicking team's players back from the opponent
        half only when outside the centre circle. The kicker walking round the ball to line
        up its kick crosses the half-way line inside the circle, and must not be moved."""
        r = self.field.center_radius
        for p in self._world().players():
            x, y, _ = p.position
            own_sign = -1.0 if p.side == "left" else 1.0
            in_opponent_half, in_circle = x * own_sign < 0, math.hypot(x, y) < r
            if p.side == kicker:
                if in_opponent_half and not in_circle:
                    self._world().move_player(p.side, p.unum, own_sign * 0.3, y, p.yaw_deg)
            elif in_opponent_half or in_circle:
                self._world().move_player(p.side, p.unum, own_sign * (r + 0.3), y, p.yaw_deg)

    def _drop_ball(self, events: list[GameEvent] | None = None) -> None:
        world = self._world()
        x, y, _ = world.ball_position()
        hl, hw = self.field.half_length, self.field.half_width
        x, y = max(-hl + 0.5, min(hl - 0.5, x)), max(-hw + 0.5, min(hw - 0.5, y))
        for side in ("left", "right"):
            if self.field.in_penalty_area(side, x, y):
                edge = hl - self.field.penalty_depth - 0.5
                x = -edge if side == "left" else edge
        world.move_ball((x, y, self.field.ball_radius))
        self._clear_around((x, y), self.rules.free_kick_distance, None)
        self._set_mode(PlayMode.PLAY_ON, events)

    def _clear_around(self, spot: tuple[float, float], distance: float, side: str | None) -> None:
        """Move players (of `side`, or everybody) at least `distance` away from spot."""
        for p in self._world().players():
            if side is not None and p.side != side:
                continue
            dx, dy = p.position[0] - spot[0], p.position[1] - spot[1]
            d = math.hypot(dx, dy)
            if d < distance:
                if d < 1e-6:
                    dx, dy, d = (-1.0 if p.side == "left" else 1.0), 0.0, 1.0
                k = (distance + 0.3) / d
                self._world().move_player(p.side, p.unum, spot[0] + dx * k, spot[1] + dy * k, p.yaw_deg)

    def _check_ball(self, events: list[GameEvent]) -> None:
        x, y, z = self._world().ball_position()
        f = self.field
        r = f.ball_radius
        goal = f.goal_scored_in(x, y, z)
        s = self.state
        if goal:
            scorer = "left" if goal == "right" else "right"
            if scorer == "left":
                s.score_left += 1
            else:
                s.score_right += 1
            toucher = s.last_touch
            unum = toucher[1] if toucher and toucher[0] == scorer else 0
            events.append(GameEvent(s.game_time, "goal", scorer, unum,
                                    "own goal" if toucher and toucher[0] != scorer else ""))
            self._set_mode(PlayMode.GOAL_LEFT if scorer == "left" else PlayMode.GOAL_RIGHT, events)
            return
        last_side = s.last_touch[0] if s.last_touch else ""
        if abs(y) > f.half_width + r:
            taker = other(last_side) if last_side else ("left" if x > 0 else "right")
            self._set_spot = (max(-f.half_length, min(f.half_length, x)), math.copysign(f.half_width, y))
            self._set_mode(for_side("KickIn", taker), events)
            self._world().move_ball((*self._set_spot, r))
        elif abs(x) > f.half_length + r:
            defender = "right" if x > 0 else "left"
            if last_side == defender:  # defenders touched last: corner for the attackers
                attacker = other(defender)
                self._set_spot = (math.copysign(f.half_length - r, x),
                                  math.copysign((f.width + f.goal_width) / 4 - r, y))
                self._set_mode(for_side("corner_kick", attacker), events)
            else:
                self._set_spot = (math.copysign(f.half_length - 1.0, x), 0.0)
                self._set_mode(for_side("goal_kick", defender), events)
            self._world().move_ball((*self._set_spot, r))

    def _update_set_play(self, mode: PlayMode, touchers: Sequence[PlayerId], events: list[GameEvent]) -> None:
        spot = self._set_spot or self._world().ball_position()[:2]
        if self._mode_time < self.rules.kick_in_pause:
            self._hold_ball(spot)
            return
        opponents = other(mode.side)
        if mode.value.startswith("goal_kick"):
            for p in self._world().players():
                if p.side == opponents and self.field.in_penalty_area(mode.side, p.position[0], p.position[1]):
                    edge = self.field.half_length - self.field.penalty_depth - 0.5
                    self._world().move_player(p.side, p.unum, -edge if mode.side == "left" else edge,
                                              p.position[1], p.yaw_deg)
            x, y, _ = self._world().ball_position()
            if not self.field.in_penalty_area(mode.side, x, y):
                self._set_mode(PlayMode.PLAY_ON, events)
                return
        else:
            self._clear_around(spot, self.rules.free_kick_distance, opponents)
            if touchers:
                self._set_mode(PlayMode.PLAY_ON, events)
                return
        if self._mode_time > self.rules.drop_ball_time:
            self._drop_ball(events)

    def _check_time(self, events: list[GameEvent]) -> None:
        s = self.state
        if s.play_mode == PlayMode.GAME_OVER or s.game_time < self.rules.half_time * s.half:
            return
        if s.half >= self.rules.halves:
            self._set_mode(PlayMode.GAME_OVER, events)
            events.append(GameEvent(s.game_time, "game_over", "", 0, f"{s.score_left}:{s.score_right}"))
            return
        s.half += 1
        s.game_time = self.rules.half_time * (s.half - 1)
        if self.rules.change_sides_at_half_time:
            self.registry.swap_sides()
            s.team_left, s.team_right = self.registry.team_left, self.registry.team_right
            s.score_left, s.score_right = s.score_right, s.score_left
            self._clocks.clear()
            events.append(GameEvent(s.game_time, "sides_swapped", "", 0, f"{s.team_left} now left"))
            # The team that kicked off the first half is now on the other side.
            s.kick_off_side = self._first_half_kicker
        else:
            s.kick_off_side = other(self._first_half_kicker)
        self._set_mode(PlayMode.BEFORE_KICK_OFF, events)
        events.append(GameEvent(s.game_time, "half_time", s.kick_off_side, 0, f"half {s.half}"))

    # ------------------------------------------------------------------ fouls
    def _check_fouls(self, events: list[GameEvent]) -> None:
        players = list(self._world().players())
        for p in players:
            self._incapable(p, self._dt, events)
        self._illegal_defence(players, events)
        if self.rules.charging:
            self._charging(players, events)

    def _foul(self, p: PlayerView, kind: FoulType, events: list[GameEvent], *, off_field: bool) -> None:
        event = GameEvent(self.state.game_time, "foul", p.side, p.unum, kind.name.lower())
        events.append(event)
        self.fouls.append(event)
        world = self._world()
        if off_field:  # as rcssserver3d: beside the field, in the own half
            sign = -1.0 if p.side == "left" else 1.0
            world.move_player(p.side, p.unum, sign * 0.6 * (7 - p.unum),
                              -sign * (self.field.half_width + 0.5), p.yaw_deg)
        self._clocks.pop((p.side, p.unum), None)

    def _incapable(self, p: PlayerView, dt: float, events: list[GameEvent]) -> None:
        if not p.can_fall:
            return
        clock = self._clocks.setdefault((p.side, p.unum), _FoulClock())
        z = p.position[2]
        goalie = p.unum == 1
        clock.ground = clock.ground + dt if z < GROUND_Z else 0.0
        if z < STANDING_Z:
            clock.not_standing += dt
            clock.standing = 0.0
        else:
            clock.standing += dt
            if clock.standing > STAND_RESET_TIME:
                clock.not_standing = 0.0
        ground_max = self.rules.goalie_ground_max_time if goalie else self.rules.ground_max_time
        stand_max = self.rules.goalie_not_standing_max_time if goalie else self.rules.not_standing_max_time
        if clock.ground > ground_max or clock.not_standing > stand_max:
            self._foul(p, FoulType.INCAPABLE, events, off_field=True)

    def _illegal_defence(self, players: list[PlayerView], events: list[GameEvent]) -> None:
        for side in ("left", "right"):
            inside = [p for p in players if self.field.in_penalty_area(side, p.position[0], p.position[1])
                      and p.side == side]
            for p in inside:
                self._area_entry.setdefault((p.side, p.unum), self.state.game_time)
            inside_keys = {(p.side, p.unum) for p in inside}
            for key in [k for k in self._area_entry if k[0] == side and k not in inside_keys]:
                del self._area_entry[key]
            if len(inside) > self.rules.max_players_in_own_area:
                candidates = [p for p in inside if p.unum != 1] or inside
                last = max(candidates, key=lambda p: self._area_entry[(p.side, p.unum)])
                edge = self.field.half_length - self.field.penalty_depth - 0.3
                events.append(GameEvent(self.state.game_time, "foul", last.side, last.unum,
                                        FoulType.ILLEGAL_DEFENCE.name.lower()))
                self.fouls.append(events[-1])
                self._world().move_player(last.side, last.unum, -edge if side == "left" else edge,
                                          last.position[1], last.yaw_deg)
                self._area_entry.pop((last.side, last.unum), None)

    def _charging(self, players: list[PlayerView], events: list[GameEvent]) -> None:
        by_id = {(p.side, p.unum): p for p in players}
        bx, by, _ = self._world().ball_position()
        for a_id, b_id in self._world().player_contacts():
            a, b = by_id.get(a_id), by_id.get(b_id)
            if a is None or b is None or a.side == b.side:
                continue
            for attacker, victim in ((a, b), (b, a)):
                dx, dy = victim.position[0] - attacker.position[0], victim.position[1] - attacker.position[1]
                d = math.hypot(dx, dy) or 1.0
                closing = (attacker.velocity[0] * dx + attacker.velocity[1] * dy) / d
                near_ball = math.hypot(attacker.position[0] - bx, attacker.position[1] - by) < 0.3
                goalie_home = attacker.unum == 1 and self.field.in_penalty_area(
                    attacker.side, attacker.position[0], attacker.position[1])
                if closing > self.rules.charging_min_speed and not near_ball and not goalie_home:
                    self._foul(attacker, FoulType.CHARGING, events, off_field=True)
                    break
