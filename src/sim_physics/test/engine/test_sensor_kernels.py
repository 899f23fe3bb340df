"""The compiled per-step sensors (sim_hotpath.foot_readings, imu_readings) against the same
definitions written with numpy: random contacts, poses and feet."""
from __future__ import annotations

import numpy as np
import pytest

from sim_hotpath import contact_owners, foot_readings, imu_readings


def _quats(rng: np.random.Generator, n: int) -> np.ndarray:
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def _matrices(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q.T
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
                     np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
                     np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], -2)


@pytest.mark.parametrize("seed", range(5))
def test_foot_readings_are_the_force_weighted_centre_and_sum_in_each_box(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_links, n_feet, n_contacts = 30, 6, 40
    poses = np.concatenate((rng.uniform(-5, 5, (n_links, 3)), _quats(rng, n_links)), axis=1)
    foot_links = rng.choice(n_links, n_feet, replace=False)
    slot_of_link = np.full(n_links, -1, dtype=np.int64)
    slot_of_link[foot_links] = np.arange(n_feet)
    links = rng.integers(-1, n_links, (n_contacts, 2))
    links[:5, 0] = foot_links[0]  # foot 0 always touches; foot 5 never does
    links[links == foot_links[5]] = -1
    links[5:8, 1] = foot_links[1]
    points, forces = rng.uniform(-5, 5, (n_contacts, 3)), rng.uniform(-20, 20, (n_contacts, 3))
    forces[links[:, 0] == foot_links[1]] = 0.0  # foot 1 touches without force (asleep) ...
    forces[links[:, 1] == foot_links[1]] = 0.0
    box_pos, box_rot = rng.uniform(-0.05, 0.05, (n_feet, 3)), _matrices(_quats(rng, n_feet))
    last: list = [None] * n_feet
    last[1] = ((1.0, 2.0, 3.0), (4.0, 5.0, 6.0))  # ... and repeats its last reading
    got = foot_readings(links, points, forces, slot_of_link, poses, foot_links, box_pos, box_rot, last)

    for i, foot in enumerate(foot_links):
        on_a, on_b = links[:, 0] == foot, links[:, 1] == foot
        f = np.concatenate((forces[on_a], -forces[on_b]))
        at = np.concatenate((points[on_a], points[on_b]))
        w = np.linalg.norm(f, axis=1)
        if len(f) == 0:
            assert got[i] is None
            continue
        if w.sum() <= 1e-12:
            assert got[i] == last[i] if last[i] else ((0.0,) * 3, (0.0,) * 3)
            continue
        rot = _matrices(poses[foot, 3:][None])[0]
        box = rot @ box_rot[i]
        centre = box.T @ ((w[:, None] * at).sum(0) / w.sum() - (poses[foot, :3] + rot @ box_pos[i]))
        force = box.T @ f.sum(0)
        to_sim = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]])
        assert np.allclose(got[i][0], to_sim @ centre, atol=1e-9) and np.allclose(got[i][1], to_sim @ force, atol=1e-9)
    assert got[0] is not None and got[1] == last[1] and got[5] is None


def test_imu_readings_are_the_velocity_change_and_rate_in_the_links_axes() -> None:
    rng = np.random.default_rng(3)
    n_links, dt = 12, 0.02
    poses = np.concatenate((rng.uniform(-5, 5, (n_links, 3)), _quats(rng, n_links)), axis=1)
    twists = rng.uniform(-3, 3, (n_links, 6))
    imu = np.array([3, 7, 0])
    vel_prev = rng.uniform(-3, 3, (3, 3))
    vel_prev[2] = np.nan  # just placed: no change
    gravity = np.array([0.0, 0.0, -9.81])
    acc, gyro, vel = imu_readings(poses, twists, imu, vel_prev, gravity, dt)
    rot = _matrices(poses[imu, 3:])
    change = np.nan_to_num((twists[imu, :3] - vel_prev) / dt, nan=0.0)
    assert np.allclose(acc, np.einsum("rji,rj->ri", rot, change - gravity))
    assert np.allclose(gyro, np.degrees(np.einsum("rji,rj->ri", rot, twists[imu, 3:])))
    assert np.array_equal(vel, twists[imu, :3])
    with pytest.raises(IndexError):
        imu_readings(poses, twists, np.array([n_links]), vel_prev[:1], gravity, dt)
    with pytest.raises(ValueError):
        imu_readings(poses, twists, imu, vel_prev, gravity, 0.0)


def test_contact_owners_name_ball_touchers_and_robot_pairs_once() -> None:
    link_robot = np.array([-1, 0, 0, 1, 1, 2, -1], dtype=np.int64)  # link 0: ground, 6: the ball
    links = np.array([[0, 1], [6, 3], [1, 6], [3, 2], [4, 1], [5, -1], [6, 4], [2, 5], [6, 0]])
    touchers, pairs = contact_owners(links, link_robot, 6)
    assert touchers == [1, 0]  # robot 1 first (via link 3), robot 0 (link 1); the ground is nobody
    assert pairs == [(0, 1), (0, 2)]
    with pytest.raises(IndexError):
        contact_owners(np.array([[0, 9]]), link_robot, 6)
