"""Players walk around robots in their way instead of into them: on the real engine, a base
player going for the ball passes an opponent standing between, without touching it (walking
into robots was the base team's most frequent foul, charging, and a cause of its falls)."""
from __future__ import annotations

import math

from sim_contracts.percept import GameStateView
from soccer_team.motion import MotionBrain
from soccer_team.player import NaoBrain, SeenRobot
from soccer_team.trial import make_engine


def _walk_past(obstacle_y: float) -> tuple[int, float]:
    """(cycles the two robots touched, the walker's x at the end): a player at (-3, 0) going for
    the ball at (1.5, 0), an opponent standing at (-1.6, obstacle_y)."""
    engine = make_engine("ode")
    engine.add_robot("a", "nao", -3.0, 0.0, 0.0)
    engine.set_label("a", "Lions", 9)
    engine.add_robot("b", "nao", -1.6, obstacle_y, 180.0)
    engine.set_label("b", "Tigers", 5)
    engine.set_ball((1.5, 0.0, 0.042))
    walker = NaoBrain("left", 9)
    walker.filter.reset(-3.0, 0.0, 0.0)
    stander = MotionBrain()
    game = GameStateView(play_mode="PlayOn", team_left="Lions", team_right="Tigers")
    settle = MotionBrain(get_up=False)  # both stand a second first: a walk started from straight legs falls
    for _ in range(50):
        engine.set_joint_velocities("a", settle.act(engine.percept("a", vision=False)))
        engine.set_joint_velocities("b", stander.act(engine.percept("b", vision=False)))
        engine.step()
    touched = 0
    for cycle in range(int(14.0 / 0.02)):
        percept = engine.percept("a", vision=cycle % 3 == 0)
        percept.game = game
        engine.set_joint_velocities("a", walker.act(percept))
        engine.set_joint_velocities("b", stander.act(engine.percept("b", vision=False)))
        engine.step()
        touched += any({"a", "b"} == set(pair) for pair in engine.robot_contacts())
    return touched, engine.robot_pose("a")[0][0]


def test_a_player_going_for_the_ball_walks_around_a_robot_in_its_way() -> None:
    """Without avoidance the two touched in 51 cycles and the walker fell twice."""
    touched, x = _walk_past(0.05)
    assert touched == 0, f"touched the opponent in {touched} cycles"
    assert x > -1.0, f"stopped behind it at x = {x:.2f}"  # it went past, on to the ball


def test_a_robot_beside_the_path_changes_nothing() -> None:
    touched, x = _walk_past(1.0)
    assert touched == 0 and x > 0.8, (touched, x)  # straight on to the ball (1.5 - its 0.35 m spot)


def _command(robots: list[tuple[float, float, bool]], ball: tuple[float, float] | None = None,
             side: float = 0.0, seen_ago: float = 0.0) -> tuple[float, float, float]:
    """The walk's command after `_walk(0.3, side, 0)` with these robots (x, y, team-mate) seen
    `seen_ago` s before and the ball, if any, just seen at `ball` (body frame)."""
    brain = NaoBrain("left", 9)
    brain.beliefs.time = 10.0
    brain.robots_relative = [SeenRobot(x, y, mate, 10.0 - seen_ago) for x, y, mate in robots]
    if ball is not None:
        brain.ball_relative, brain.beliefs.ball_age = ball, 0.0
    brain._walk(0.3, side, 0.0)
    return brain.motion.walk.command


def test_the_walk_slows_and_steps_away_from_the_robot_most_in_its_way() -> None:
    forward, side, _ = _command([(0.5, 0.1, False)])
    assert 0.0 < forward < 0.3 and side < 0.0  # slower, and to the right of a robot on the left
    forward, side, _ = _command([(0.25, -0.1, False)])
    assert forward == 0.0 and side > 0.0
    assert _command([(1.0, 0.0, False), (0.5, 0.5, False)]) == (0.3, 0.0, 0.0)  # none in the lane


def test_nothing_cancels_the_step_aside() -> None:
    """Two robots either side of the lane, or a target pulling back toward the robot: the walk
    still steps aside (it stopped dead in front of them before)."""
    _, side, _ = _command([(0.25, 0.1, True), (0.28, -0.1, True)])
    assert abs(side) > 0.15
    _, side, _ = _command([(0.25, 0.1, False)], side=0.2)
    assert side < -0.15


def test_an_opponent_at_a_nearer_ball_is_challenged_a_mate_is_not() -> None:
    assert _command([(0.35, 0.0, False)], ball=(0.25, 0.0))[0] == 0.3
    assert _command([(0.35, 0.0, True)], ball=(0.25, 0.0))[0] < 0.3


def test_a_robot_seen_long_ago_is_forgotten() -> None:
    assert _command([(0.4, 0.0, False)], seen_ago=0.5)[0] < 0.3
    assert _command([(0.4, 0.0, False)], seen_ago=1.5)[0] == 0.3


def test_robots_out_of_view_are_remembered_and_moved_by_the_walk() -> None:
    """A robot the head turned away from stays, moved as the body walks; one in view that is
    no longer seen is gone."""
    from sim_contracts.percept import GameStateView, Percept, Vision

    brain = NaoBrain("left", 9)
    brain.beliefs.time = 10.0
    brain.robots_relative = [SeenRobot(0.6, 0.0, False, 10.0), SeenRobot(0.0, 0.6, False, 10.0)]
    brain.motion.walk.set_command(0.3, 0.0, 0.0)
    for _ in range(30):  # walking, so the odometry moves them
        brain._odometry()
    ahead = brain.robots_relative[0]
    assert ahead.x < 0.6 and abs(ahead.y) < 0.05
    percept = Percept(time=10.02, game=GameStateView(team_left="Lions"), gyro=(0.0, 0.0, 0.0),
                      accel=(0.0, 0.0, 9.81), joint_names=[], joint_angles=[], joint_velocities=[], vision=Vision())
    brain.beliefs.time = 10.02
    brain._see(percept, math.radians(90.0), 0.0)  # the head turned left: the robot ahead is out of view
    assert [r.y for r in brain.robots_relative] == [ahead.y]
