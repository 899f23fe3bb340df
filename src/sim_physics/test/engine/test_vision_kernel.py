"""The compiled camera (sim_hotpath's VisionKernel behind engine.vision.Eyes) against the
camera's definition, computed the slow way: every point by itself, every field line sampled
densely. Random cameras, robots and lines; noise off so the numbers are comparable."""
from __future__ import annotations

import math

import numpy as np
import pytest
from sim_physics.engine.vision import MIN_DISTANCE, VIEW_HALF_ANGLE, Eyes

from sim_contracts.agents import RCSSSMJ_VISION, SIMSPARK_VISION
from sim_contracts.field import FieldSpec


def _polar(local: np.ndarray) -> tuple[float, float, float]:
    x, y, z = local
    flat = math.hypot(x, y)
    return math.hypot(flat, z), math.degrees(math.atan2(y, x)), math.degrees(math.atan2(z, flat))


def _point(pol: tuple[float, float, float]) -> np.ndarray:
    d, az, el = pol[0], math.radians(pol[1]), math.radians(pol[2])
    return np.array([d * math.cos(el) * math.cos(az), d * math.cos(el) * math.sin(az), d * math.sin(el)])


def _seen(pol: tuple[float, float, float]) -> bool:
    return abs(pol[1]) <= VIEW_HALF_ANGLE and abs(pol[2]) <= VIEW_HALF_ANGLE and pol[0] > MIN_DISTANCE


def _rotation(rng: np.random.Generator) -> np.ndarray:
    yaw, pitch, roll = rng.uniform(-math.pi, math.pi), rng.uniform(-0.6, 0.6), rng.uniform(-0.3, 0.3)
    cz, sz, cy, sy = math.cos(yaw), math.sin(yaw), math.cos(pitch), math.sin(pitch)
    cx, sx = math.cos(roll), math.sin(roll)
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    return rz @ ry @ rx


def _world(rng: np.random.Generator) -> tuple[FieldSpec, list[tuple[str, int, str]], np.ndarray]:
    landmarks = {f"F{i}": (float(rng.uniform(-16, 16)), float(rng.uniform(-11, 11)), float(rng.uniform(0, 1)))
                 for i in range(8)}
    lines = [(float(rng.uniform(-15, 15)), float(rng.uniform(-10, 10)), float(rng.uniform(-15, 15)),
              float(rng.uniform(-10, 10))) for _ in range(20)]
    owners, points = [], [rng.uniform([-15, -10, 0], [15, 10, 0.1])]  # the ball first
    for unum in range(1, 12):
        root = rng.uniform([-15, -10, 0.3], [15, 10, 0.5])
        for part in ("head", "rlowerarm", "llowerarm", "rfoot", "lfoot"):
            owners.append(("Alpha", unum, part))
            points.append(root + rng.uniform(-0.3, 0.3, 3))
    return FieldSpec(landmarks=landmarks, lines=lines), owners, np.array(points)


@pytest.mark.parametrize("seed", range(6))
def test_objects_and_players_are_exactly_the_visible_points(seed: int) -> None:
    rng = np.random.default_rng(seed)
    field, owners, points = _world(rng)
    eyes = Eyes(field, noise=False, rng=rng)
    cams = 12
    cam_pos = rng.uniform([-15, -10, 0.4], [15, 10, 0.6], (cams, 3))
    cam_rot = np.array([_rotation(rng) for _ in range(cams)])
    calib = [np.zeros(3)] * cams
    visions = eyes.see([(SIMSPARK_VISION, c, False) for c in calib], cam_pos, cam_rot, owners, points)
    names = [*field.landmarks, "B"]
    all_points = np.concatenate((np.array(list(field.landmarks.values())), points))
    for r, vision in enumerate(visions):
        want_objects, want_players = {}, {}
        for i, p in enumerate(all_points):
            pol = _polar((p - cam_pos[r]) @ cam_rot[r])
            if not _seen(pol):
                continue
            if i < len(names):
                want_objects[names[i]] = pol
            else:
                team, unum, part = owners[i - len(names)]
                want_players.setdefault((team, unum), {})[part] = pol
        assert set(vision.objects) == set(want_objects)
        for name, pol in vision.objects.items():
            assert pol == pytest.approx(want_objects[name], abs=1e-9)
        got_players = {(p.team, p.unum): p.parts for p in vision.players}
        assert set(got_players) == set(want_players)  # the bounding-sphere cull hides nobody seen
        for key, parts in got_players.items():
            assert set(parts) == set(want_players[key])
            for part, pol in parts.items():
                assert pol == pytest.approx(want_players[key][part], abs=1e-9)
        assert vision.lines == []  # none asked for


@pytest.mark.parametrize("seed", range(4))
def test_lines_are_clipped_where_dense_sampling_finds_their_ends(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    field, owners, points = _world(rng)
    eyes = Eyes(field, noise=False, rng=rng)
    cams = 10
    cam_pos = rng.uniform([-15, -10, 0.4], [15, 10, 0.6], (cams, 3))
    cam_rot = np.array([_rotation(rng) for _ in range(cams)])
    visions = eyes.see([(SIMSPARK_VISION, np.zeros(3), True)] * cams, cam_pos, cam_rot, owners, points)
    t = np.linspace(0.0, 1.0, 20001)
    checked = 0
    for r, vision in enumerate(visions):
        want = []
        for x1, y1, x2, y2 in field.lines:
            a, b = np.array([x1, y1, 0.0]), np.array([x2, y2, 0.0])
            local = (a + t[:, None] * (b - a) - cam_pos[r]) @ cam_rot[r]
            flat = np.hypot(local[:, 0], local[:, 1])
            az, el = np.degrees(np.arctan2(local[:, 1], local[:, 0])), np.degrees(np.arctan2(local[:, 2], flat))
            inside = np.nonzero((np.abs(az) <= VIEW_HALF_ANGLE) & (np.abs(el) <= VIEW_HALF_ANGLE))[0]
            if len(inside) > 2:  # clearly seen (a line grazing the cone is a matter of rounding)
                want.append((local[inside[0]], local[inside[-1]]))
        got = [(_point(a), _point(b)) for a, b in vision.lines]
        assert len(got) >= len(want)
        for start, end in want:  # each clearly seen line is there, its ends where sampling puts them
            # (samples are at most 2 mm apart)
            assert any(np.linalg.norm(g[0] - start) < 3e-3 and np.linalg.norm(g[1] - end) < 3e-3 for g in got), \
                (r, start, end, got)
            checked += 1
    assert checked > 10


def test_noise_is_reproducible_per_seed_and_only_for_simspark_agents() -> None:
    field, owners, points = _world(np.random.default_rng(7))
    cam_pos, cam_rot = np.array([[0.0, 0.0, 0.5]] * 2), np.array([np.eye(3)] * 2)
    robots = [(SIMSPARK_VISION, np.zeros(3), True), (RCSSSMJ_VISION, np.zeros(3), False)]

    def look(seed: int) -> list:
        return Eyes(field, noise=True, rng=np.random.default_rng(seed)).see(robots, cam_pos, cam_rot, owners, points)

    first, again, other = look(1), look(1), look(2)
    assert first == again and first != other
    exact = Eyes(field, noise=False, rng=np.random.default_rng(1)).see(robots, cam_pos, cam_rot, owners, points)
    assert first[1].objects == exact[1].objects  # rcsssmj's camera is ideal
    assert first[0].objects.keys() == exact[0].objects.keys() and first[0].objects != exact[0].objects


def test_bad_arrays_are_refused_with_an_error() -> None:
    field, owners, points = _world(np.random.default_rng(3))
    eyes = Eyes(field, noise=False, rng=np.random.default_rng(3))
    robots = [(SIMSPARK_VISION, np.zeros(3), True)]
    with pytest.raises(ValueError):
        eyes.see(robots, np.zeros((1, 2)), np.array([np.eye(3)]), owners, points)
    with pytest.raises(IndexError):  # fewer points than the owners name
        eyes.see(robots, np.zeros((1, 3)), np.array([np.eye(3)]), owners, points[:5])
