"""The built-in teams by name: the robot each shirt number plays and the brain made for it."""
from __future__ import annotations

from sim_tools.demo.teams import TEAMS

from soccer_team.leg_kinematics import legs_of
from soccer_team.roster import ROBOT_TYPES


def test_a_base_player_plays_the_type_its_number_asks_for_on_that_types_legs() -> None:
    """What `soccersim match` and `soccersim team` do per shirt number: ask the server for the
    roster's model and solve the walk for its legs."""
    base = TEAMS["base"]
    for unum in range(1, 12):
        model = base.model_of(None, unum)
        assert model == f"nao{ROBOT_TYPES[unum - 1]}"
        brain = base.make("left", unum, 30.0, 20.0, 2.1, model)
        assert brain.motion.legs == legs_of(model)  # type: ignore[attr-defined]  # NaoBrain's, not LocalBrain's
    assert base.model_of((2,), 7) == "nao2"
    assert TEAMS["demo"].model_of(None, 3) == TEAMS["demo"].model_of((1,), 3) == "pusher"
