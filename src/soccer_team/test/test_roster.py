"""The base team's robot types per shirt number, as every runner asks for them."""
from __future__ import annotations

import pytest

from soccer_team.roster import ROBOT_TYPES, model_of, parse_types, type_of


def test_the_roster_fields_every_type_and_the_last_one_serves_the_rest() -> None:
    assert len(set(ROBOT_TYPES)) >= 3 and len(ROBOT_TYPES) == 11 and ROBOT_TYPES[0] == 0  # the league: 3 types
    assert [type_of((0, 1, 4), u) for u in range(1, 6)] == [0, 1, 4, 4, 4]
    assert type_of((), 3) == 0 and type_of((2, 3), 0) == 2
    assert model_of(ROBOT_TYPES, 2) == f"nao{ROBOT_TYPES[1]}"


@pytest.mark.parametrize("text, types", [("0,1,1,2", (0, 1, 1, 2)), (" 3 , 4", (3, 4)), ("0", (0,)),
                                         ("", None), ("0,,1", None), ("5", None), ("01", None), ("+1", None),
                                         (",".join("0" * 65), None)])
def test_robot_types_are_read_strictly(text: str, types: tuple[int, ...] | None) -> None:
    assert parse_types(text) == types
