"""What a player believes, whatever its body: its own pose, the ball, the team-mates it saw,
the play mode and the time; and what the strategy wants of its motion (target, face, push).
Everything is in the team's own frame (own goal at -x), so both sides play the same tree.
Each team fills it its own way: the base team's Naos from what they see (localisation.py), the
light pushers from rcsssmj's global pose (sim_tools.demo.world_model)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(slots=True)
class Beliefs:
    side: str
    unum: int
    field_length: float = 30.0
    field_width: float = 20.0
    goal_width: float = 2.1
    x: float = 0.0
    y: float = 0.0
    yaw: float = 0.0  # rad, team frame
    ball: tuple[float, float] | None = None
    ball_age: float = 1e9  # s since last seen
    mates: dict[int, tuple[float, float]] = field(default_factory=dict)
    play_mode: str = "BeforeKickOff"
    time: float = 0.0
    target: tuple[float, float] | None = None  # where the motion layer goes to
    face: tuple[float, float] | None = None  # point to face while/after arriving
    push: bool = False  # go through the target (moving the ball)

    @property
    def flip(self) -> float:
        return -1.0 if self.side == "right" else 1.0

    def to_field(self, distance: float, azimuth: float, elevation: float) -> tuple[float, float]:
        """A point seen at (distance m, azimuth deg from the body's heading, elevation deg)."""
        flat = distance * math.cos(math.radians(elevation))
        a = self.yaw + math.radians(azimuth)
        return (self.x + flat * math.cos(a), self.y + flat * math.sin(a))

    def distance_to(self, point: tuple[float, float]) -> float:
        return math.hypot(point[0] - self.x, point[1] - self.y)
