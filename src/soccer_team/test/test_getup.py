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


def test_a_type_4_robot_whose_toes_a_fall_bent_stands_again() -> None:
    """Type 4's toes (llj7, rlj7) are no motion's joints, and a fall or a physics roll-back can
    bend them to their limit. The motion layer holds every joint it does not set straight, so
    the robot straightens its toes and stands again. Before, it never did: toes left at 67-70 deg
    kept one midfielder lying for minutes of a full match (59 falls)."""
    from soccer_team.leg_kinematics import legs_of
    from soccer_team.motion import MotionBrain
    from soccer_team.trial import run_robot, torso_up

    engine = make_engine()
    engine.add_robot("a", "nao4", 0.0, 0.0, 0.0)
    engine.step()
    lay_down(engine, "a", "front", 0)
    for _ in range(25):
        engine.set_joint_velocities("a", {"lle7": 6.0, "rle7": 6.0})
        engine.step()
    engine.set_joint_velocities("a", {"lle7": 0.0, "rle7": 0.0})

    def toes() -> list[float]:
        p = engine.percept("a", vision=False)
        return [a for n, a in zip(p.joint_names, p.joint_angles, strict=True) if n in ("llj7", "rlj7")]

    assert min(toes()) > 50.0, toes()  # bent as the match left them
    brain = MotionBrain(legs=legs_of("nao4"))
    run_robot(engine, "a", brain.act, int(10.0 / 0.02), stop_on_fall=False, delay=1, queue=[])
    (_, _, z), q = engine.robot_pose("a")
    assert max(abs(a) for a in toes()) < 4.0, toes()  # within the 3 deg dead band, give or take a step
    assert brain.getups >= 1 and torso_up(q) > 0.9 and z > 0.28, (brain.getups, torso_up(q), z)
