"""Getting up on the real engine (ODE): a robot laid down as a fall leaves a player, in ways the
tuner never tried (tilted, turned, limbs flung: getup_trials.lay_down's seeds from 10 on; the
tuner used 0-7), finds itself lying from its accelerometer and stands again. Issue 47 asks 9 of
10 from each side: both reach it as the motion layer tries again (front 40 of 40, back 39 of 40
within 15 s); at the first attempt the front stands 34 of 40, the back 27 of 40 (docs/team.md),
which the tests hold so that it cannot slip back unseen."""
from __future__ import annotations

import pytest

from soccer_team.getup import lying
from soccer_team.getup_trials import getup_trial, lay_down
from soccer_team.motion import body_accel
from soccer_team.trial import make_engine


@pytest.mark.parametrize("side", ["front", "back"])
def test_the_accelerometer_tells_which_side_a_robot_lies_on(side: str) -> None:
    engine = make_engine()
    engine.add_robot("a", "nao", 0.0, 0.0, 0.0)
    engine.step()
    assert lying(body_accel(engine.percept("a", vision=False).accel)) == ""
    lay_down(engine, "a", side, 3)
    assert lying(body_accel(engine.percept("a", vision=False).accel)) == side


def test_nine_of_ten_falls_on_the_front_end_standing() -> None:
    results = [getup_trial("front", variant) for variant in range(10, 20)]
    assert sum(r.stood for r in results) >= 9, [r.stood for r in results]
    assert max(r.seconds for r in results if r.stood) < 3.0


def test_nine_of_ten_falls_on_the_back_end_standing() -> None:
    """The roll onto the front, lying flat, then the front's get-up: most at the first attempt
    (in about 5 s), the others when the motion layer finds the robot still lying and tries again."""
    retrying = [getup_trial("back", variant, within=15.0) for variant in range(10, 20)]
    first = [r.stood and r.seconds < 5.5 for r in retrying]  # one motion takes about 5 s
    assert sum(first) >= 5, [(r.stood, r.seconds) for r in retrying]  # 27 of 40 over seeds 10-49
    assert sum(r.stood for r in retrying) >= 9, [(r.stood, r.seconds) for r in retrying]  # 39 of 40


@pytest.mark.parametrize("side", ["front", "back"])
def test_the_rosters_other_types_get_up_too(side: str) -> None:
    """The get-ups are key poses tuned on type 0; the roster's other types (2: other ankle
    motors, 4: toes) stand with them too, within 15 s from 5 unseen falls each (measured over
    10: nao2 10 and 10, nao4 10 and 9; types 1 and 3, not in the roster, 0-7)."""
    from soccer_team.roster import ROBOT_TYPES

    for robot_type in sorted(set(ROBOT_TYPES) - {0}):
        stood = sum(getup_trial(side, v, within=15.0, model=f"nao{robot_type}").stood for v in range(10, 15))
        assert stood >= 4, (robot_type, side, stood)
