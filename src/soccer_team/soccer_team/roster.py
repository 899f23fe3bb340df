"""Which nao_hetero type each shirt number of the base team plays.

Why a roster: the league plays mixed robot types (longer legs, other ankle motors, toes), and a
base team that only fields type 0 meets none of them. The walk and the kick are solved for each
type's legs (leg_kinematics.legs_of), so the roster is a choice, not a constraint: every runner
(`soccersim match`, `soccersim team` over ROS or TCP) takes this one and `--robot-types`
replaces it."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Final

# goalie and forwards type 0, defenders type 2 (other ankle motors), midfield type 4 (toes): the
# types whose get-ups stand (docs/team.md). Types 1 and 3 walk and kick but their legs, longer
# than the get-ups' key poses were tuned for, mostly stay down from the back: ask for them with
# --robot-types.
ROBOT_TYPES: Final = (0, 2, 2, 2, 4, 4, 4, 4, 0, 0, 0)


def type_of(robot_types: Sequence[int], unum: int) -> int:
    """The type player `unum` plays: its entry, or the last one given (0 for none)."""
    return robot_types[min(max(unum, 1), len(robot_types)) - 1] if robot_types else 0


def model_of(robot_types: Sequence[int], unum: int) -> str:
    """The robot model (nao0 ... nao4) player `unum` asks for."""
    return f"nao{type_of(robot_types, unum)}"


def parse_types(text: str) -> tuple[int, ...] | None:
    """"0,1,1,2" as nao_hetero types, or None when it is not that."""
    parts = [p.strip() for p in text.split(",")]
    if not 1 <= len(parts) <= 64 or not all(p in ("0", "1", "2", "3", "4") for p in parts):
        return None
    return tuple(int(p) for p in parts)
