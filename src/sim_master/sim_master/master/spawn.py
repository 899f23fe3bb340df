"""Where robots appear: parked beside the field until they join, then at the reference's
default slots (rcssserver3d `RequestInitPosition`), so that agents which never beam still
start in their own half and out of each other's way."""
from __future__ import annotations

from typing import Final

from sim_contracts.agents import JoinSpots
from sim_contracts.field import FieldSpec

SLOT_SPACING: Final = 1.2
SLOT_MARGIN: Final = 0.8
RCSSSMJ_FIELD_BORDER: Final = 3.0  # m, rcsssmj's field border: its robots spawn that far out


def parking_spot(index: int, field_length: float, field_width: float) -> tuple[float, float, float]:
    """A spot outside the side line for a robot that has not joined a team yet (x, y, yaw)."""
    x = -field_length / 2 + 1.0 + (index % 24) * 1.2
    y = -(field_width / 2 + 1.0 + (index // 24) * 1.2)
    return x, y, 90.0


def init_slot(side: str, count: int, field_length: float, field_width: float) -> tuple[float, float, float]:
    """Default position of the count-th robot of a team (global x, y, yaw deg)."""
    per_column = max(1, int((field_width - 2 * SLOT_MARGIN) / SLOT_SPACING))
    column, row = divmod(count, per_column)
    x = -field_length / 2 + SLOT_MARGIN + column * SLOT_SPACING
    y = field_width / 2 - SLOT_MARGIN - row * SLOT_SPACING
    if side == "right":
        return -x, -y, 180.0
    return x, y, 0.0


def rcsssmj_spawn(side: str, unum: int, field_width: float) -> tuple[float, float, float]:
    """Where rcsssmj puts a joining robot: on the upper side line's border, x = 2 unum + 1
    into its own half, facing -90 deg (towards the field)."""
    x = -(2 * unum + 1) if side == "left" else 2 * unum + 1
    return float(x), field_width / 2 + RCSSSMJ_FIELD_BORDER, -90.0


def join_spot(spots: JoinSpots, side: str, unum: int, count: int, field: FieldSpec) -> tuple[float, float, float]:
    """Where a player's robot goes when it joins (and when the world is reset): its rules'
    spots, count being the number of its team's robots placed before it."""
    if spots is JoinSpots.SIDE_LINE:
        return rcsssmj_spawn(side, unum, field.width)
    return init_slot(side, count, field.length, field.width)
