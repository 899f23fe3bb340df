"""The page's commands, checked: JSON from a browser becomes a referee command, a
simulation control or a replay control, or one clear error. Numbers must be finite and on
(or just around) the field; nothing else is read from the message.

Referee buttons: kickoff (side), drop_ball, free_kick (side), play_mode (name), move_ball
(x, y), move_robot (side, unum, x, y, yaw). Simulation: pause, play. Replay: pause, play,
step (cycles), seek (time), speed (0.25-8)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

from sim_contracts.field import FieldSpec
from soccer_referee.commands import DropBall, KickOff, MoveAgent, MoveBall, RefereeCommand, SetPlayMode
from soccer_referee.play_modes import PlayMode

SPEEDS: Final = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
MAX_STEP: Final = 500
MARGIN: Final = 1.0  # m beyond the field's lines a dragged robot or ball may be put


class CommandError(ValueError):
    """The message is not a command this page may send: the text says why."""


@dataclass(slots=True, frozen=True)
class Control:
    """A simulation or replay control: pause, play, step (cycles), seek (s), speed (x)."""

    name: str
    value: float = 0.0


def _number(command: dict[str, Any], key: str, low: float, high: float) -> float:
    value = command.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise CommandError(f"{command['cmd']}: {key} must be a finite number")
    if not low <= value <= high:
        raise CommandError(f"{command['cmd']}: {key} {value:g} is outside {low:g}..{high:g}")
    return float(value)


def _side(command: dict[str, Any]) -> str:
    side = command.get("side")
    if side not in ("left", "right"):
        raise CommandError(f"{command['cmd']}: side must be left or right")
    return str(side)


def parse_referee(command: dict[str, Any], field: FieldSpec) -> RefereeCommand | Control:
    """A live page's command (pause/play included)."""
    name = command["cmd"]
    hl, hw = field.half_length + MARGIN, field.half_width + MARGIN
    if name in ("pause", "play"):
        return Control(name)
    if name == "kickoff":
        return KickOff(_side(command))
    if name == "drop_ball":
        return DropBall()
    if name == "free_kick":
        return SetPlayMode(f"free_kick_{_side(command)}")
    if name == "play_mode":
        mode = command.get("name")
        if not isinstance(mode, str) or mode not in {m.value for m in PlayMode}:
            raise CommandError(f"play_mode: unknown play mode {str(mode)[:40]!r}")
        return SetPlayMode(mode)
    if name == "move_ball":
        x, y = _number(command, "x", -hl, hl), _number(command, "y", -hw, hw)
        return MoveBall((x, y, field.ball_radius))
    if name == "move_robot":
        unum = _number(command, "unum", 1, 99)
        if unum != int(unum):
            raise CommandError("move_robot: unum must be a whole number")
        return MoveAgent(_side(command), int(unum), _number(command, "x", -hl, hl), _number(command, "y", -hw, hw),
                         _number(command, "yaw", -360, 360) if "yaw" in command else 0.0)
    raise CommandError(f"unknown command {str(name)[:40]!r}")


def parse_replay(command: dict[str, Any]) -> Control:
    name = command["cmd"]
    if name in ("pause", "play"):
        return Control(name)
    if name == "step":
        return Control("step", _number(command, "cycles", 1, MAX_STEP) if "cycles" in command else 1.0)
    if name == "seek":
        return Control("seek", _number(command, "time", 0.0, 1e7))
    if name == "speed":
        value = _number(command, "value", SPEEDS[0], SPEEDS[-1])
        return Control("speed", value)
    raise CommandError(f"a replay takes pause, play, step, seek and speed, not {str(name)[:40]!r}")
