"""Where am I: a particle filter over the player's pose (x, y, heading) in its team's frame,
moved by the walk's own odometry and weighed by the flags and goal posts it sees.

Why a particle filter: a player beamed, pushed or fallen must find itself again from a few
landmarks at a time (the camera sees 120 degrees); particles keep several guesses where one
Gaussian would commit to one. No ground-truth perceptor is used: only the vision's polar
coordinates of the landmarks (SimSpark's flags F1L.. and posts G1L..), the head's pan joint
and what the walk was asked to do.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# SimSpark's standard landmarks (m, the left team's frame): corner flags and goal posts
LANDMARKS: dict[str, tuple[float, float]] = {
    "F1L": (-15.0, 10.0), "F2L": (-15.0, -10.0), "F1R": (15.0, 10.0), "F2R": (15.0, -10.0),
    "G1L": (-15.0, 1.05), "G2L": (-15.0, -1.05), "G1R": (15.0, 1.05), "G2R": (15.0, -1.05),
}


@dataclass(frozen=True, slots=True)
class Sighting:
    """A landmark seen: its name, the flat distance (m) and the bearing from the body's heading (rad)."""

    name: str
    distance: float
    bearing: float


class ParticleFilter:
    """Poses as particles; `estimate` is their weighted mean after each update."""

    def __init__(self, particles: int = 200, seed: int = 0, landmarks: dict[str, tuple[float, float]] | None = None,
                 field_half: tuple[float, float] = (15.0, 10.0)) -> None:
        self.rng = np.random.default_rng(seed)
        self.n = particles
        self.landmarks = dict(landmarks or LANDMARKS)
        self.half = field_half
        self.poses = np.zeros((particles, 3))
        self.weights = np.full(particles, 1.0 / particles)
        self.spread_everywhere()

    def spread_everywhere(self) -> None:
        hx, hy = self.half
        self.poses[:, 0] = self.rng.uniform(-hx, hx, self.n)
        self.poses[:, 1] = self.rng.uniform(-hy, hy, self.n)
        self.poses[:, 2] = self.rng.uniform(-math.pi, math.pi, self.n)
        self.weights[:] = 1.0 / self.n

    def reset(self, x: float, y: float, heading: float, spread: float = 0.1) -> None:
        """Known to be about here (a beam)."""
        self.poses[:, 0] = x + self.rng.normal(0, spread, self.n)
        self.poses[:, 1] = y + self.rng.normal(0, spread, self.n)
        self.poses[:, 2] = heading + self.rng.normal(0, spread / 2, self.n)
        self.weights[:] = 1.0 / self.n

    def move(self, forward: float, left: float, turn: float, noise: float = 0.25) -> None:
        """The body moved (m, m, rad in its own frame) as far as the walk knows; each particle
        moves so, with noise in proportion."""
        n = self.n
        f = forward * (1 + noise * self.rng.standard_normal(n)) + self.rng.normal(0, 0.002, n)
        s = left * (1 + noise * self.rng.standard_normal(n)) + self.rng.normal(0, 0.002, n)
        t = turn * (1 + noise * self.rng.standard_normal(n)) + self.rng.normal(0, 0.004, n)
        c, sn = np.cos(self.poses[:, 2]), np.sin(self.poses[:, 2])
        self.poses[:, 0] += c * f - sn * s
        self.poses[:, 1] += sn * f + c * s
        self.poses[:, 2] += t

    def see(self, sightings: list[Sighting]) -> None:
        """Weigh the particles by how well they explain what was seen; resample."""
        known = [s for s in sightings if s.name in self.landmarks]
        if not known:
            return
        log_w = np.zeros(self.n)
        x, y, h = self.poses[:, 0], self.poses[:, 1], self.poses[:, 2]
        for s in known:
            lx, ly = self.landmarks[s.name]
            dx, dy = lx - x, ly - y
            expected_d = np.hypot(dx, dy)
            expected_b = np.arctan2(dy, dx) - h
            db = np.angle(np.exp(1j * (expected_b - s.bearing)))
            sigma_d = 0.15 + 0.08 * s.distance
            log_w += -0.5 * ((expected_d - s.distance) / sigma_d) ** 2 - 0.5 * (db / 0.12) ** 2
        best = float(log_w.max())  # how well the best pose explains the sightings, weights aside
        log_w += np.log(self.weights + 1e-300)
        w = np.exp(log_w - float(log_w.max()))
        self.weights = w / w.sum()
        if 1.0 / float(np.sum(self.weights ** 2)) < self.n / 2:
            self._resample()
        fix = pose_from(known, self.landmarks)
        if fix is not None:  # sensor resetting: some particles where the sightings alone put it
            lost = best < -4.0 * len(known)  # not even the best particle explains what is seen
            self._inject(fix, self.n // 2 if lost else self.n // 20)

    def _inject(self, pose: tuple[float, float, float], count: int) -> None:
        idx = self.rng.choice(self.n, size=count, replace=False)
        self.poses[idx, 0] = pose[0] + self.rng.normal(0, 0.1, count)
        self.poses[idx, 1] = pose[1] + self.rng.normal(0, 0.1, count)
        self.poses[idx, 2] = pose[2] + self.rng.normal(0, 0.05, count)
        self.weights[idx] = 1.0 / self.n
        self.weights /= self.weights.sum()

    def _resample(self) -> None:
        """Low-variance resampling; a few particles go anywhere, for a robot moved unseen."""
        n = self.n
        positions = (self.rng.random() + np.arange(n)) / n
        idx = np.minimum(np.searchsorted(np.cumsum(self.weights), positions), n - 1)
        self.poses = self.poses[idx] + self.rng.normal(0, 1, (n, 3)) * (0.02, 0.02, 0.01)  # no two alike
        fresh = max(1, n // 50)
        hx, hy = self.half
        self.poses[:fresh, 0] = self.rng.uniform(-hx, hx, fresh)
        self.poses[:fresh, 1] = self.rng.uniform(-hy, hy, fresh)
        self.poses[:fresh, 2] = self.rng.uniform(-math.pi, math.pi, fresh)
        self.weights = np.full(n, 1.0 / n)

    def estimate(self) -> tuple[float, float, float]:
        w = self.weights
        x = float(np.dot(w, self.poses[:, 0]))
        y = float(np.dot(w, self.poses[:, 1]))
        h = math.atan2(float(np.dot(w, np.sin(self.poses[:, 2]))), float(np.dot(w, np.cos(self.poses[:, 2]))))
        return x, y, h

    def spread(self) -> float:
        """How unsure (m): the particles' weighted spread in position."""
        x, y, _ = self.estimate()
        return float(np.sqrt(np.dot(self.weights, (self.poses[:, 0] - x) ** 2 + (self.poses[:, 1] - y) ** 2)))


def pose_from(sightings: list[Sighting],
              landmarks: dict[str, tuple[float, float]]) -> tuple[float, float, float] | None:
    """The pose two or more sightings put the body at, on their own: the heading from the
    angle between two landmarks as seen and as placed, then the position from each; None with
    fewer than two landmarks, or two too close together to give a heading."""
    if len(sightings) < 2:
        return None
    pairs = sorted(((a, b) for i, a in enumerate(sightings) for b in sightings[i + 1:]),
                   key=lambda ab: -math.dist(landmarks[ab[0].name], landmarks[ab[1].name]))
    a, b = pairs[0]
    (ax, ay), (bx, by) = landmarks[a.name], landmarks[b.name]
    if math.hypot(bx - ax, by - ay) < 1.0:
        return None
    ra = (a.distance * math.cos(a.bearing), a.distance * math.sin(a.bearing))
    rb = (b.distance * math.cos(b.bearing), b.distance * math.sin(b.bearing))
    heading = math.atan2(by - ay, bx - ax) - math.atan2(rb[1] - ra[1], rb[0] - ra[0])
    c, sn = math.cos(heading), math.sin(heading)
    xs, ys = [], []
    for seen in sightings:
        lx, ly = landmarks[seen.name]
        rx, ry = seen.distance * math.cos(seen.bearing), seen.distance * math.sin(seen.bearing)
        xs.append(lx - (c * rx - sn * ry))
        ys.append(ly - (sn * rx + c * ry))
    return sum(xs) / len(xs), sum(ys) / len(ys), math.atan2(sn, c)


def team_frame_landmarks(side: str) -> dict[str, tuple[float, float]]:
    """The landmarks in a team's own frame: the right team's own goal is at +x on the field."""
    f = -1.0 if side == "right" else 1.0
    return {k: (f * x, f * y) for k, (x, y) in LANDMARKS.items()}
