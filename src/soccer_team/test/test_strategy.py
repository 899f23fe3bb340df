"""The strategy tree on beliefs alone (no body): who goes for the ball and where the others wait."""
from __future__ import annotations

from sim_master.bt.loader import tick
from soccer_team.beliefs import Beliefs
from soccer_team.strategy import HOME, factory_for, strategy_xml


def _target(unum: int, ball: tuple[float, float], mates: dict[int, tuple[float, float]]) -> Beliefs:
    b = Beliefs("left", unum, play_mode="PlayOn", ball=ball, ball_age=0.0)
    b.x, b.y = HOME[unum]
    b.mates = mates
    tick(factory_for(b).create_tree(strategy_xml(), "FieldPlayer"))
    return b


def test_forwards_wait_ahead_of_the_ball_and_defenders_behind_it() -> None:
    """A team-mate (7) stands at the ball: the forwards wait 3 m before it toward the opponent
    goal, where a kick lands (no offside); a defender stays between the ball and its own goal."""
    ball = (2.0, 1.0)
    mates = {7: (2.2, 1.0)}
    for unum in (9, 10, 11):
        b = _target(unum, ball, mates)
        assert b.target is not None and not b.push
        assert b.target[0] >= 4.5 and b.target[0] > ball[0] + 2.0  # ahead, off the shot's line
    defender = _target(2, ball, mates)
    assert defender.target is not None and defender.target[0] < ball[0] - 4.0


def test_forwards_never_wait_in_the_goal() -> None:
    b = _target(9, (14.0, 0.0), {7: (13.8, 0.0)})
    assert b.target is not None and b.target[0] <= 13.0  # 2 m before the goal line at most


def test_the_closest_player_goes_for_the_ball() -> None:
    b = _target(9, (-1.0, 0.0), {7: (-5.0, 2.0)})
    assert b.target is not None and abs(b.target[0] - (-1.0)) < 1.2  # at the ball, not 3 m before it


def test_forwards_stand_beside_the_line_of_the_shot() -> None:
    """Near the goal and in midfield alike, a forward waiting ahead of the ball keeps 1 m off
    the line from the ball to the opponent goal, where its own side's kick goes."""
    import math

    for ball in ((11.0, 1.0), (2.0, 0.0), (5.0, -3.0), (-4.0, 6.0)):
        mates = {7: (ball[0] - 0.2, ball[1])}
        for unum in (9, 10, 11):
            t = _target(unum, ball, mates).target
            assert t is not None
            dx, dy = 15.0 - ball[0], -ball[1]
            n = math.hypot(dx, dy)
            lateral = abs(-(t[0] - ball[0]) * dy / n + (t[1] - ball[1]) * dx / n)
            assert lateral >= 1.0 - 1e-9, (ball, unum, t)
