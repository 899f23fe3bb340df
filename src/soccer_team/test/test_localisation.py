"""The base team finds itself from what it sees: the particle filter alone on exact sightings,
and a whole player on the real engine's vision (its own walk moving it, its head scanning)."""
from __future__ import annotations

import math

from sim_contracts.percept import GameStateView
from soccer_team.localisation import LANDMARKS, ParticleFilter, Sighting
from soccer_team.player import NaoBrain
from soccer_team.trial import make_engine, yaw_of


def _seen_from(x: float, y: float, heading: float) -> list[Sighting]:
    out = []
    for name, (lx, ly) in LANDMARKS.items():
        bearing = math.atan2(ly - y, lx - x) - heading
        bearing = math.atan2(math.sin(bearing), math.cos(bearing))
        if abs(bearing) < math.radians(60):  # the camera's 120 degrees
            out.append(Sighting(name, math.hypot(lx - x, ly - y), bearing))
    return out


def test_a_lost_player_finds_itself_from_the_flags_and_posts_in_view() -> None:
    pf = ParticleFilter(particles=300, seed=4)  # spread over the whole field: it knows nothing
    truth = (6.0, -3.0, 0.3)
    for _ in range(15):
        pf.move(0.0, 0.0, 0.0)
        pf.see(_seen_from(*truth))
    x, y, h = pf.estimate()
    assert math.hypot(x - truth[0], y - truth[1]) < 0.25 and abs(h - truth[2]) < 0.08


def test_a_player_walking_on_the_engine_knows_where_it_is() -> None:
    """Beamed to where it believes it is not (its home is (-2.5, 0)): it walks to the ball,
    head scanning, and its estimate follows the true pose."""
    engine = make_engine("ode")
    engine.add_robot("a", "nao", -6.0, 3.0, 40.0)
    engine.set_label("a", "Lions", 9)
    engine.set_ball((0.0, 0.0, 0.042))
    brain = NaoBrain("left", 9)
    game = GameStateView(play_mode="PlayOn", team_left="Lions", team_right="Tigers")
    errors = []
    for cycle in range(750):
        percept = engine.percept("a", vision=cycle % 3 == 0)
        percept.game = game
        engine.set_joint_velocities("a", brain.act(percept))
        engine.step()
        if cycle >= 250 and cycle % 50 == 0:
            (x, y, _), q = engine.robot_pose("a")
            b = brain.beliefs
            errors.append((math.hypot(b.x - x, b.y - y), abs(math.remainder(b.yaw - yaw_of(q), math.tau))))
    assert max(e for e, _ in errors) < 0.5, errors
    assert max(h for _, h in errors) < 0.25, errors
    (x, y, _), _ = engine.robot_pose("a")
    assert math.hypot(x + 6.0, y - 3.0) > 2.0  # it walked (to the ball) meanwhile
