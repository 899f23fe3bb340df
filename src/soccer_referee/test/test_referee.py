"""The referee's decisions for scripted sequences of states, against the SimSpark play-mode
names, indices and transitions (rcssserver3d 0.7.3)."""
from __future__ import annotations

import pytest
from scripted_world import ScriptedWorld  # src/soccer_referee/test on pythonpath

from sim_contracts.agents import BeamFrame
from soccer_referee.commands import KickOff, MoveBall, SetPlayMode, SetScore, SetTime
from soccer_referee.play_modes import PlayMode
from soccer_referee.referee import Referee

DT = 0.02


def test_play_mode_names_and_monitor_indices() -> None:
    expected = ["BeforeKickOff", "KickOff_Left", "KickOff_Right", "PlayOn", "KickIn_Left", "KickIn_Right",
                "corner_kick_left", "corner_kick_right", "goal_kick_left", "goal_kick_right",
                "offside_left", "offside_right", "GameOver", "Goal_Left", "Goal_Right",
                "free_kick_left", "free_kick_right", "direct_free_kick_left", "direct_free_kick_right",
                "pass_left", "pass_right"]
    assert [PlayMode(n).monitor_index for n in expected] == list(range(21))


def make(world: ScriptedWorld | None = None, rules: str = "simspark") -> tuple[Referee, ScriptedWorld]:
    world = world or ScriptedWorld()
    referee = Referee.create(rules, world)
    assert referee.register("Alpha", 1).side == "left"
    assert referee.register("Beta", 1).side == "right"
    world.put("left", 1, -10.0, 0.0)
    world.put("right", 1, 10.0, 0.0)
    return referee, world


def run(referee: Referee, seconds: float) -> list:
    events = []
    for _ in range(round(seconds / DT)):
        events += referee.step(DT)
    return events


# (step description, world change before stepping, expected play mode, expected score)
SCRIPT = [
    ("before kick-off time is frozen", lambda w: None, "BeforeKickOff", (0, 0)),
    ("operator kicks off", "kickoff", "KickOff_Left", (0, 0)),
    ("first touch", lambda w: w.touchers.append(("left", 1)), "PlayOn", (0, 0)),
    ("ball into the right goal", lambda w: (w.touchers.clear(), w.move_ball((15.2, 0.3, 0.1))), "Goal_Left", (1, 0)),
    ("3 s later the conceding team kicks off", "wait3", "KickOff_Right", (1, 0)),
    ("right touches", lambda w: w.touchers.append(("right", 1)), "PlayOn", (1, 0)),
    (
        "over the side line after right touched",
        lambda w: (w.touchers.clear(), w.move_ball((3.0, 10.2, 0.04))),
        "KickIn_Left",
        (1, 0),
    ),
    ("kick-in taken after the 1 s pause", "touch_after_pause_left", "PlayOn", (1, 0)),
    (
        "left plays it over the left goal line",
        lambda w: (w.touchers.clear(), w.move_ball((-15.2, 3.0, 0.04))),
        "corner_kick_right",
        (1, 0),
    ),
    ("corner taken", "touch_after_pause_right", "PlayOn", (1, 0)),
    (
        "right plays it over the left goal line",
        lambda w: (w.touchers.clear(), w.move_ball((-15.2, 5.0, 0.04))),
        "goal_kick_left",
        (1, 0),
    ),
]


def test_scripted_sequence_of_states() -> None:
    referee, world = make()
    for description, change, mode, score in SCRIPT:
        if change == "kickoff":
            assert referee.command(KickOff("Left")).ok
        elif change == "wait3":
            run(referee, 3.0)
        elif isinstance(change, str) and change.startswith("touch_after_pause_"):
            run(referee, 1.1)
            assert referee.state.play_mode.value == SCRIPT[SCRIPT.index((description, change, mode, score)) - 1][2]
            world.touchers.append((change.rsplit("_", 1)[1], 1))
        elif callable(change):
            change(world)
        referee.step(DT)
        s = referee.state
        assert (s.play_mode.value, (s.score_left, s.score_right)) == (mode, score), description
    assert referee.state.game_time > 3.0


def test_kick_in_and_corner_spots() -> None:
    referee, world = make()
    referee.command(SetPlayMode("PlayOn"))
    world.touchers.append(("left", 1))
    referee.step(DT)
    world.touchers.clear()
    world.move_ball((4.0, -10.3, 0.04))
    referee.step(DT)
    assert referee.state.play_mode == PlayMode.KICK_IN_RIGHT and world.ball[:2] == (4.0, -10.0)
    referee.command(SetPlayMode("PlayOn"))
    world.touchers.append(("right", 1))
    world.move_ball((15.3, -4.0, 0.04))
    referee.step(DT)  # the right team (defending the right goal) touched last: corner for left
    assert referee.state.play_mode == PlayMode.CORNER_KICK_LEFT
    assert world.ball[0] == pytest.approx(15 - 0.042) and world.ball[1] == pytest.approx(-(22.1 / 4 - 0.042))


def test_registration_refusals() -> None:
    referee, _ = make()
    assert "outside 1..11" in referee.register("Alpha", 12).error
    assert "taken" in referee.register("Alpha", 1).error
    third = referee.register("Gamma", 2)
    assert not third.success and "cannot join" in third.error
    assert referee.register("Alpha", 0).unum == 2  # lowest free
    for n in range(3, 12):
        assert referee.register("Alpha", n).success
    assert "full" in referee.register("Alpha", 0).error


def test_beam_rules_per_dialect() -> None:
    referee, _ = make()
    ok = referee.request_beam("left", 1, 5.0, 3.0, 30.0)  # clamped to the own half
    assert (ok.success, ok.x, ok.y, ok.yaw_deg) == (True, 0.0, 3.0, 30.0)
    right = referee.request_beam("right", 1, -14.0, 2.0, 0.0)
    assert (right.x, right.y, right.yaw_deg) == (14.0, -2.0, -180.0)
    mj = referee.request_beam("right", 1, -6.0, 2.0, 45.0, frame=BeamFrame.ABSOLUTE_X)
    assert (mj.x, mj.y, mj.yaw_deg) == (6.0, 2.0, -135.0)  # x mirrored by |x|, y kept, +180
    referee.command(SetPlayMode("PlayOn"))
    refused = referee.request_beam("left", 1, -3.0, 0.0, 0.0)
    assert not refused.success and "not allowed in PlayOn" in refused.error


def test_kick_off_clears_like_rcssserver3d() -> None:
    """The kicker may cross the half-way line inside the centre circle (it walks round the
    ball to line up); outside the circle it is sent back; the defenders leave the circle."""
    referee, world = make()
    assert referee.register("Alpha", 9).side == "left" and referee.register("Beta", 9).side == "right"
    world.put("left", 9, 0.15, -0.2)  # kicker, over the line but inside the circle
    world.put("left", 1, 4.0, 3.0)  # team-mate in the opponent half, outside the circle
    world.put("right", 9, 1.0, 0.5)  # defender inside the circle
    referee.command(KickOff("Left"))
    run(referee, 0.1)
    assert world.robots[("left", 9)].position[:2] == (0.15, -0.2)
    assert world.robots[("left", 1)].position[0] < 0
    x, y, _ = world.robots[("right", 9)].position
    assert x > 0 and x * x + y * y >= referee.field.center_radius ** 2


def test_half_time_switches_sides_and_kick_off_team_then_game_over() -> None:
    referee, world = make(rules="simspark-swap")
    referee.command(KickOff("Left"))
    referee.command(SetScore(2, 1))
    referee.command(SetTime(299.99))
    events = run(referee, 0.04)
    s = referee.state
    assert (s.half, s.play_mode, s.team_left, s.team_right) == (2, PlayMode.BEFORE_KICK_OFF, "Beta", "Alpha")
    assert (s.score_left, s.score_right) == (1, 2)  # scores travel with the teams
    assert s.kick_off_side == "left"  # Beta (now left) kicks off the second half
    assert any(e.kind == "sides_swapped" for e in events)
    referee.command(KickOff())
    assert s.play_mode == PlayMode.KICK_OFF_LEFT
    referee.command(SetTime(599.99))
    run(referee, 0.04)
    assert s.play_mode == PlayMode.GAME_OVER
    frozen = s.game_time
    run(referee, 1.0)
    assert s.game_time == frozen


@pytest.mark.parametrize("rules", ["simspark", "rcssserver3d"])
def test_the_default_and_strict_rule_books_keep_sides_as_rcssserver3d(rules: str) -> None:
    world = ScriptedWorld()
    referee = Referee.create(rules, world)
    referee.register("Alpha", 1)
    referee.register("Beta", 1)
    referee.command(KickOff("Left"))
    referee.command(SetTime(299.99))
    events = run(referee, 0.04)
    assert (referee.state.team_left, referee.state.kick_off_side) == ("Alpha", "right")
    assert not any(e.kind == "sides_swapped" for e in events)


def test_fallen_player_gets_the_incapable_foul_and_is_moved_out() -> None:
    referee, world = make()
    referee.command(SetPlayMode("PlayOn"))
    world.put("left", 5, -3.0, 2.0, z=0.08)
    referee.registry.members["left"].add(5)
    events = run(referee, 15.5)
    fouls = [e for e in events if e.kind == "foul"]
    assert [(e.team, e.unum, e.detail) for e in fouls] == [("left", 5, "incapable")]
    x, y, _ = world.robots[("left", 5)].position
    assert y > 10.0  # beside the field


def test_too_many_defenders_in_own_area() -> None:
    referee, world = make()
    referee.command(SetPlayMode("PlayOn"))
    for n in (2, 3, 4):
        referee.registry.members["left"].add(n)
        world.put("left", n, -14.0, n - 3.0)
        referee.step(DT)
    world.put("left", 1, -14.5, 0.0)
    events = referee.step(DT)
    assert [(e.unum, e.detail) for e in events if e.kind == "foul"] == [(4, "illegal_defence")]
    assert world.robots[("left", 4)].position[0] > -13.2


def test_invalid_commands_are_refused_with_reasons() -> None:
    referee, _ = make()
    assert "unknown play mode" in referee.command(SetPlayMode("Halftime")).error
    assert "finite" in referee.command(MoveBall((float("nan"), 0.0, 0.0))).error
    assert "Left, Right or None" in referee.command(KickOff("middle")).error
    assert "0..999" in referee.command(SetScore(-1, 0)).error and not referee.command(SetScore(70000, 0)).ok
    assert not referee.command(SetTime(1e308)).ok  # once it swapped the sides
    # finite but far: MuJoCo would reset the whole world past 1e10
    assert "outside the world" in referee.command(MoveBall((1e300, 0.0, 0.1))).error
    assert "outside the world" in referee.command(MoveBall((0.0, 0.0, -1.0))).error
    assert "velocity" in referee.command(MoveBall((0.0, 0.0, 0.1), (1e12, 0.0, 0.0))).error
    assert referee.command(MoveBall((referee.field.half_length + 1.0, 0.0, 0.1), (5.0, 0.0, 0.0))).ok


def test_an_empty_side_is_free_before_the_match_and_kept_once_it_runs() -> None:
    """A team whose last player leaves before anything was played frees its side (a crashed
    team's ghost does not block the next one); once the match runs, the side keeps its team
    and its score for the agents coming back, and no third team takes it."""
    referee = Referee.create("simspark", ScriptedWorld())
    assert referee.register("Ghost", 1).side == "left" and referee.register("Beta", 1).side == "right"
    referee.unregister("left", 1)
    assert referee.state.team_left == "" and referee.register("Gamma", 1).side == "left"
    referee.command(SetPlayMode("PlayOn"))
    referee.step(0.02)
    referee.unregister("left", 1)
    assert referee.state.team_left == "Gamma"
    assert not referee.register("Delta", 1).success  # two teams play already
    assert referee.register("Gamma", 2).side == "left"
