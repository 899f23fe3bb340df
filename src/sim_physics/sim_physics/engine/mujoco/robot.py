"""A robot in the MuJoCo engine: the shared robot (engine/robot.py) and where it is in the
MjModel, looked up again after every rebuild (`bind`).

Why a subclass: only MuJoCo rebuilds its model and reads robots by index into it; the
articulated engine keeps its own tables, and the shared robot knows no physics library."""
from __future__ import annotations

from dataclasses import dataclass, field

import mujoco
import numpy as np

from sim_physics.engine.robot import Robot


@dataclass(slots=True)
class MjRobot(Robot):
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
    armature: np.ndarray = field(default_factory=lambda: np.zeros(0))  # the model's own, per joint
    frictionloss: np.ndarray = field(default_factory=lambda: np.zeros(0))  # the model's own, per joint
    effort: np.ndarray = field(default_factory=lambda: np.zeros(0))  # N m, a velocity motor's bound
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
    mj_prefix: str = ""  # its elements' name prefix in MjModel (a reused parked robot keeps its first one)
    file_kp: np.ndarray | None = None  # the MJCF's own gains (verbatim robots), read at the first bind
    file_kd: np.ndarray | None = None
    gains_read: bool = False  # the model's own gains copied into kp/kd (first bind)

    def dress(self) -> None:
        """The model's figures MuJoCo's actuators and dofs take, per joint, and its name prefix."""
        joints = {j.name: j for j in self.spec.joints}
        ordered = [joints[name] for name in self.joint_names]
        self.mj_prefix = self.robot_id
        self.verbatim = self.spec.mjcf is not None
        self.armature = np.array([j.armature for j in ordered])
        self.frictionloss = np.array([j.frictionloss for j in ordered])
        self.effort = np.array([j.effort or 10.0 for j in ordered])

    def bind(self, model: mujoco.MjModel) -> None:
        """Look up this robot's indices in a (re)built model."""
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
