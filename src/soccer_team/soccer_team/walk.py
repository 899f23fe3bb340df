"""An omnidirectional walk: a velocity (forward, sideways, turn) in, the legs' joint targets out.

Why this shape: the published walks of the league's base teams share it. Steps alternate
between the feet at a fixed period; the support foot slides back under the body at the body's
speed while the swing foot is lifted and carried to its landing place; the torso sways over the
support foot; feet are placed by the closed-form leg solve (leg_kinematics). Sideways steps and
turns use the leading leg only (the hip yaw-pitch joint turns a foot outwards, never inwards), so
the feet never cross. The gyro feeds back into the ankles and hips, which is what keeps a walk
this simple on its feet. Every figure is a `WalkParams` field, tuned by bench/tune_walk.py.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from soccer_team.figures import Figures
from soccer_team.leg_kinematics import NAO0, LegGeometry, clip_to_limits, rot_y, rot_z, solve_leg_reaching

LEG_JOINTS = {side: tuple(f"{side}lj{i}" for i in range(1, 7)) for side in "lr"}
CYCLE = 0.02  # s, the server's step
STOP_SPEED = (0.05, 0.04, 0.15)  # m/s, m/s, rad/s: told to stand, a walk this slow stops in two steps


@dataclass(frozen=True, slots=True)
class WalkParams(Figures):
    """The walk's figures (m, s, rad). The defaults are the tuned ones (docs/team.md)."""

    step_time: float = 0.2132  # one step: one foot's swing, s
    height: float = 0.181  # ankle below the hip while standing in the walk, m
    step_height: float = 0.0238  # how high the swing foot is lifted, m
    sway: float = 0.0179  # the torso's sideways swing over the support foot, m
    width: float = 0.0053  # each foot's extra sideways offset beyond its hip, m
    lean: float = 0.0745  # the torso's forward lean, rad
    x_offset: float = -0.0146  # the feet's place ahead of the hips, m
    max_x: float = 0.0977  # m per step forward (backward: half)
    max_y: float = 0.045  # m per step sideways
    max_turn: float = 0.35  # rad per step
    gyro_pitch: float = -0.0091  # ankle pitch per torso pitch rate (rad per rad/s)
    gyro_roll: float = -0.0021  # hip roll per torso roll rate (rad per rad/s)
    swing_shape: float = 0.8974  # >1 lifts early and lands late
    accel: float = 0.4497  # how much of a new command a step takes on (0..1]



@dataclass(slots=True)
class _Foot:
    x: float = 0.0
    y: float = 0.0
    yaw: float = 0.0


@dataclass(slots=True)
class Walk:
    """The walk's state: which foot swings, how far into its step, where the feet started."""

    params: WalkParams = field(default_factory=WalkParams)
    legs: LegGeometry = NAO0  # the robot type's (leg_kinematics.legs_of): the same feet on any legs
    swing: str = "l"
    phase: float = 0.0  # 0..1 within the current step
    command: tuple[float, float, float] = (0.0, 0.0, 0.0)  # m/s, m/s, rad/s wanted
    _speed: tuple[float, float, float] = (0.0, 0.0, 0.0)  # what the current step walks
    _start: dict[str, _Foot] = field(default_factory=lambda: {"l": _Foot(), "r": _Foot()})
    _end: dict[str, _Foot] = field(default_factory=lambda: {"l": _Foot(), "r": _Foot()})
    walking: bool = False

    def set_command(self, forward: float, sideways: float, turn: float) -> None:
        """The velocity to walk at (m/s, m/s, rad/s); all zero stands still after the step."""
        self.command = (forward, sideways, turn)
        if not self.walking and (forward or sideways or turn):
            self.walking = True
            self.phase = 0.0
            self._begin_step()

    def reset(self) -> None:
        """Stand still at once, feet in their standing place (after a fall or a kick)."""
        self.command = (0.0, 0.0, 0.0)
        self._speed = (0.0, 0.0, 0.0)
        self._start = {"l": _Foot(), "r": _Foot()}
        self._end = {"l": _Foot(), "r": _Foot()}
        self.walking = False
        self.phase = 0.0

    def odometry(self) -> tuple[float, float, float]:
        """The body's speed (m/s, m/s, rad/s) the current steps walk, as far as the walk knows."""
        if not self.walking:
            return 0.0, 0.0, 0.0
        p = self.params
        sx, sy, st = self._speed
        lasts = math.ceil(p.step_time / CYCLE - 1e-9) * CYCLE  # a step ends on a whole cycle
        return (max(-p.max_x / 2, min(p.max_x, sx * p.step_time)) / lasts,
                max(-p.max_y, min(p.max_y, sy * p.step_time)) / lasts,
                max(-p.max_turn, min(p.max_turn, st * p.step_time)) / lasts)

    def max_speed(self) -> tuple[float, float, float]:
        p = self.params
        return p.max_x / p.step_time, p.max_y / p.step_time, p.max_turn / p.step_time

    def _begin_step(self) -> None:
        p = self.params
        t = p.step_time
        fx, fy, ft = self.command
        k = p.accel  # ease into a new speed: a step takes part of the change
        sx, sy, st = self._speed
        sx += k * (fx - sx)
        sy += k * (fy - sy)
        st += k * (ft - st)
        if not any(self.command) and abs(sx) < STOP_SPEED[0] and abs(sy) < STOP_SPEED[1] and abs(st) < STOP_SPEED[2]:
            sx = sy = st = 0.0  # slow enough to stop now (feet level in the next step), no tail of tiny steps
        self._speed = (sx, sy, st)
        dx = max(-p.max_x / 2, min(p.max_x, sx * t))
        lateral_lead = "l" if sy > 0 else "r"
        turn_lead = "l" if st > 0 else "r"
        swing, support = self.swing, ("r" if self.swing == "l" else "l")
        dy = max(-p.max_y, min(p.max_y, sy * t)) * 2 if swing == lateral_lead else 0.0
        dt = max(-p.max_turn, min(p.max_turn, st * t)) * 2 if swing != turn_lead else 0.0
        s = self._end[support]
        if dt:  # the body turns over the leading foot, taking back its toe-out, never toeing it in
            dt = min(dt, s.yaw) if dt > 0 else max(dt, s.yaw)
        self._start = {"l": _Foot(self._end["l"].x, self._end["l"].y, self._end["l"].yaw),
                       "r": _Foot(self._end["r"].x, self._end["r"].y, self._end["r"].yaw)}
        c, sn = math.cos(-dt), math.sin(-dt)
        px, py = s.x - dx, s.y - dy
        self._end[support] = _Foot(c * px - sn * py, sn * px + c * py, s.yaw - dt)
        toe_out = abs(st * t) * 2 if swing == turn_lead and st != 0 else 0.0
        toe_out = min(toe_out, 2 * p.max_turn)
        self._end[swing] = _Foot(dx / 2, 0.0, toe_out if swing == "l" else -toe_out)

    def tick(self, gyro: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> dict[str, float]:
        """Advance one cycle; the legs' joint targets (rad, by perceptor name) for its end.
        `gyro` is the torso's rate (rad/s about the model's x forward, y left, z up: motion.body_rates)."""
        p = self.params
        if self.walking:
            self.phase += CYCLE / p.step_time
            if self.phase >= 1.0 - 1e-9:
                self.phase = 0.0
                self.swing = "r" if self.swing == "l" else "l"
                if not any(self.command) and all(abs(v) < 1e-3 for v in self._speed) \
                        and all(abs(f.x) < 1e-3 and abs(f.y) < 1e-3 and abs(f.yaw) < 1e-3 for f in self._end.values()):
                    self.walking = False
                else:
                    self._begin_step()
        return self.targets(gyro)

    def targets(self, gyro: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> dict[str, float]:
        p = self.params
        ph = self.phase if self.walking else 0.0
        lift = math.sin(math.pi * ph) ** p.swing_shape if self.walking else 0.0
        carry = (1.0 - math.cos(math.pi * ph)) / 2.0
        support = "r" if self.swing == "l" else "l"
        sway = p.sway * math.sin(math.pi * ph) * (-1.0 if support == "l" else 1.0) if self.walking else 0.0
        level_to_torso = rot_y(-p.lean)
        out: dict[str, float] = {}
        for side in "lr":
            a, b = self._start[side], self._end[side]
            w = carry if side == self.swing else ph
            x = a.x + (b.x - a.x) * w + p.x_offset
            y = a.y + (b.y - a.y) * w + p.width * (1 if side == "l" else -1) + sway
            yaw = a.yaw + (b.yaw - a.yaw) * w
            z = -p.height * self.legs.stance + (p.step_height * lift if side == self.swing else 0.0)
            ankle = level_to_torso @ np.array((x, y, z))
            q1, q2, q3, q4, q5, q6 = solve_leg_reaching(side, ankle, level_to_torso @ rot_z(yaw), self.legs)
            q5 += p.gyro_pitch * gyro[1]
            q2 += p.gyro_roll * gyro[0]
            for name, angle in zip(LEG_JOINTS[side], clip_to_limits(side, (q1, q2, q3, q4, q5, q6)), strict=True):
                out[name] = angle
        return out
