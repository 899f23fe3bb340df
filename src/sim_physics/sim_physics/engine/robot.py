"""One robot in an engine: its model and its controller state, shared by every engine (the
command checks and controller arrays are engine-neutral); an engine's own indices into its
library live in its own subclass (engine/mujoco/robot.py) or tables (articulated.py).

Controller state (velocity commands, servo targets, PD gains) lives here, not in MjModel,
so that rebuilding the model when another robot joins or leaves changes nothing for this
one (rcsssmj resets every robot's gains on recompilation)."""
from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Self, TypeVar

import numpy as np

from sim_contracts.agents import RCSSSMJ_VISION, SIMSPARK_VISION, VisionRules
from sim_hotpath import command_pd as hotpath_command_pd
from sim_hotpath import command_speeds as hotpath_command_speeds
from sim_physics.world.spec import ModelSpec

_GROUPS = ("h", "ra", "la", "rl", "ll")  # SimSpark perception order: head, right arm, left arm, right leg, left leg

MODE_VELOCITY = 0
MODE_PD = 1
V = TypeVar("V")
# Bounds of a PD motor command (q rad, dq rad/s, kp, kd, tau N m), far beyond any agent's use.
# They keep the actuator input under MuJoCo's "huge value" limit (1e10): past it MuJoCo zeroes
# the controls of every robot in the world for that step, so one agent would harm all others.
PD_BOUNDS = (1e3, 1e4, 1e5, 1e5, 1e5)


def perception_order(names: list[str]) -> list[int]:
    """Indices of the joints in the order SimSpark sends HJ (see samples/simspark)."""

    def key(i: int) -> tuple[int, int]:
        name = names[i]
        for g, prefix in enumerate(_GROUPS):
            if name.startswith(prefix) and name[len(prefix):len(prefix) + 1] == "j":
                return (g, i)
        return (len(_GROUPS), i)

    return sorted(range(len(names)), key=key)


@dataclass(slots=True)
class Robot:
    robot_id: str
    model_name: str
    spec: ModelSpec
    bit_index: int
    standing_height: float
    initial_pose: tuple[float, float, float]  # x, y, yaw (deg) when created
    label: tuple[str, int] | None = None
    joint_names: list[str] = field(default_factory=list)  # perceptor names, perception order
    effector_names: list[str] = field(default_factory=list)  # same order
    lower: np.ndarray = field(default_factory=lambda: np.zeros(0))
    upper: np.ndarray = field(default_factory=lambda: np.zeros(0))
    max_speed: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # controller state, per joint (perception order)
    mode: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    v_cmd: np.ndarray = field(default_factory=lambda: np.zeros(0))
    q_target: np.ndarray = field(default_factory=lambda: np.zeros(0))
    kp: np.ndarray = field(default_factory=lambda: np.zeros(0))
    kd: np.ndarray = field(default_factory=lambda: np.zeros(0))
    dq_target: np.ndarray = field(default_factory=lambda: np.zeros(0))
    tau: np.ndarray = field(default_factory=lambda: np.zeros(0))
    names_index: dict[str, int] = field(default_factory=dict)  # effector or perceptor name -> joint idx
    calibration: np.ndarray = field(default_factory=lambda: np.zeros(3))  # vision offset, head frame
    # a SimSpark model: rcssserver3d's rules (ACC of the step before, beams lifted to 0.4 m, parts seen
    # at their bodies' centres); else an rcsssmj model and rcsssmj's rules
    simspark_model: bool = False
    vision: VisionRules = SIMSPARK_VISION  # whose landmark names (and noise) this robot's camera has

    @classmethod
    def create(cls, robot_id: str, model_name: str, spec: ModelSpec, bit_index: int,
               standing_height: float, pose: tuple[float, float, float]) -> Self:
        joints = [j for j in spec.joints if j.kind == "revolute"]
        if spec.joint_order:  # the model's own order (rcsssmj robots: their q_ sensors)
            rank = {name: i for i, name in enumerate(spec.joint_order)}
            joints.sort(key=lambda j: rank.get(j.name, len(rank)))
        else:
            joints = [joints[i] for i in perception_order([j.name for j in joints])]
        n = len(joints)
        robot = cls(robot_id, model_name, spec, bit_index, standing_height, pose)
        robot.joint_names = [j.name for j in joints]
        robot.effector_names = [j.effector or j.name for j in joints]
        robot.lower = np.array([j.lower for j in joints])
        robot.upper = np.array([j.upper for j in joints])
        robot.max_speed = np.array([j.velocity or 6.1395 for j in joints])
        # SimSpark models start with every motor at 0 rad/s (rigid, as rcssserver3d); rcsssmj
        # models with zero PD gains (limp until the agent commands them, as rcsssmj).
        rcsssmj_model = bool(spec.joint_order)
        robot.mode = np.full(n, MODE_PD if rcsssmj_model else MODE_VELOCITY, dtype=np.int8)
        robot.simspark_model = not rcsssmj_model
        robot.vision = RCSSSMJ_VISION if rcsssmj_model else SIMSPARK_VISION
        robot.v_cmd = np.zeros(n)
        robot.q_target = np.zeros(n) if rcsssmj_model else np.clip(np.zeros(n), robot.lower, robot.upper)
        robot.kp = np.zeros(n)
        robot.kd = np.zeros(n)
        robot.dq_target = np.zeros(n)
        robot.tau = np.zeros(n)
        robot.names_index = {**{name: i for i, name in enumerate(robot.joint_names)},
                             **{name: i for i, name in enumerate(robot.effector_names)}}
        robot.dress()
        return robot

    def dress(self) -> None:
        """What an engine's own robot class takes from the model when it is created (none here)."""


def _known_joints(robot: Robot, commands: dict[str, V], errors: list[str]) -> Iterator[tuple[int, str, V]]:
    """(joint index, effector name, value) of each command naming one of the robot's joints;
    an unknown name is reported in errors."""
    for name, value in commands.items():
        i = robot.names_index.get(name)
        if i is None:
            errors.append(f"unknown joint effector {name!r}")
        else:
            yield i, name, value


def command_speeds(robot: Robot, speeds: dict[str, float]) -> tuple[list[str], bool]:
    """SimSpark hinge speeds (rad/s, cut to the joint's top speed) into the robot's controller
    state, whatever engine steps it: (errors for what was refused, whether a joint left PD).
    Every agent's every cycle: compiled (sim_hotpath), on the arrays below."""
    return hotpath_command_speeds(robot.names_index, speeds, robot.mode, robot.max_speed, robot.v_cmd, MODE_VELOCITY)


def command_pd(robot: Robot, targets: dict[str, tuple[float, float, float, float, float]]) -> tuple[list[str], bool]:
    """rcsssmj PD commands (q, dq, kp, kd, tau) into the controller state: (errors, whether a
    joint's mode or gains changed, which engines apply to their model)."""
    taken = hotpath_command_pd(robot.names_index, targets, robot.mode, robot.kp, robot.kd, robot.q_target,
                               robot.dq_target, robot.tau, robot.v_cmd, MODE_PD, PD_BOUNDS)
    if taken is not None:  # every command valid: taken at once (compiled, sim_hotpath)
        return [], taken
    errors: list[str] = []
    changed = False
    for i, name, values in _known_joints(robot, targets, errors):
        if len(values) != 5 or not all(math.isfinite(v) for v in values):
            errors.append(f"PD command for {name!r} needs 5 finite numbers, got {values!r}")
            continue
        q, dq, kp, kd, tau = values
        if kp < 0 or kd < 0:
            errors.append(f"PD gains for {name!r} must not be negative (kp={kp}, kd={kd})")
            continue
        if any(abs(v) > bound for v, bound in zip(values, PD_BOUNDS)):
            errors.append(f"PD command for {name!r} out of range (|q| <= {PD_BOUNDS[0]:g}, "
                          f"|dq| <= {PD_BOUNDS[1]:g}, kp, kd <= {PD_BOUNDS[2]:g}, |tau| <= {PD_BOUNDS[4]:g}): "
                          f"{values!r}")
            continue
        if robot.mode[i] != MODE_PD or robot.kp[i] != kp or robot.kd[i] != kd:
            robot.mode[i] = MODE_PD
            robot.kp[i], robot.kd[i] = kp, kd
            changed = True
        robot.q_target[i] = q
        robot.dq_target[i] = dq
        robot.tau[i] = tau
        robot.v_cmd[i] = 0.0
    return errors, changed
