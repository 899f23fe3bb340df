"""Differential-drive kinematics of the pusher and a kinematic ball, in plain floats.

Figures match the MuJoCo pusher model (worlds/models/pusher.sdf), so a swarm simulated
here looks the same to a MuJoCo node that mirrors it as ghosts."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Final

from sim_physics.snapshot import EntitySnapshot

WHEEL_RADIUS: Final = 0.05  # m
AXLE: Final = 0.28  # m between the wheels
MAX_WHEEL_SPEED: Final = 20.0  # rad/s (1 m/s)
BODY_HEIGHT: Final = 0.07  # m: torso centre above the ground when standing on its wheels
FRONT: Final = 0.15  # m from the centre to the front face
JOINTS: Final = ("lw", "rw")
EFFECTORS: Final = {"lwe": 0, "rwe": 1}
BALL_DECAY: Final = 0.98  # speed kept per 20 ms cycle when rolling freely
PUSH_REACH: Final = 0.25  # m from the robot's front point to the ball centre


@dataclass(slots=True)
class Body:
    """A robot: owned ones are integrated here; ghosts only take states from snapshots."""

    name: str
    model: str
    x: float
    y: float
    yaw: float  # rad
    owned: bool = True
    wheels: list[float] = field(default_factory=lambda: [0.0, 0.0])  # commanded speeds, rad/s
    wheel_angles: list[float] = field(default_factory=lambda: [0.0, 0.0])
    v: float = 0.0
    omega: float = 0.0
    z: float = BODY_HEIGHT
    extra: EntitySnapshot | None = None  # a ghost of another model: its state as received

    def integrate(self, dt: float, half_length: float, half_width: float) -> None:
        wl, wr = self.wheels
        self.v = WHEEL_RADIUS * (wl + wr) / 2
        self.omega = WHEEL_RADIUS * (wr - wl) / AXLE
        mid = self.yaw + self.omega * dt / 2  # midpoint heading: exact enough for 20 ms arcs
        self.x = min(max(self.x + self.v * math.cos(mid) * dt, -half_length), half_length)
        self.y = min(max(self.y + self.v * math.sin(mid) * dt, -half_width), half_width)
        self.yaw = math.remainder(self.yaw + self.omega * dt, math.tau)
        self.wheel_angles[0] += wl * dt
        self.wheel_angles[1] += wr * dt

    def front(self) -> tuple[float, float]:
        return self.x + FRONT * math.cos(self.yaw), self.y + FRONT * math.sin(self.yaw)

    def to_entity(self) -> EntitySnapshot:
        if self.extra is not None:
            return self.extra
        h = self.yaw / 2
        return EntitySnapshot(self.name, (self.x, self.y, self.z), (math.cos(h), 0.0, 0.0, math.sin(h)),
                              (self.v * math.cos(self.yaw), self.v * math.sin(self.yaw), 0.0), (0.0, 0.0, self.omega),
                              JOINTS, tuple(self.wheel_angles), tuple(self.wheels), model=self.model)

    def set_from(self, e: EntitySnapshot) -> None:
        w, _qx, _qy, qz = e.orientation
        self.x, self.y, self.z = e.position
        self.yaw = 2 * math.atan2(qz, w)
        self.v = e.linear_velocity[0] * math.cos(self.yaw) + e.linear_velocity[1] * math.sin(self.yaw)
        self.omega = e.angular_velocity[2]
        if self.model == "pusher" and len(e.joint_positions) == 2:
            self.wheel_angles = list(e.joint_positions)
            self.wheels = list(e.joint_velocities)
            self.extra = None
        else:
            self.extra = e


@dataclass(slots=True)
class Ball:
    x: float = 0.0
    y: float = 0.0
    z: float = 0.042
    vx: float = 0.0
    vy: float = 0.0
    owned: bool = True

    def integrate(self, dt: float, pushers: list[Body], half_length: float, half_width: float) -> None:
        for body in pushers:  # the first robot whose front touches it pushes it along its heading
            fx, fy = body.front()
            if body.v > 0 and math.hypot(self.x - fx, self.y - fy) < PUSH_REACH:
                self.vx, self.vy = 1.2 * body.v * math.cos(body.yaw), 1.2 * body.v * math.sin(body.yaw)
                break
        else:
            self.vx *= BALL_DECAY
            self.vy *= BALL_DECAY
        self.x += self.vx * dt
        self.y += self.vy * dt
        if abs(self.x) > half_length:  # bounces off the border
            self.x, self.vx = math.copysign(half_length, self.x), -self.vx
        if abs(self.y) > half_width:
            self.y, self.vy = math.copysign(half_width, self.y), -self.vy

    def to_entity(self) -> EntitySnapshot:
        return EntitySnapshot("ball", (self.x, self.y, self.z), (1.0, 0.0, 0.0, 0.0), (self.vx, self.vy, 0.0),
                              model="ball")

    def set_from(self, e: EntitySnapshot) -> None:
        self.x, self.y, self.z = e.position
        self.vx, self.vy = e.linear_velocity[0], e.linear_velocity[1]
