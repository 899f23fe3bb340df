"""The referee's one boundary: what a registration, a beam or a command must be before any
host of the referee (in the server's process, over DDS, in referee_node) acts on it.

Why a module of its own: the checks used to live inside the in-process referee, so the DDS
host passed on what it never looked at. Every host derives from `service.RefereeHost`, whose
public calls run these first; what is left to a host is what needs the game's state (is the
player registered, is beaming allowed now, is the game over)."""
from __future__ import annotations

import math

from sim_contracts import names
from sim_contracts.field import FieldSpec
from soccer_referee.commands import (
    DropBall,
    KickOff,
    MoveAgent,
    MoveBall,
    RefereeCommand,
    SetPlayMode,
    SetScore,
    SetTime,
)
from soccer_referee.play_modes import PlayMode

MAX_GAME_TIME = 24 * 3600.0  # s: a set time beyond any match (1e308 once swapped the sides)
MAX_SCORE = 999  # logs and frames carry scores as small integers
SIDES = ("left", "right")


def registration_problem(team: str, unum: int, players_per_side: int) -> str | None:
    """Why a team name and uniform number cannot register, or None (0 asks for any number)."""
    if not isinstance(team, str) or not names.TEAM_NAME.fullmatch(team):
        return (f"invalid team name {str(team)[:80]!r}: 1-64 printable characters, no spaces, quotes or "
                "parentheses")
    if isinstance(unum, bool) or not isinstance(unum, int) or not 0 <= unum <= players_per_side:
        return f"uniform number {unum} is outside 1..{players_per_side}"
    return None


def beam_problem(side: str, unum: int, x: float, y: float, rot_deg: float) -> str | None:
    """Why a beam request is no request at all (a host then checks it against the game)."""
    if side not in SIDES or isinstance(unum, bool) or not isinstance(unum, int):
        return f"no player {str(side)[:10]} #{str(unum)[:10]}"
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in (x, y, rot_deg)):
        return "beam values must be finite"
    return None


def step_problem(dt: float) -> str | None:
    """Why a referee cannot step by `dt` (s), or None: a cycle is 0 < dt <= 1 s."""
    if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not math.isfinite(dt) or not 0.0 < dt <= 1.0:
        return f"a referee steps by 0 < dt <= 1 s, not {dt!r}"
    return None


def command_problem(command: RefereeCommand, field: FieldSpec) -> str | None:
    """Why an operator's command cannot be carried out on this field whatever the game's state,
    or None."""
    if isinstance(command, KickOff):
        if command.side and str(command.side).lower() not in SIDES:  # None or "": the side whose turn it is
            return f"kick-off side must be Left, Right or None, not {command.side!r}"
    elif isinstance(command, SetPlayMode):
        try:
            PlayMode.parse(command.name)
        except ValueError as exc:
            return str(exc)
    elif isinstance(command, DropBall):
        pass
    elif isinstance(command, MoveBall):
        if not _finite(*command.position, *command.velocity) or len(command.position) != 3 \
                or len(command.velocity) != 3:
            return "ball position and velocity must be three finite numbers each"
        outside = field.outside_world(*command.position[:2], z=command.position[2])
        if outside:
            return outside
        too_fast = field.too_fast(*command.velocity)
        if too_fast:
            return f"ball {too_fast} m/s"
    elif isinstance(command, MoveAgent):
        return _move_agent_problem(command, field)
    elif isinstance(command, SetTime):
        if not _finite(command.time) or not 0 <= command.time <= MAX_GAME_TIME:
            return f"invalid game time {command.time}: 0..{MAX_GAME_TIME:g} s"
    elif isinstance(command, SetScore):
        if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_SCORE
                   for v in (command.left, command.right)):
            return f"scores must be in 0..{MAX_SCORE}"
    else:
        return f"unknown command {str(command)[:80]!r}"
    return None


def _move_agent_problem(command: MoveAgent, field: FieldSpec) -> str | None:
    if command.side not in SIDES or isinstance(command.unum, bool) or not isinstance(command.unum, int):
        return f"no player {str(command.side)[:10]} #{str(command.unum)[:10]}"
    given = [command.x, command.y, *(v for v in (command.rotation, command.z) if v is not None),
             *(command.orientation or ())]
    if not _finite(*given):
        return "agent position must be finite"
    wrong = None if command.orientation is None else field.bad_orientation(command.orientation)
    if wrong:
        return f"agent {wrong}"
    return field.outside_world(command.x, command.y, 0.0 if command.z is None else command.z)


def _finite(*values: object) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values)
