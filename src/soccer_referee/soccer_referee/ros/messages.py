"""Referee state and events -> sim_msgs, and simulation time <-> builtin_interfaces/Time (pure
functions, no Node; the time conversions serve every package's messages)."""
from __future__ import annotations

import math

from builtin_interfaces.msg import Time

from sim_msgs.msg import GameEvent as GameEventMsg
from sim_msgs.msg import GameState
from soccer_referee.events import GameEvent
from soccer_referee.referee import GameStateSnapshot


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
