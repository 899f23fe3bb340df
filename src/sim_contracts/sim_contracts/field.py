"""The soccer field, one type for everyone: engine, referee, monitors, pictures.

Why a contract: the world file is the one source of the field's figures; the engine reads
it, and the referee, the monitor frames and the drawings take the same object instead of
copying it field by field.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Final

# Where anything may be put by a command (trainer, referee, services): this far beyond the
# field lines and this high, moving at most MAX_PLACED_SPEED m/s (per axis, also for spin in
# rad/s). Far-away numbers are not harmless: MuJoCo resets the whole world past 1e10, ODE
# and DART lose every contact's precision long before.
WORLD_MARGIN: Final = 10.0
MAX_PLACED_SPEED: Final = 100.0


@dataclass(slots=True)
class FieldSpec:
    """The field's figures (m), landmarks and lines: read from the world file by the engine,
    used as they are by the referee, the monitors and every drawing."""

    length: float = 30.0
    width: float = 20.0
    goal_width: float = 2.1
    goal_depth: float = 0.6
    goal_height: float = 0.8
    penalty_depth: float = 1.8
    penalty_width: float = 6.0
    center_radius: float = 2.0
    ball_radius: float = 0.042
    goalie_area_length: float = 0.0  # rcsssmj's fields (0: none, as on SimSpark's)
    goalie_area_width: float = 0.0
    corner_radius: float = 0.0
    penalty_spot_distance: float = 0.0
    landmarks: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    # landmark -> the protocol dialect whose agents see it (simspark, rcsssmj); absent: all.
    # A world names its landmarks once per dialect so each agent sees its reference's names.
    landmark_dialects: dict[str, str] = field(default_factory=dict)
    lines: list[tuple[float, float, float, float]] = field(default_factory=list)

    @property
    def half_length(self) -> float:
        return self.length / 2

    @property
    def half_width(self) -> float:
        return self.width / 2

    def drawing_lines(self) -> list[tuple[float, float, float, float]]:
        """The segments every drawing of this field shows (the PNG pictures, the browser's 2D
        and 3D views): the world's own field lines, or, for a world without any, the
        boundary, halfway line, centre circle and penalty areas from the figures."""
        if self.lines:
            return list(self.lines)
        hl, hw, r = self.half_length, self.half_width, self.center_radius
        out = [(-hl, hw, hl, hw), (-hl, -hw, hl, -hw), (-hl, -hw, -hl, hw), (hl, -hw, hl, hw), (0.0, -hw, 0.0, hw)]
        steps = 32
        for i in range(steps):
            a0, a1 = 2 * math.pi * i / steps, 2 * math.pi * (i + 1) / steps
            out.append((r * math.cos(a0), r * math.sin(a0), r * math.cos(a1), r * math.sin(a1)))
        pw = self.penalty_width / 2
        for sx in (-1.0, 1.0):
            xa, xb = sx * hl, sx * (hl - self.penalty_depth)
            out += [(xa, pw, xb, pw), (xb, pw, xb, -pw), (xb, -pw, xa, -pw)]
        return out

    def outside_world(self, x: float, y: float, z: float = 0.0) -> str | None:
        """Why a position cannot be placed at (finite, within WORLD_MARGIN of the field and
        0..WORLD_MARGIN high), or None."""
        if not all(math.isfinite(v) for v in (x, y, z)):
            return "position must be finite"
        lx, ly = self.half_length + WORLD_MARGIN, self.half_width + WORLD_MARGIN
        if abs(x) > lx or abs(y) > ly or not 0.0 <= z <= WORLD_MARGIN:
            return (f"position ({x:g}, {y:g}, {z:g}) outside the world "
                    f"(|x| <= {lx:g}, |y| <= {ly:g}, 0 <= z <= {WORLD_MARGIN:g})")
        return None

    @staticmethod
    def too_fast(*velocities: float) -> str | None:
        """Why a placed velocity (linear m/s or angular rad/s, per axis) is refused, or None."""
        if not all(math.isfinite(v) for v in velocities):
            return "velocity must be finite"
        if any(abs(v) > MAX_PLACED_SPEED for v in velocities):
            return f"velocity beyond {MAX_PLACED_SPEED:g} per axis"
        return None

    @staticmethod
    def bad_orientation(quaternion: tuple[float, ...]) -> str | None:
        """Why a placed orientation (w, x, y, z) is refused (not finite, not about unit), or None."""
        if len(quaternion) != 4 or not all(math.isfinite(v) for v in quaternion):
            return "orientation must be 4 finite numbers (w x y z)"
        if not 0.5 <= math.hypot(*quaternion) <= 2.0:
            return "orientation must be a unit quaternion (w x y z)"
        return None

    def placement_problem(self, position: tuple[float, float, float], velocity: tuple[float, ...] = (),
                          yaw_deg: float | None = None,
                          orientation: tuple[float, ...] | None = None) -> str | None:
        """The one check of anything put somewhere in the world, whoever asks (referee, trainer,
        a remote referee's verdict, a service): why it cannot be made, or None."""
        return (self.outside_world(*position) or self.too_fast(*velocity)
                or (None if yaw_deg is None or math.isfinite(yaw_deg) else "heading must be finite")
                or (None if orientation is None else self.bad_orientation(orientation)))

    def in_penalty_area(self, side: str, x: float, y: float) -> bool:
        """Inside the penalty area in front of `side`'s goal."""
        edge = self.half_length - self.penalty_depth
        inside_x = x < -edge if side == "left" else x > edge
        return inside_x and abs(x) <= self.half_length and abs(y) <= self.penalty_width / 2

    def goal_scored_in(self, x: float, y: float, z: float) -> str:
        """'left'/'right' goal the ball is fully inside (over the line, between posts, under
        the bar), or ''."""
        r = self.ball_radius
        if abs(x) > self.half_length + r and abs(y) < self.goal_width / 2 and z < self.goal_height:
            return "right" if x > 0 else "left"
        return ""


# The figures of the rule books' fields, for a referee that runs without a world file (the
# world's own figures replace them when an engine loads one).
FIELD_PRESETS: dict[str, FieldSpec] = {
    "simspark": FieldSpec(),
    "fifa": FieldSpec(105.0, 68.0, 7.32, 1.6, 2.44, 16.5, 40.32, 9.15, 0.11, 5.5, 18.32, 1.0, 11.0),
    "fifa7vs7": FieldSpec(55.0, 36.0, 3.66, 1.0, 1.83, 9.0, 16.5, 5.5, 0.11, 4.0, 7.3, 1.0, 7.32),
}
