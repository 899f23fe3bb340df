"""The references' camera, for every seeing robot at once, from positions alone.

Why a module of its own: every engine hands it camera poses and the points of the ball and
the robots' parts; what a robot sees (the view cone, polar coordinates, SimSpark's noise and
calibration error, field lines clipped to the cone, the landmark names of the agent's
dialect) is the same whatever steps the physics. The figures and the contract live here; the
per-point work runs in sim_hotpath's compiled kernel, for all seeing robots in one call."""
from __future__ import annotations

import numpy as np

from sim_contracts.agents import RCSSSMJ_VISION, SIMSPARK_VISION, VisionRules
from sim_contracts.field import FieldSpec
from sim_contracts.percept import Polar, SeenPlayer, Vision
from sim_hotpath import Figures, VisionKernel

VIEW_HALF_ANGLE = 60.0  # deg, SimSpark and rcsssmj
MIN_DISTANCE = 0.1  # m: nearer points are not seen
# SimSpark vision noise (RestrictedVisionPerceptor): sigma of distance (per 100 m), phi, theta;
# calibration error per axis (uniform).
NOISE_DIST, NOISE_PHI, NOISE_THETA, CALIBRATION = 0.0965, 0.1225, 0.1480, 0.005
Owner = tuple[str, int, str]  # team, unum, part
# What a robot asks of its camera: its agent's vision rules, its calibration error, whether lines are seen.
Request = tuple[VisionRules, np.ndarray, bool]


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
        # the landmark sets: the references' and any other the world tags (an unknown set sees
        # the landmarks no set claims, as the first row)
        sets = list(dict.fromkeys([SIMSPARK_VISION.landmarks, RCSSSMJ_VISION.landmarks,
                                   *sorted(set(dialect_of.values()) - {""})]))
        self._set_row = {name: i for i, name in enumerate(sets)}
        shown = np.array([[not own or own == s for own in self._landmark_dialect] for s in sets], dtype=bool)
        lines = np.array([[x1, y1, 0.0, x2, y2, 0.0] for x1, y1, x2, y2 in field.lines]).reshape(-1, 6)
        figures = Figures(view_half_angle_deg=VIEW_HALF_ANGLE, min_distance=MIN_DISTANCE,
                          sigma_distance_per_100m=NOISE_DIST, sigma_azimuth_deg=NOISE_THETA,
                          sigma_elevation_deg=NOISE_PHI)
        # The compiled camera (sim_hotpath) draws its noise from its own generator, seeded here.
        self._kernel = VisionKernel(self.names, self._landmark_points, lines, shown, Polar, SeenPlayer, Vision,
                                    figures, noise, int(rng.integers(0, 2**63)))
        self._groups_key: object = None  # the owners list the kernel's groups were made from

    def calibration(self, vision: VisionRules) -> np.ndarray:
        """A new robot's camera offset: SimSpark's calibration error for a noisy camera when
        the world is noisy (rcsssmj's camera is ideal)."""
        if self.noise and vision.noisy:
            return self.rng.uniform(-CALIBRATION, CALIBRATION, 3)
        return np.zeros(3)

    def see(self, robots: list[Request], cam_pos: np.ndarray, cam_rot: np.ndarray,
            owners: list[Owner], points: np.ndarray) -> list[Vision]:
        """Each robot's vision. cam_pos (R, 3) and cam_rot (R, 3, 3) are the cameras' world
        poses (columns: the camera's x forward, y left, z up); points (1 + P, 3) are the ball
        and then the P robot parts `owners` names (each robot's parts contiguous). Keep
        passing the same owners list while nobody joins: the grouping is cached on it."""
        if self._groups_key is not owners:
            self._kernel.set_owners(self._seen_groups(owners, 1))
            self._groups_key = owners
        n = len(robots)
        return self._kernel.see(
            cam_pos, cam_rot, np.array([c for _, c, _ in robots], dtype=float).reshape(n, 3),
            np.array([vision.noisy for vision, _, _ in robots], dtype=bool),
            np.array([lines for _, _, lines in robots], dtype=bool),
            np.array([self._set_row.get(vision.landmarks, 0) for vision, _, _ in robots], dtype=np.int64),
            points)

    @staticmethod
    def _seen_groups(owners: list[tuple[str, int, str]],
                     offset: int) -> list[tuple[str, int, list[tuple[str, int]]]]:
        """(team, unum, [(part, row)]) per robot; row = offset + the part's index in owners."""
        groups: list[tuple[str, int, list[tuple[str, int]]]] = []
        for j, (team, unum, part) in enumerate(owners):
            if not groups or groups[-1][:2] != (team, unum):
                groups.append((team, unum, []))
            groups[-1][2].append((part, offset + j))
        return groups
