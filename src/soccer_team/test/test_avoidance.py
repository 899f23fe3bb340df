"""Players walk around robots in their way instead of into them: on the real engine, a base
player going for the ball passes an opponent standing between, without touching it (walking
into robots was the base team's most frequent foul, charging, and a cause of its falls)."""
from __future__ import annotations

from sim_contracts.percept import GameStateView
from soccer_team.motion import MotionBrain
from soccer_team.player import NaoBrain
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
