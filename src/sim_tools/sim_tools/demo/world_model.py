"""What a demo player believes, from its percepts only: own pose (the rcsssmj-style global
torso pose), the ball (vision, kept between updates), team-mates seen, and the play mode.
Everything is in the team's own frame (own goal at -x), so both sides play the same tree."""
from __future__ import annotations

import math
from dataclasses import dataclass

from sim_contracts.percept import Percept
from soccer_team.beliefs import Beliefs

PUSHER_SPEED = 20.0  # rad/s wheel speed limit
WHEEL_RADIUS = 0.05
AXLE = 0.28


@dataclass(slots=True)
class WorldModel(Beliefs):
    """A pusher's beliefs, from rcsssmj's global torso pose and its vision."""

    def update(self, p: Percept) -> None:
        f = self.flip
        gx, gy, _ = p.torso_position
        w, qx, qy, qz = p.torso_quaternion
        yaw = math.atan2(2 * (w * qz + qx * qy), 1 - 2 * (qy * qy + qz * qz))
        self.x, self.y = f * gx, f * gy
        self.yaw = yaw if f > 0 else math.atan2(math.sin(yaw + math.pi), math.cos(yaw + math.pi))
        self.play_mode = p.game.play_mode
        dt = p.time - self.time if self.time else 0.0
        self.time = p.time
        self.ball_age += max(dt, 0.0)
        if p.vision is not None:
            ball = p.vision.objects.get("B")
            if ball is not None:
                self.ball = self.to_field(ball.distance, ball.azimuth, ball.elevation)
                self.ball_age = 0.0
            self.mates = {}
            team = p.game.team_left if self.side == "left" else p.game.team_right
            for seen in p.vision.players:
                if seen.team == team and seen.parts:
                    part = next(iter(seen.parts.values()))
                    self.mates[seen.unum] = self.to_field(part.distance, part.azimuth, part.elevation)

    def wheel_speeds(self) -> dict[str, float]:
        """Differential drive toward the target (turn first when facing away)."""
        if self.target is None:
            return {"lwe": 0.0, "rwe": 0.0}
        tx, ty = self.target
        dx, dy = tx - self.x, ty - self.y
        dist = math.hypot(dx, dy)
        if dist < 0.15 and not self.push:
            if self.face is None:
                return {"lwe": 0.0, "rwe": 0.0}
            dx, dy = self.face[0] - self.x, self.face[1] - self.y
            dist = 0.0
        err = math.atan2(dy, dx) - self.yaw
        err = math.atan2(math.sin(err), math.cos(err))
        forward = 0.0 if abs(err) > 0.9 else min(1.0, 0.4 + dist) * (1.0 - abs(err) / 0.9)
        turn = max(-1.0, min(1.0, 2.5 * err))
        left = max(-1.0, min(1.0, forward - 0.5 * turn))
        right = max(-1.0, min(1.0, forward + 0.5 * turn))
        return {"lwe": left * PUSHER_SPEED, "rwe": right * PUSHER_SPEED}
