"""The strategy tree on beliefs alone (no body): who goes for the ball and where the others wait."""
from __future__ import annotations

import math

from sim_master.bt.loader import tick
from soccer_team.beliefs import Beliefs
from soccer_team.strategy import HOME, factory_for, strategy_xml


def _target(unum: int, ball: tuple[float, float], mates: dict[int, tuple[float, float]],
            at: tuple[float, float] | None = None) -> Beliefs:
    b = Beliefs("left", unum, play_mode="PlayOn", ball=ball, ball_age=0.0)
    b.x, b.y = at or HOME[unum]
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


def test_of_two_players_about_as_near_the_ball_one_goes_for_it() -> None:
    """Each sees the other within 0.3 m of its own distance: the lower shirt number goes, the
    other waits ahead (both went, and knocked each other down, before)."""
    ball, nine_at, ten_at = (5.0, 0.0), (4.6, 0.1), (4.7, -0.1)

    def goes(b: Beliefs) -> bool:
        return b.target is not None and math.hypot(b.target[0] - ball[0], b.target[1] - ball[1]) < 1.2

    assert goes(_target(9, ball, {10: ten_at}, nine_at))
    assert not goes(_target(10, ball, {9: nine_at}, ten_at))
    assert goes(_target(10, ball, {9: (3.0, 2.0)}, ten_at))  # a mate clearly farther: it goes


def test_forwards_stand_beside_the_line_of_the_shot() -> None:
    """Near the goal and in midfield alike, a forward waiting ahead of the ball keeps 1 m off
    the line from the ball to the opponent goal, where its own side's kick goes."""
    for ball in ((11.0, 1.0), (2.0, 0.0), (5.0, -3.0), (-4.0, 6.0)):
        mates = {7: (ball[0] - 0.2, ball[1])}
        for unum in (9, 10, 11):
            t = _target(unum, ball, mates).target
            assert t is not None
            dx, dy = 15.0 - ball[0], -ball[1]
            n = math.hypot(dx, dy)
            lateral = abs(-(t[0] - ball[0]) * dy / n + (t[1] - ball[1]) * dx / n)
            assert lateral >= 1.0 - 1e-9, (ball, unum, t)
