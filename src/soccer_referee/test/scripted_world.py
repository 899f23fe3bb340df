"""A world the test scripts by hand: the referee's input, not a stand-in for the engine
(the scenario tests in sim_master run the referee on the real engine)."""
from __future__ import annotations

from dataclasses import dataclass, field

from soccer_referee.world import PlayerView


@dataclass
class ScriptedWorld:
    ball: tuple[float, float, float] = (0.0, 0.0, 0.042)
    ball_vel: tuple[float, float, float] = (0.0, 0.0, 0.0)
    robots: dict[tuple[str, int], PlayerView] = field(default_factory=dict)
    touchers: list[tuple[str, int]] = field(default_factory=list)
    contacts: list[tuple[tuple[str, int], tuple[str, int]]] = field(default_factory=list)
    moves: list[tuple[str, int, float, float]] = field(default_factory=list)

    def ball_position(self):
        return self.ball

    def ball_velocity(self):
        return self.ball_vel

    def players(self):
        return list(self.robots.values())

    def ball_touchers(self):
        return list(self.touchers)

    def player_contacts(self):
        return list(self.contacts)

    def move_ball(self, position, velocity=(0.0, 0.0, 0.0)):
        self.ball, self.ball_vel = tuple(position), tuple(velocity)

    def move_player(self, side, unum, x, y, yaw_deg, *, z=None, upright=False, orientation=None, zero_joints=False,
                    beside=False):
        p = self.robots[(side, unum)]
        yaw = p.yaw_deg if yaw_deg is None else yaw_deg
        self.robots[(side, unum)] = PlayerView(side, unum, (x, y, 0.38 if z is None else z), (0.0, 0.0, 0.0), yaw)
        self.moves.append((side, unum, x, y))
        _ = p

    def put(self, side: str, unum: int, x: float, y: float, z: float = 0.38) -> None:
        self.robots[(side, unum)] = PlayerView(side, unum, (x, y, z), (0.0, 0.0, 0.0))
