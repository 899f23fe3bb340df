"""Referee state and events <-> sim_msgs, and simulation time <-> builtin_interfaces/Time (pure
functions, no Node; the time conversions serve every package's messages).

`game_state_from_msg` is the one check of a game state that comes from outside this process
(a remote referee's verdict, /game_state, a replay log): whoever carried it, a team name, a
play mode, a score or a time reaches a monitor stream, a percept or a page only through it."""
from __future__ import annotations

import math

from builtin_interfaces.msg import Time

from sim_contracts.names import TEAM_NAME
from sim_msgs.msg import GameEvent as GameEventMsg
from sim_msgs.msg import GameState
from soccer_referee.checks import MAX_GAME_TIME, MAX_SCORE
from soccer_referee.events import GameEvent
from soccer_referee.game_state import GameStateSnapshot
from soccer_referee.play_modes import PlayMode
from soccer_referee.world import PlayerId, as_side

MAX_HALF = 4  # two halves and two of extra time
MAX_UNUM = 99


def stamp(t: float) -> Time:
    """Seconds of simulation time as a message stamp."""
    sec = math.floor(t)
    return Time(sec=int(sec), nanosec=min(999_999_999, int(round((t - sec) * 1e9))))


def seconds(t: Time) -> float:
    return t.sec + t.nanosec * 1e-9


def game_state_to_msg(state: GameStateSnapshot, stamp: Time) -> GameState:
    touch = state.last_touch
    return GameState(stamp=stamp, play_mode=state.play_mode.value, play_mode_index=state.play_mode.monitor_index,
                     game_time=state.game_time, half=state.half, team_left=state.team_left,
                     team_right=state.team_right, score_left=state.score_left, score_right=state.score_right,
                     last_touch_team=touch[0] if touch else "", last_touch_unum=touch[1] if touch else 0)


def event_to_msg(event: GameEvent, stamp: Time) -> GameEventMsg:
    return GameEventMsg(stamp=stamp, game_time=event.time, kind=event.kind, team=event.team,
                        unum=event.unum, detail=event.detail)


def game_key(msg: GameState) -> tuple[object, ...]:
    """What makes a GameState worth publishing again (everything but the running clock)."""
    return (msg.play_mode, msg.score_left, msg.score_right, msg.team_left, msg.team_right, msg.half,
            msg.last_touch_team, msg.last_touch_unum)


def game_state_from_msg(msg: GameState) -> GameStateSnapshot:
    """The game state a message carries, checked as the referee's own is made; ValueError says
    what is wrong (the caller keeps the state it had)."""
    try:
        mode = PlayMode(msg.play_mode)
    except ValueError:
        raise ValueError(f"unknown play mode {msg.play_mode[:40]!r}") from None
    for team in (msg.team_left, msg.team_right):
        if team and not TEAM_NAME.fullmatch(team):
            raise ValueError(f"team name {team[:40]!r} is not 1-64 printable characters without spaces, "
                             "quotes, parentheses or <>&")
    game_time = float(msg.game_time)
    if not (math.isfinite(game_time) and 0.0 <= game_time <= MAX_GAME_TIME):
        raise ValueError(f"game time {game_time:g} outside 0..{MAX_GAME_TIME:g} s")
    if not 1 <= msg.half <= MAX_HALF:
        raise ValueError(f"half {msg.half} outside 1..{MAX_HALF}")
    if not (0 <= msg.score_left <= MAX_SCORE and 0 <= msg.score_right <= MAX_SCORE):
        raise ValueError(f"scores {msg.score_left}:{msg.score_right} outside 0..{MAX_SCORE}")
    touch: PlayerId | None = None
    if msg.last_touch_team in ("left", "right") and 1 <= msg.last_touch_unum <= MAX_UNUM:
        touch = (as_side(msg.last_touch_team), int(msg.last_touch_unum))
    elif msg.last_touch_team:
        raise ValueError(f"last touch by {msg.last_touch_team[:10]!r} #{msg.last_touch_unum}")
    return GameStateSnapshot(mode, game_time, int(msg.half), msg.team_left, msg.team_right, int(msg.score_left),
                             int(msg.score_right), touch)
