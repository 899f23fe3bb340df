"""The references' camera, for every seeing robot at once, from positions alone.

Why a module of its own: both engines (MuJoCo, gz-physics) hand it camera poses and the
points of the ball and the robots' parts; what a robot sees (the view cone, polar
coordinates, SimSpark's noise and calibration error, field lines clipped to the cone, the
landmark names of the agent's dialect) is the same whatever steps the physics."""
from __future__ import annotations

import math

import numpy as np

from sim_contracts.field import FieldSpec
from sim_contracts.percept import Polar, SeenPlayer, Vision

VIEW_HALF_ANGLE = 60.0  # deg, SimSpark and rcsssmj
# SimSpark vision noise (RestrictedVisionPerceptor): sigma of distance (per 100 m), phi, theta;
# calibration error per axis (uniform).
NOISE_DIST, NOISE_PHI, NOISE_THETA, CALIBRATION = 0.0965, 0.1225, 0.1480, 0.005
_polar_of = tuple.__new__  # _polar_of(Polar, [d, a, e]): a Polar without a Python-level call
Owner = tuple[str, int, str]  # team, unum, part
# What a robot asks of its camera: its agent's dialect, its calibration error, whether lines are seen.
Request = tuple[str, np.ndarray, bool]


class Eyes:
    """The field's landmarks and lines, and the noise of a world's cameras."""

    def __init__(self, field: FieldSpec, *, noise: bool, rng: np.random.Generator) -> None:
        self.noise = noise
        self.rng = rng
        landmarks = {k: np.array(v, dtype=float) for k, v in field.landmarks.items()}
        self.names = [*landmarks, "B"]  # the landmarks, then the ball
        self._landmark_points = np.array(list(landmarks.values()), dtype=float).reshape(-1, 3)
        dialect_of = field.landmark_dialects
        self._landmark_dialect = [dialect_of.get(name, "") for name in landmarks] + [""]  # + the ball
        self._shown = {d: [not own or own == d for own in self._landmark_dialect] for d in ("simspark", "rcsssmj")}
        self._lines = np.array([[x1, y1, 0.0, x2, y2, 0.0] for x1, y1, x2, y2 in field.lines]).reshape(-1, 6)
        self._groups: list[tuple[str, int, list[tuple[str, int]]]] = []
        self._groups_key: object = None  # the owners list the groups were made from

    def calibration(self, dialect: str) -> np.ndarray:
        """A new robot's camera offset: SimSpark's calibration error for SimSpark agents when
        the world is noisy (rcsssmj's camera is ideal)."""
        if self.noise and dialect == "simspark":
            return self.rng.uniform(-CALIBRATION, CALIBRATION, 3)
        return np.zeros(3)

    @staticmethod
    def polar(local: np.ndarray) -> np.ndarray:
        """Camera-frame points (..., 3) -> (..., 3) distance, azimuth deg, elevation deg."""
        out = np.empty_like(local)
        x, y, z = local[..., 0], local[..., 1], local[..., 2]
        flat = np.hypot(x, y)
        out[..., 0] = np.hypot(flat, z)
        out[..., 1] = np.arctan2(y, x)
        out[..., 2] = np.arctan2(z, flat)
        out[..., 1:] *= 180.0 / np.pi
        return out

    @staticmethod
    def visible(polar: np.ndarray) -> np.ndarray:
        return ((np.abs(polar[..., 1]) <= VIEW_HALF_ANGLE) & (np.abs(polar[..., 2]) <= VIEW_HALF_ANGLE)
                & (polar[..., 0] > 0.1))

    def noisy(self, polar: np.ndarray) -> np.ndarray:
        if not self.noise or polar.size == 0:
            return polar
        noise = self.rng.normal(0.0, 1.0, polar.shape)
        out = polar.copy()
        out[..., 0] += noise[..., 0] * NOISE_DIST * polar[..., 0] / 100.0
        out[..., 1] += noise[..., 1] * NOISE_THETA
        out[..., 2] += noise[..., 2] * NOISE_PHI
        return out


    def see(self, robots: list[Request], cam_pos: np.ndarray, cam_rot: np.ndarray,
            owners: list[Owner], points: np.ndarray) -> list[Vision]:
        """Each robot's vision. cam_pos (R, 3) and cam_rot (R, 3, 3) are the cameras' world
        poses (columns: the camera's x forward, y left, z up); points (1 + P, 3) are the ball
        and then the P robot parts `owners` names (each robot's parts contiguous). Keep
        passing the same owners list while nobody joins: the grouping is cached on it."""
        names = self.names
        calib = np.array([c for _, c, _ in robots]).reshape(-1, 3)
        pts = np.concatenate((self._landmark_points, points))
        local = np.einsum("rpi,rij->rpj", pts[None] - cam_pos[:, None], cam_rot) + calib[:, None]
        polar = self.polar(local)
        visible = self.visible(polar)
        noisy = np.array([dialect == "simspark" for dialect, _, _ in robots])
        if noisy.any():
            polar[noisy] = self.noisy(polar[noisy])
        polar = polar.tolist()
        n_marks = len(names)
        shown = self._shown
        with_lines = [i for i, (_, _, lines) in enumerate(robots) if lines]
        lines_of = self._seen_lines(cam_pos[with_lines], cam_rot[with_lines], calib[with_lines]) \
            if with_lines else []
        line_map = dict(zip(with_lines, lines_of))
        if self._groups_key is not owners:
            self._groups, self._groups_key = self._seen_groups(owners, n_marks), owners
        groups = self._groups
        out: list[Vision] = []
        for r, seen in enumerate(visible.tolist()):
            row = polar[r]
            mine = shown.get(robots[r][0]) or shown["simspark"]
            objects = {names[i]: _polar_of(Polar, row[i]) for i in range(n_marks) if seen[i] and mine[i]}
            players = []
            for team, unum, parts in groups:  # each robot's parts are contiguous rows
                found = {part: _polar_of(Polar, row[k]) for part, k in parts if seen[k]}
                if found:
                    players.append(SeenPlayer(team, unum, found))
            out.append(Vision(objects, players, line_map.get(r, [])))
        return out


    @staticmethod
    def _seen_groups(owners: list[tuple[str, int, str]],
                     offset: int) -> list[tuple[str, int, list[tuple[str, int]]]]:
        """(team, unum, [(part, row)]) per robot, rows counted after the `offset` landmarks."""
        groups: list[tuple[str, int, list[tuple[str, int]]]] = []
        for j, (team, unum, part) in enumerate(owners):
            if not groups or groups[-1][:2] != (team, unum):
                groups.append((team, unum, []))
            groups[-1][2].append((part, offset + j))
        return groups

    def _seen_lines(self, cam_pos: np.ndarray, cam_rot: np.ndarray,
                          calib: np.ndarray) -> list[list[tuple[Polar, Polar]]]:
        """Field lines clipped to each camera's view, exactly and for every camera at once.

        In the camera frame a line is p(t) = A + t D, t in [0, 1]. The azimuth limit is two
        half-spaces (tan60 x -+ y >= 0), each linear in t; the elevation limit
        |z| <= tan60 hypot(x, y) is q(t) = tan60^2 (x^2 + y^2) - z^2 >= 0, quadratic in t.
        The seen part runs from the first to the last t satisfying all of them; those are
        among the ends of the linear interval and the roots of q."""
        n_cams = len(cam_pos)
        if len(self._lines) == 0 or n_cams == 0:
            return [[] for _ in range(n_cams)]
        tan = math.tan(math.radians(VIEW_HALF_ANGLE))
        a, b = self._lines[:, :3], self._lines[:, 3:]
        start = np.einsum("rli,rij->rlj", a[None] - cam_pos[:, None], cam_rot) + calib[:, None]
        direction = np.einsum("li,rij->rlj", b - a, cam_rot)
        (ax, ay, az), (dx, dy, dz) = np.moveaxis(start, 2, 0), np.moveaxis(direction, 2, 0)
        lo, hi = np.zeros(ax.shape), np.ones(ax.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            for sign in (-1.0, 1.0):
                f0, fd = tan * ax + sign * ay, tan * dx + sign * dy
                root = -f0 / fd
                lo = np.where(fd > 0, np.maximum(lo, root), lo)
                hi = np.where(fd < 0, np.minimum(hi, root), hi)
                hi = np.where((fd == 0) & (f0 < 0), -1.0, hi)
            t2 = tan * tan
            qa = t2 * (dx * dx + dy * dy) - dz * dz
            qb = 2 * (t2 * (ax * dx + ay * dy) - az * dz)
            qc = t2 * (ax * ax + ay * ay) - az * az
            sq = np.sqrt(np.maximum(qb * qb - 4 * qa * qc, 0.0))
            has_roots = qb * qb - 4 * qa * qc >= 0
            quadratic = np.abs(qa) > 1e-12
            r1 = np.where(quadratic, (-qb - sq) / (2 * qa), -qc / qb)
            r2 = np.where(quadratic, (-qb + sq) / (2 * qa), -qc / qb)
        cands = np.stack([lo, hi, r1, r2], axis=-1)
        q_at = (qa[..., None] * cands + qb[..., None]) * cands + qc[..., None]
        is_root = np.zeros(cands.shape, dtype=bool)
        is_root[..., 2:] = has_roots[..., None] & np.isfinite(cands[..., 2:])
        ok = ((q_at >= 0) | is_root) & (cands >= lo[..., None] - 1e-12) & (cands <= hi[..., None] + 1e-12)
        first = np.where(ok, cands, np.inf).min(axis=-1)
        last = np.where(ok, cands, -np.inf).max(axis=-1)
        cam_idx, line_idx = np.nonzero((lo <= hi) & (first <= last))
        if len(cam_idx) == 0:
            return [[] for _ in range(n_cams)]
        t = np.concatenate([first[cam_idx, line_idx], last[cam_idx, line_idx]])
        ci, li = np.concatenate([cam_idx, cam_idx]), np.concatenate([line_idx, line_idx])
        ends = self.noisy(self.polar(start[ci, li] + t[:, None] * direction[ci, li])).tolist()
        m = len(cam_idx)
        out: list[list[tuple[Polar, Polar]]] = [[] for _ in range(n_cams)]
        for i, cam in enumerate(cam_idx.tolist()):
            out[cam].append((_polar_of(Polar, ends[i]), _polar_of(Polar, ends[m + i])))
        return out
