"""One robot in an engine: its model, its controller state (shared by every engine: the
command checks and controller arrays are engine-neutral), and its indices in MuJoCo's
MjModel when the MuJoCo engine binds it (MuJoCo is imported only then).

Controller state (velocity commands, servo targets, PD gains) lives here, not in MjModel,
so that rebuilding the model when another robot joins or leaves changes nothing for this
one (rcsssmj resets every robot's gains on recompilation)."""
from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from sim_contracts.agents import RCSSSMJ_VISION, SIMSPARK_VISION, VisionRules
from sim_hotpath import command_pd as hotpath_command_pd
from sim_hotpath import command_speeds as hotpath_command_speeds
from sim_master.world.spec import ModelSpec

if TYPE_CHECKING:
    import mujoco

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
    # MjModel indices (refreshed after every rebuild)
    qpos_adr: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    dof_adr: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    act_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    root_qpos: int = 0
    root_dof: int = 0
    root_body: int = 0
    head_body: int = -1
    gyro_adr: int = -1
    acc_adr: int = -1
    body_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    part_bodies: dict[str, int] = field(default_factory=dict)  # vision part -> body id
    frp_geoms: dict[str, tuple[int, np.ndarray]] = field(default_factory=dict)  # name -> (body, geoms)
    frp_slots: dict[str, int] = field(default_factory=dict)  # name -> row in the engine's foot loads
    names_index: dict[str, int] = field(default_factory=dict)  # effector or perceptor name -> joint idx
    camera_fov: float = 2.0944
    calibration: np.ndarray = field(default_factory=lambda: np.zeros(3))  # vision offset, head frame
    armature: np.ndarray = field(default_factory=lambda: np.zeros(0))  # the model's own, per joint
    frictionloss: np.ndarray = field(default_factory=lambda: np.zeros(0))  # the model's own, per joint
    effort: np.ndarray = field(default_factory=lambda: np.zeros(0))  # N m, a velocity motor's bound
    # a SimSpark model: rcssserver3d's rules (ACC of the step before, beams lifted to 0.4 m, parts seen
    # at their bodies' centres); else an rcsssmj model and rcsssmj's rules
    simspark_model: bool = False
    acc_prev: np.ndarray | None = None
    vel_prev: np.ndarray | None = None  # root linear velocity (world) one cycle ago
    imu_on_root: bool = False  # the IMU sits at the root body's origin, axes aligned
    # An MJCF robot attached verbatim (rcsssmj's): its own three actuators per joint
    # (`_tau` in act_ids, `_pos`, `_vel`) and its own sensors, read as rcsssmj reads them.
    verbatim: bool = False
    act_pos: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    act_vel: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    q_sensor_adr: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    dq_sensor_adr: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    quat_adr: int = -1
    pos_adr: int = -1
    camera_site: int = -1
    vision: VisionRules = SIMSPARK_VISION  # whose landmark names (and noise) this robot's camera has
    mj_prefix: str = ""  # its elements' name prefix in MjModel (a reused parked robot keeps its first one)
    file_kp: np.ndarray | None = None  # the MJCF's own gains (verbatim robots), read at the first bind
    file_kd: np.ndarray | None = None
    gains_read: bool = False  # the model's own gains copied into kp/kd (first bind)

    @staticmethod
    def create(robot_id: str, model_name: str, spec: ModelSpec, bit_index: int,
               standing_height: float, pose: tuple[float, float, float]) -> Robot:
        joints = [j for j in spec.joints if j.kind == "revolute"]
        if spec.joint_order:  # the model's own order (rcsssmj robots: their q_ sensors)
            rank = {name: i for i, name in enumerate(spec.joint_order)}
            joints.sort(key=lambda j: rank.get(j.name, len(rank)))
        else:
            joints = [joints[i] for i in perception_order([j.name for j in joints])]
        n = len(joints)
        robot = Robot(robot_id, model_name, spec, bit_index, standing_height, pose)
        robot.mj_prefix = robot_id
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
        robot.verbatim = spec.mjcf is not None
        robot.vision = RCSSSMJ_VISION if rcsssmj_model else SIMSPARK_VISION
        robot.armature = np.array([j.armature for j in joints])
        robot.frictionloss = np.array([j.frictionloss for j in joints])
        robot.effort = np.array([j.effort or 10.0 for j in joints])
        robot.v_cmd = np.zeros(n)
        robot.q_target = np.zeros(n) if rcsssmj_model else np.clip(np.zeros(n), robot.lower, robot.upper)
        robot.kp = np.zeros(n)
        robot.kd = np.zeros(n)
        robot.dq_target = np.zeros(n)
        robot.tau = np.zeros(n)
        robot.names_index = {**{name: i for i, name in enumerate(robot.joint_names)},
                             **{name: i for i, name in enumerate(robot.effector_names)}}
        cams = [link.camera_fov for link in spec.links if link.camera_fov]
        robot.camera_fov = cams[0] if cams else 2.0944
        return robot

    def bind(self, model: mujoco.MjModel) -> None:
        """Look up this robot's indices in a (re)built model."""
        import mujoco  # only the MuJoCo engine binds robots to a model

        rid = self.mj_prefix
        obj = mujoco.mjtObj

        def ids(kind: mujoco.mjtObj, names: list[str]) -> np.ndarray:
            return np.array([mujoco.mj_name2id(model, kind, f"{rid}/{n}") for n in names], dtype=np.int64)

        jids = ids(obj.mjOBJ_JOINT, [self.spec.mjcf_joints.get(n, n) for n in self.joint_names])
        self.qpos_adr = model.jnt_qposadr[jids].astype(np.int64)
        self.dof_adr = model.jnt_dofadr[jids].astype(np.int64)
        if self.verbatim:
            self.act_ids = ids(obj.mjOBJ_ACTUATOR, [f"{e}_tau" for e in self.effector_names])
            self.act_pos = ids(obj.mjOBJ_ACTUATOR, [f"{e}_pos" for e in self.effector_names])
            self.act_vel = ids(obj.mjOBJ_ACTUATOR, [f"{e}_vel" for e in self.effector_names])
            if self.file_kp is None or self.file_kd is None:
                self.file_kp = model.actuator_gainprm[self.act_pos, 0].copy()
                self.file_kd = model.actuator_gainprm[self.act_vel, 0].copy()
            if not self.gains_read:  # the model's own gains until the agent sends its own
                self.kp, self.kd = self.file_kp.copy(), self.file_kd.copy()
                self.gains_read = True
            self.q_sensor_adr = model.sensor_adr[ids(obj.mjOBJ_SENSOR, [f"q_{n}" for n in self.joint_names])]
            self.dq_sensor_adr = model.sensor_adr[ids(obj.mjOBJ_SENSOR, [f"dq_{n}" for n in self.joint_names])]
            self.camera_site = mujoco.mj_name2id(model, obj.mjOBJ_SITE, f"{rid}/camera")
        else:
            self.act_ids = ids(obj.mjOBJ_ACTUATOR, self.effector_names)
        root = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, f"{rid}/root")
        self.root_qpos, self.root_dof = int(model.jnt_qposadr[root]), int(model.jnt_dofadr[root])
        self.root_body = int(model.jnt_bodyid[root])
        self.body_ids = np.flatnonzero(model.body_rootid == self.root_body).astype(np.int64)  # named or not
        self.part_bodies = {}
        self.frp_geoms = {}
        self.head_body = -1
        for link in self.spec.links:
            bid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, f"{rid}/{link.name}")
            if link.vision_part:
                self.part_bodies[link.vision_part] = bid
            if link.camera_fov:
                self.head_body = bid
            if link.frp:
                geoms = np.array([g for g in range(model.ngeom) if model.geom_bodyid[g] == bid], dtype=np.int64)
                self.frp_geoms[link.frp] = (bid, geoms)
        self.gyro_adr = self.acc_adr = self.quat_adr = self.pos_adr = -1
        kinds = {mujoco.mjtSensor.mjSENS_GYRO: "gyro_adr", mujoco.mjtSensor.mjSENS_ACCELEROMETER: "acc_adr",
                 mujoco.mjtSensor.mjSENS_FRAMEQUAT: "quat_adr", mujoco.mjtSensor.mjSENS_FRAMEPOS: "pos_adr"}
        sites = set(np.flatnonzero(np.isin(model.site_bodyid, self.body_ids)).tolist())
        for s in range(model.nsensor):  # the first of each kind on one of this robot's sites
            attr = kinds.get(model.sensor_type[s])
            if attr and int(model.sensor_objid[s]) in sites and getattr(self, attr) < 0:
                setattr(self, attr, int(model.sensor_adr[s]))
        # acc_prev and vel_prev (world frame) carry over a rebuild: ACC lags on through a join
        root_link = self.spec.root_link()
        self.imu_on_root = root_link.imu

    def sensor_rows(self) -> np.ndarray:
        """The rows of the model's sensordata this robot's percepts read (rcsssmj's robots:
        joints, GYR, ACC, torso position and orientation); empty before it is bound."""
        rows = [self.q_sensor_adr, self.dq_sensor_adr]
        for adr, n in ((self.gyro_adr, 3), (self.acc_adr, 3), (self.pos_adr, 3), (self.quat_adr, 4)):
            if adr >= 0:
                rows.append(np.arange(adr, adr + n))
        return np.concatenate(rows).astype(np.intp)


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
