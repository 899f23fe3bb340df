"""MuJoCo engine node: soccer worlds from SDF, robots that join and leave, SimSpark and
rcsssmj effector semantics, the references' sensors, and snapshots.

Joint control is done by MuJoCo itself (one affine `general` actuator per hinge:
force = ctrl - kp*q - kd*qdot, limited to the joint's effort), so no Python runs between
the physics substeps:
- SimSpark hinge velocity (rad/s, persists until changed): rcssserver3d's ODE velocity
  motor, a velocity constraint with a bounded force, as a dof friction constraint of the
  joint's effort whose reference is the commanded speed, solved by MuJoCo's constraint
  solver together with contacts and limits: the joint moves v * dt per cycle, holds rigidly
  at 0 and yields only beyond its effort. The speed is cut per cycle so that the joint
  stops exactly at its range.
- rcsssmj PD: ctrl = kp*q + kd*dq + tau with the agent's gains; robots of rcsssmj models
  start with zero gains (limp), as there.
Adding or removing a robot rebuilds the model and copies every other entity's state and
controller across, so nobody else notices."""
from __future__ import annotations

import copy
import math
import time

import mujoco
import numpy as np

from sim_contracts.percept import ForceResistance, Vision
from sim_hotpath import foot_readings
from sim_physics.engine.common import (
    MODEL_ALIASES,
    ball_drag_wrench,
    quat,
    standing_height,
    to_sim,
    vec3,
    yaw_quat,
)
from sim_physics.engine.core import EngineCore, ModelEntry, Readings, lagged_accelerations, seen_centre, seen_points
from sim_physics.engine.mujoco.mjcf import PD_ARMATURE, robot_mjcf, static_world_mjcf
from sim_physics.engine.mujoco.robot import MjRobot
from sim_physics.engine.recovery import free_joint_health, free_spot
from sim_physics.engine.robot import MODE_PD
from sim_physics.snapshot import EntitySnapshot
from sim_physics.world.sdf_loader import load_world
from sim_physics.world.spec import ModelSpec
from sim_physics.world.transforms import Transform, rpy_matrix

PARKING = (1000.0, 1000.0)  # m, where robots that left wait to be reused


_FRICTION_DOF = int(mujoco.mjtConstraint.mjCNSTR_FRICTION_DOF)


def _verbatim_spec(spec: ModelSpec) -> mujoco.MjSpec:
    """A robot's MJCF as MuJoCo reads it, less its visual-only geoms and their meshes: they
    carry no mass (density 0) and no contacts, and compiling the meshes would cost a
    quarter of a second per robot at every join."""
    assert spec.mjcf is not None
    part = mujoco.MjSpec.from_file(str(spec.mjcf))
    for geom in list(part.geoms):
        if geom.contype == 0 and geom.conaffinity == 0 and geom.density == 0:
            part.delete(geom)
    used = {geom.meshname for geom in part.geoms}
    for mesh in list(part.meshes):
        if mesh.name not in used:
            part.delete(mesh)
    return part


MjState = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]  # qpos, qvel, act, warm start, time


class MujocoEngine(EngineCore[MjRobot, MjState]):
    """Implements SimulationNode with MuJoCo (see sim_physics.engine.node)."""

    physics = "mujoco"

    def __init__(self, world: str = "simspark_field", *, substeps: int = 4, timestep: float = 0.005,
                 vision_noise: bool = True, seed: int | None = None) -> None:
        spec = load_world(world)
        spec.timestep = timestep
        # builds: model compilations so far
        self._init_core(spec, substeps=substeps, timestep=timestep, vision_noise=vision_noise, seed=seed,
                        fault_name="MuJoCo")
        self._static_xml = static_world_mjcf(self.world)
        self._models: dict[str, ModelEntry] = {}
        self._verbatim: dict[str, mujoco.MjSpec] = {}  # model name -> its MJCF, ready to attach
        # Robots that left, parked far away and reused by the next robot of their model, so
        # that joining and leaving cost no model rebuild (dropped at the next real rebuild).
        self._parked: dict[str, list[MjRobot]] = {}
        self._next_bit = 0
        self._dirty = False
        self._unstepped: set[int] = set()  # robots (id) placed since the last step without a rebuild
        self._readings: list[tuple[tuple[float, float, float], tuple[float, float, float]] | None] | None = None
        self._readings_cycle = -1
        self._slot_geom = np.zeros(0, dtype=np.intp)
        self._build()

    # ------------------------------------------------------------------ model building
    def _model_loaded(self, name: str, spec: ModelSpec) -> None:
        if spec.mjcf is not None:
            self._verbatim[name] = _verbatim_spec(spec)

    def _standing_height(self, spec: ModelSpec) -> float:
        """engine.common.standing_height; an MJCF robot whose file gives no height: its geoms'
        lowest point as MuJoCo compiles them (meshes by their bounding radius)."""
        if spec.mjcf is None or spec.spawn_height > 0:
            return standing_height(spec)
        model = _verbatim_spec(spec).compile()
        data = mujoco.MjData(model)
        mujoco.mj_kinematics(model, data)
        lowest = 0.0
        for g in range(model.ngeom):
            if model.geom_contype[g] == 0 and model.geom_conaffinity[g] == 0:
                continue
            z, rot, size = data.geom_xpos[g][2], data.geom_xmat[g].reshape(3, 3), model.geom_size[g]
            t = model.geom_type[g]
            if t == mujoco.mjtGeom.mjGEOM_BOX:
                extent = float(np.abs(rot[2]) @ size)
            elif t == mujoco.mjtGeom.mjGEOM_SPHERE:
                extent = float(size[0])
            elif t == mujoco.mjtGeom.mjGEOM_MESH:
                extent = float(model.geom_rbound[g])
            else:  # capsule / cylinder along the local z axis
                extent = float(size[0] + abs(rot[2, 2]) * size[1])
            lowest = min(lowest, z - extent)
        return float(data.xpos[1][2]) - lowest + 0.002

    def _build(self) -> None:
        """(Re)compile the model with the current robots; keep every entity's state."""
        self.builds += 1
        self._parked = {}
        # What the robots already in the world read from the last step: a robot joining after
        # the step (rcsssmj's) must not change the others' percepts of this cycle.
        old_sensors = getattr(self, "_sensordata", None)
        kept = {id(r): old_sensors[r.sensor_rows()].copy() for r in self._robots.values()} \
            if old_sensors is not None else {}
        old_feet: dict[tuple[int, str], tuple[tuple[float, float, float], tuple[float, float, float]] | None] = {}
        if old_sensors is not None and self.cycle > 0 and len(self._slot_geom):
            readings = self._foot_readings()  # the step's contacts, in the model that stepped
            old_feet = {(id(r), name): readings[slot] for r in self._robot_list for name, slot in r.frp_slots.items()}
        old_model = getattr(self, "model", None)
        old_data = getattr(self, "data", None)
        bodies, actuators, sensors = [], [], []
        for robot in self._robots.values():
            if robot.verbatim:
                continue
            x, y, yaw = robot.initial_pose
            pose = Transform(np.array([x, y, robot.standing_height]), rpy_matrix(0, 0, math.radians(yaw)))
            b, a, s = robot_mjcf(robot.spec, robot.mj_prefix, robot.bit_index, pose)
            bodies.append(b)
            actuators.append(a)
            sensors.append(s)
        xml = (self._static_xml.replace("<!--robots-->", "".join(bodies))
               .replace("<!--actuators-->", "".join(actuators)).replace("<!--sensors-->", "".join(sensors)))
        verbatim = [robot for robot in self._robots.values() if robot.verbatim]
        if verbatim:  # rcsssmj's robots: their own MJCF attached into the world, as rcsssmj does
            world = mujoco.MjSpec.from_string(xml)
            for robot in verbatim:
                x, y, yaw = robot.initial_pose
                part = self._verbatim[robot.model_name].copy()
                root = part.body(robot.spec.root_link().name)
                root.pos = [x, y, robot.standing_height]
                root.quat = list(yaw_quat(yaw))
                world.worldbody.add_frame().attach_body(root, f"{robot.mj_prefix}/", "")
            self.model = world.compile()
        else:
            self.model = mujoco.MjModel.from_xml_string(xml)
        self.data = mujoco.MjData(self.model)
        self.model.opt.timestep = self.world.timestep
        # MuJoCo resets the whole world when a state blows up: here the step is rolled back and
        # only the robots involved are moved (engine/recovery.py)
        self.model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_AUTORESET
        self._ball_body = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, "ball")
        ball_joint = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_JOINT, "ball")
        self._ball_qpos = int(self.model.jnt_qposadr[ball_joint])
        self._ball_dof = int(self.model.jnt_dofadr[ball_joint])
        self._ball_geom = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_GEOM, "ball")
        self._geom_foot = np.full(self.model.ngeom, -1, dtype=np.int64)
        self._foot_slot_count = 0
        slot_bodies: list[int] = []
        for robot in self._robots.values():
            robot.bind(self.model)
            robot.frp_slots = {}
            for name, (_body, geoms) in robot.frp_geoms.items():
                slot_bodies.append(int(geoms[0]) if len(geoms) else -1)
                robot.frp_slots[name] = self._foot_slot_count
                self._geom_foot[geoms] = self._foot_slot_count
                self._foot_slot_count += 1
        self._slot_geom = np.array(slot_bodies, dtype=np.intp)  # FRP frame: the foot's box (rcssserver3d)
        self._last_readings: list[tuple[tuple[float, float, float], tuple[float, float, float]] | None] = \
            [None] * len(slot_bodies)
        self._reindex()  # body ids change with the model
        # What was computed for this cycle before the rebuild (a robot joined mid-cycle) is
        # indexed by the old model: drop it.
        self._readings, self._readings_cycle = None, -1
        self._vision_cache, self._vision_cycle = {}, -1
        self._motor_dofs = np.zeros(self.model.nv, dtype=bool)  # dofs driven by a velocity motor
        self._motor_speed = np.zeros(self.model.nv)  # their commanded speed this cycle (rad/s)
        self._motor_force = np.zeros(self.model.nv)  # their force in the last step (N m)
        self._inv_h = 1.0 / self.model.opt.timestep
        # the ball bounces where the world asks it to and its contacts have a normal row
        self._bounces = self.world.ball_bounce[0] > 0 and self.model.opt.cone == mujoco.mjtCone.mjCONE_ELLIPTIC
        self._has_verbatim = bool(verbatim)
        self._sensordata = self.data.sensordata
        if old_model is not None and old_data is not None:
            self._copy_state(old_model, old_data)
        self.data.time = self.time
        self._readings = None
        self._dirty = False
        for robot in self._robot_list:
            self._apply_gains(robot)
        mujoco.mj_forward(self.model, self.data)
        if kept:
            self._sensordata = self.data.sensordata.copy()
            for robot in self._robot_list:
                rows, values = robot.sensor_rows(), kept.get(id(robot))
                if values is not None and len(values) == len(rows):
                    self._sensordata[rows] = values
        if old_feet:  # and the step's foot forces (mj_forward's contact solve differs a little)
            readings = list(self._foot_readings())
            for robot in self._robot_list:
                for name, slot in robot.frp_slots.items():
                    if (id(robot), name) in old_feet:
                        readings[slot] = old_feet[(id(robot), name)]
            self._readings = readings

    def _copy_state(self, old_model: mujoco.MjModel, old_data: mujoco.MjData) -> None:
        for j in range(self.model.njnt):
            name = mujoco.mj_id2name(self.model, mujoco.mjtObj.mjOBJ_JOINT, j)
            old = mujoco.mj_name2id(old_model, mujoco.mjtObj.mjOBJ_JOINT, name)
            if old < 0:
                continue
            nq, nv = (7, 6) if self.model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE else (1, 1)
            qa, va = self.model.jnt_qposadr[j], self.model.jnt_dofadr[j]
            oqa, ova = old_model.jnt_qposadr[old], old_model.jnt_dofadr[old]
            self.data.qpos[qa:qa + nq] = old_data.qpos[oqa:oqa + nq]
            self.data.qvel[va:va + nv] = old_data.qvel[ova:ova + nv]

    def _ensure_built(self) -> None:
        if self._dirty:
            self._build()

    # ------------------------------------------------------------------ robots
    def _add_robot(self, robot_id: str, model: str, x: float, y: float, yaw_deg: float) -> None:
        cache = self._model(model)
        name = MODEL_ALIASES.get(model, model)
        pool = self._parked.get(name)
        if pool and not self._dirty:
            self._reuse(pool.pop(), robot_id, cache, x, y, yaw_deg)
            return
        robot = MjRobot.create(robot_id, name, cache.spec, self._next_bit, cache.standing_height, (x, y, yaw_deg))
        if any(r.mj_prefix == robot_id for r in self._robots.values()):  # a reused robot's first name
            robot.mj_prefix = f"{robot_id}#{self._next_bit}"
        robot.calibration = np.zeros(3)
        self._give_vision(robot, robot.vision)
        self._next_bit += 1
        self._robots[robot_id] = robot
        self._dirty = True

    def _renamed(self, old: str, new: str) -> None:
        if not self._dirty:  # else the coming rebuild indexes it
            self._reindex()

    def _removed(self, robot: MjRobot) -> None:
        if self._dirty:  # a rebuild is due anyway: it leaves the robot out
            return
        self._park(robot)

    def _park(self, robot: MjRobot) -> None:
        """Out of the game without a rebuild: far from the field, still, unseen, untouched."""
        slot = sum(len(robots) for robots in self._parked.values())
        self._parked.setdefault(robot.model_name, []).append(robot)
        robot.label = None
        robot.v_cmd[:] = 0.0
        self._place(robot, PARKING[0] + 3.0 * slot, PARKING[1], 0.0, joints_to_zero=True)
        self._reindex()

    def _reuse(self, old: MjRobot, robot_id: str, cache: ModelEntry, x: float, y: float, yaw_deg: float) -> None:
        """A parked robot of the model becomes robot_id: fresh controller state, the file's
        gains, joints at zero, standing at (x, y), as a newly built one would."""
        robot = MjRobot.create(robot_id, old.model_name, cache.spec, old.bit_index, cache.standing_height,
                               (x, y, yaw_deg))
        robot.mj_prefix = old.mj_prefix
        robot.file_kp, robot.file_kd = old.file_kp, old.file_kd
        robot.bind(self.model)
        robot.frp_slots = old.frp_slots
        self._robots[robot_id] = robot
        self._give_vision(robot, robot.vision)
        self._apply_gains(robot)
        self._place(robot, x, y, yaw_deg, joints_to_zero=True)
        self._reindex()
        # until it is stepped its sensors read as a freshly built robot's, where it is then
        # (the parked body's are of another place)
        self._unstepped.add(id(robot))

    def _place(self, robot: MjRobot, x: float, y: float, yaw_deg: float, *, joints_to_zero: bool) -> None:
        root = robot.root_qpos
        self.data.qpos[root:root + 3] = (x, y, robot.standing_height)
        self.data.qpos[root + 3:root + 7] = yaw_quat(yaw_deg)
        self.data.qvel[robot.root_dof:robot.root_dof + 6] = 0.0
        if joints_to_zero:
            self.data.qpos[robot.qpos_adr] = 0.0
        self.data.qvel[robot.dof_adr] = 0.0
        robot.acc_prev = robot.vel_prev = None
        mujoco.mj_kinematics(self.model, self.data)

    def _reindex(self) -> None:
        """Which robot owns each geom (contacts, touches) and who is seen: playing robots only."""
        self._robots_reindexed()
        self._geom_robot = np.full(self.model.ngeom, -1, dtype=np.int64)
        self._geom_slips = np.zeros(self.model.ngeom, dtype=bool)  # the world's contact slip applies
        for i, robot in enumerate(self._robot_list):
            owned = np.isin(self.model.geom_bodyid, robot.body_ids)
            self._geom_robot[owned] = i
            self._geom_slips[owned] = not robot.verbatim
        # (parked bodies may be reused in another order under the same names: frames rebuilt)
        self._health_index = self._health_indices()

    # ------------------------------------------------------------------ effectors
    def _gains_changed(self, robot: MjRobot) -> None:
        self._apply_gains(robot)  # gains live in the model: rewritten only when they change

    def _targets_changed(self, robot: MjRobot) -> None:
        self._write_ctrl(robot)

    def _apply_gains(self, robot: MjRobot) -> None:
        if self._dirty or len(robot.act_ids) == 0:
            return
        pd = robot.mode == MODE_PD
        kp, kd = np.where(pd, robot.kp, 0.0), np.where(pd, robot.kd, 0.0)
        m = self.model
        if robot.verbatim:  # rcsssmj's gains: position actuator kp, velocity actuator kd
            m.actuator_gainprm[robot.act_pos, 0] = kp
            m.actuator_biasprm[robot.act_pos, 1] = -kp
            m.actuator_gainprm[robot.act_vel, 0] = kd
            m.actuator_biasprm[robot.act_vel, 2] = -kd
        else:
            m.actuator_biasprm[robot.act_ids, 1] = -kp
            m.actuator_biasprm[robot.act_ids, 2] = -kd
            # A velocity motor needs no armature (the constraint is implicit); an agent's stiff
            # PD law on links of a few grams does, as on the references' models.
            m.dof_armature[robot.dof_adr] = np.where(pd, np.maximum(robot.armature, PD_ARMATURE), robot.armature)
        m.dof_frictionloss[robot.dof_adr] = np.where(pd, robot.frictionloss, robot.effort)
        self._motor_dofs[robot.dof_adr] = ~pd
        self._write_ctrl(robot)

    def _write_ctrl(self, robot: MjRobot) -> None:
        if self._dirty or len(robot.act_ids) == 0:
            return
        pd = robot.mode == MODE_PD
        if robot.verbatim:
            self.data.ctrl[robot.act_ids] = np.where(pd, robot.tau, 0.0)
            self.data.ctrl[robot.act_pos] = robot.q_target
            self.data.ctrl[robot.act_vel] = robot.dq_target
        else:
            self.data.ctrl[robot.act_ids] = np.where(
                pd, robot.kp * robot.q_target + robot.kd * robot.dq_target + robot.tau, 0.0)
        if pd.all():
            return
        # Velocity motors: the speed that stops each joint exactly at its range this cycle.
        q = self.data.qpos[robot.qpos_adr]
        dt = self.cycle_dt
        v = np.minimum(np.maximum(robot.v_cmd, (robot.lower - q) / dt), (robot.upper - q) / dt)
        self._motor_speed[robot.dof_adr] = np.where(pd, 0.0, v)

    def _drive_motors(self) -> None:
        """Per cycle: velocity motors see the joint's new distance to its range."""
        for robot in self._robot_list:
            if len(robot.act_ids) and not (robot.mode == MODE_PD).all():
                self._write_ctrl(robot)

    def _roots_xy(self, robot: MjRobot | None) -> np.ndarray:
        """Where every other robot's root stands (x, y), built or waiting for the build."""
        spots = [(self.data.qpos[r.root_qpos], self.data.qpos[r.root_qpos + 1]) if len(r.body_ids)
                 else r.initial_pose[:2] for r in self._robots.values() if r is not robot]
        return np.array(spots, dtype=float).reshape(-1, 2)

    def _robot_to_move(self, robot_id: str, x: float, y: float, yaw_deg: float | None,
                       beside: bool = True) -> tuple[MjRobot | None, float, float]:
        """The robot a move applies to now (None when the move was kept for the next build),
        and where it goes: beside any robot already there (engine/recovery.py)."""
        robot = self._robot(robot_id)
        if beside:
            x, y = free_spot(x, y, self._roots_xy(robot))
        if self._dirty:
            if len(robot.body_ids) == 0:  # not in the model yet: the coming build stands it there
                robot.initial_pose = (x, y, robot.initial_pose[2] if yaw_deg is None else yaw_deg)
                return None, x, y
            # Already in the world while another robot joins: moved in the current model, whose
            # state the rebuild copies (keeping it as an initial pose lost the beam of an agent
            # sent in the cycle another agent's init arrived).
        return robot, x, y

    def _root_now(self, robot_id: str) -> tuple[np.ndarray, np.ndarray] | None:
        robot = self._robot(robot_id)
        if len(robot.body_ids) == 0:  # joined in this cycle: built at the next step
            return None
        q = self.data.qpos[robot.root_qpos:robot.root_qpos + 7]
        return q[:3].copy(), q[3:7].copy()

    def _put_root(self, robot_id: str, x: float, y: float, z: float | None, quat: np.ndarray | None, *,
                  zero_joints: bool, beside: bool, yaw_deg: float | None) -> None:
        robot, x, y = self._robot_to_move(robot_id, x, y, yaw_deg, beside)
        if robot is None:
            return
        root = robot.root_qpos
        if zero_joints:
            self.data.qpos[robot.qpos_adr] = 0.0
        self.data.qpos[root:root + 2] = (x, y)
        if z is not None:
            self.data.qpos[root + 2] = z
        if quat is not None:
            self.data.qpos[root + 3:root + 7] = quat
        self._stop(robot)

    def _stop(self, robot: MjRobot) -> None:
        self.data.qvel[robot.root_dof:robot.root_dof + 6] = 0.0
        self.data.qvel[robot.dof_adr] = 0.0
        mujoco.mj_kinematics(self.model, self.data)

    def robot_pose(self, robot_id: str) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
        self._ensure_built()
        robot = self._robot(robot_id)
        q = self.data.qpos[robot.root_qpos:robot.root_qpos + 7]
        return (float(q[0]), float(q[1]), float(q[2])), (float(q[3]), float(q[4]), float(q[5]), float(q[6]))

    def robot_velocity(self, robot_id: str) -> tuple[float, float, float]:
        self._ensure_built()
        robot = self._robot(robot_id)
        v = self.data.qvel[robot.root_dof:robot.root_dof + 3]
        return (float(v[0]), float(v[1]), float(v[2]))

    # ------------------------------------------------------------------ ball
    def ball_position(self) -> tuple[float, float, float]:
        self._ensure_built()
        p = self.data.qpos[self._ball_qpos:self._ball_qpos + 3]
        return (float(p[0]), float(p[1]), float(p[2]))

    def ball_velocity(self) -> tuple[float, float, float]:
        self._ensure_built()
        v = self.data.qvel[self._ball_dof:self._ball_dof + 3]
        return (float(v[0]), float(v[1]), float(v[2]))

    def _put_ball(self, position: tuple[float, float, float], velocity: tuple[float, float, float]) -> None:
        self._ensure_built()
        self.data.qpos[self._ball_qpos:self._ball_qpos + 3] = position
        self.data.qpos[self._ball_qpos + 3:self._ball_qpos + 7] = (1, 0, 0, 0)
        self.data.qvel[self._ball_dof:self._ball_dof + 3] = velocity
        self.data.qvel[self._ball_dof + 3:self._ball_dof + 6] = 0.0
        mujoco.mj_kinematics(self.model, self.data)

    def _frames_layout(self) -> object:
        return id(self.model)

    def _frame_links(self, robot: MjRobot) -> list[tuple[str, int]]:
        prefix = robot.mj_prefix + "/"
        out = []
        for b in robot.body_ids:
            body_name = mujoco.mj_id2name(self.model, mujoco.mjtObj.mjOBJ_BODY, int(b)) or f"body{int(b)}"
            out.append((body_name.removeprefix(prefix), int(b)))
        return out

    def _poses_of(self, indices: np.ndarray) -> np.ndarray:
        return np.hstack((self.data.xpos[indices], self.data.xquat[indices]))

    # ------------------------------------------------------------------ stepping
    def _update(self) -> tuple[str | None, list[str]]:
        self._physics_step()
        why, bad_dofs = self._health()
        if why is None:
            return None, []
        return why, [r.robot_id for r in self._robot_list
                     if np.isin(bad_dofs, np.concatenate((r.dof_adr, np.arange(r.root_dof, r.root_dof + 6)))).any()]

    def _post_update(self) -> None:
        self._sensordata = self.data.sensordata  # as mj_step left it: what rcsssmj's robots read
        self._unstepped.clear()
        if self._motor_dofs.any():  # mj_step2 leaves the body accelerations that ACC needs stale
            if self._has_verbatim:
                self._sensordata = self.data.sensordata.copy()
            mujoco.mj_rnePostConstraint(self.model, self.data)
            mujoco.mj_sensorAcc(self.model, self.data)

    def _controls_changed(self) -> None:
        for robot in self._robot_list:
            self._apply_gains(robot)

    def _health(self) -> tuple[str | None, np.ndarray]:
        """Why the state after a step cannot be played on, or None, and the dofs at fault
        (engine/recovery.py), from qpos and qvel as the step left them."""
        d = self.data
        return free_joint_health(d.qpos, d.qvel, *self._health_index)

    def _health_indices(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Where free_joint_health reads: each free joint's linear and angular dofs and its
        height in qpos, whether a robot owns it, and the robots' hinge dofs."""
        m = self.model
        free = np.flatnonzero(m.jnt_type == mujoco.mjtJoint.mjJNT_FREE)
        dof = m.jnt_dofadr[free].astype(np.intp)
        robot_bodies = np.zeros(m.nbody, dtype=bool)
        for robot in self._robots.values():
            robot_bodies[robot.body_ids] = True
        hinges = [robot.dof_adr for robot in self._robots.values() if len(robot.body_ids)]
        return (dof[:, None] + np.arange(3), dof[:, None] + np.arange(3, 6),
                m.jnt_qposadr[free].astype(np.intp) + 2, robot_bodies[m.jnt_bodyid[free]],
                np.concatenate(hinges).astype(np.intp) if hinges else np.zeros(0, dtype=np.intp))

    def _physics_step(self) -> None:
        self._forget_contacts()
        for _ in range(self.substeps):
            self._substep()
            self._record_contacts()

    def _saved_state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
        d = self.data
        return d.qpos.copy(), d.qvel.copy(), d.act.copy(), d.qacc_warmstart.copy(), d.time

    def _restore(self, state: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]) -> None:
        d = self.data
        d.qpos[:], d.qvel[:], d.act[:], d.qacc_warmstart[:], d.time = state
        mujoco.mj_forward(self.model, d)
        self._readings, self._readings_cycle = None, -1

    def _ball_drag(self, saved: MjState) -> None:  # reads the state as it is (= saved)
        """rcssserver3d's ball DragController, as it applies it: a force and a torque from
        the velocities at the start of the cycle, held through the cycle's physics."""
        d = self.data
        v = d.qvel[self._ball_dof:self._ball_dof + 3]
        w = d.xmat[self._ball_body].reshape(3, 3) @ d.qvel[self._ball_dof + 3:self._ball_dof + 6]  # world axes
        wrench = ball_drag_wrench(self.world, v, w)
        if wrench is not None:
            d.xfrc_applied[self._ball_body, :3], d.xfrc_applied[self._ball_body, 3:] = wrench

    def _lagged_accelerations(self, saved: MjState) -> None:  # reads the state as it is (= saved)
        """rcssserver3d's ACC, computed before its physics step: the torso's velocity change
        over the previous cycle, minus gravity, in torso axes (so it lags GYR by a cycle)."""
        robots = [robot for robot in self._robot_list if robot.simspark_model]
        if not robots:
            return
        d = self.data
        bodies = np.array([robot.root_body for robot in robots], dtype=np.intp)
        poses = np.hstack((d.xpos[bodies], d.xquat[bodies]))
        twists = np.zeros((len(robots), 6))
        twists[:, :3] = [d.qvel[robot.root_dof:robot.root_dof + 3] for robot in robots]
        before = np.array([np.full(3, np.nan) if robot.vel_prev is None else robot.vel_prev for robot in robots])
        acc, kept = lagged_accelerations(poses, twists, np.arange(len(robots), dtype=np.intp), before,
                                         np.asarray(self.model.opt.gravity, dtype=float), self.cycle_dt)
        for robot, a, v in zip(robots, acc, kept):
            robot.acc_prev, robot.vel_prev = a, v

    def _substep(self) -> None:
        """One physics step. Velocity motors are dof friction constraints (bounded by the
        joint's effort) whose reference acceleration is rewritten to reach the commanded
        speed in this step: the motor is solved together with contacts and limits, as ODE's.
        A world with contact slip rewrites its robots' contact friction rows likewise."""
        m, d = self.model, self.data
        slip = self.world.contact_slip > 0
        bounce = self._bounces
        clock = time.perf_counter
        started = clock()
        if not slip and not bounce and not self._motor_dofs.any():
            mujoco.mj_step(m, d)
            self.library_step_s += clock() - started
            return
        mujoco.mj_step1(m, d)
        # mj_step1 (MuJoCo 3.5) leaves flg_rnepost set with the body accelerations of before the
        # constraint forces: mj_step2's accelerometers would read them (0 for a robot at rest,
        # issue 29) where mj_step's read gravity, as rcssservermj's do
        d.flg_rnepost = 0
        self.library_step_s += clock() - started
        if slip:
            self._slip_contacts()
        if bounce:
            self._bounce_ball()
        n = d.nefc
        rows = np.flatnonzero(d.efc_type[:n] == _FRICTION_DOF)
        if len(rows):
            dofs = d.efc_id[rows]
            motor = self._motor_dofs[dofs]
            rows, dofs = rows[motor], dofs[motor]
            # The soft constraint reaches aref - R f; adding R f of the previous step makes the
            # holding motor rigid (no creep under load), as ODE's (CFM 1e-8).
            aref = ((self._motor_speed[dofs] - d.efc_vel[rows]) * self._inv_h
                    + d.efc_R[rows] * self._motor_force[dofs])
            d.efc_aref[rows] = aref
            if d.nisland > 0:  # the solver works on per-island copies made in mj_step1
                d.iefc_aref[d.map_efc2iefc[rows]] = aref
            # Start the solver where the motors are satisfied: from far outside a friction
            # row's quadratic zone MuJoCo's Newton line search stalls at the start point.
            d.qacc_warmstart[dofs] = aref
        started = clock()
        mujoco.mj_step2(m, d)
        self.library_step_s += clock() - started
        if len(rows):
            self._motor_force[dofs] = d.efc_force[rows]

    def _slip_contacts(self) -> None:
        """rcssserver3d's contact friction (ODE, mu unbounded, force-dependent slip s): the
        surfaces slide at s m/s per N of friction force. A friction row of an elliptic contact
        whose reference is zero tangential velocity and whose regularisation is R = s / h
        gives exactly that: the solver's force f = -(J v_next) / s. SimSpark robots' contacts
        only: the ball keeps its own friction, rcsssmj's robots their MJCF contacts."""
        d = self.data
        ncon = d.ncon
        if ncon == 0:
            return
        con = d.contact
        g1, g2 = con.geom1[:ncon], con.geom2[:ncon]
        robot = self._geom_slips[g1] | self._geom_slips[g2]
        chosen = robot & (g1 != self._ball_geom) & (g2 != self._ball_geom) & (con.efc_address[:ncon] >= 0)
        if not chosen.any():
            return
        first = con.efc_address[:ncon][chosen]
        dims = con.dim[:ncon][chosen]
        if dims.max() < 2:  # frictionless contacts have no friction rows
            return
        rows = np.concatenate([first[dims > k] + k for k in range(1, int(dims.max()))])  # after each normal row
        self._rewrite_rows(rows, -d.efc_vel[rows] * self._inv_h, self.world.contact_slip * self._inv_h)

    def _bounce_ball(self) -> None:
        """rcssserver3d's ball bounce (ODE's contact bounce): a ball contact whose bodies
        approach faster than the threshold leaves the step separating at restitution times
        that speed. The contact's normal row (the first of an elliptic contact) gets that
        velocity as its reference and a hard regularisation; slower contacts keep the ball's
        damped contact, so a ball at rest does not jitter."""
        d = self.data
        ncon = d.ncon
        if ncon == 0:
            return
        con = d.contact
        ball = self._ball_geom
        rows = con.efc_address[:ncon][((con.geom1[:ncon] == ball) | (con.geom2[:ncon] == ball))
                                      & (con.efc_address[:ncon] >= 0)]
        if len(rows) == 0:
            return
        restitution, threshold = self.world.ball_bounce
        v = d.efc_vel[rows]  # along the normal, > 0 separating
        rows, v = rows[v < -threshold], v[v < -threshold]
        if len(rows) == 0:
            return
        # a hard row: the solver reaches the reference velocity
        self._rewrite_rows(rows, -(1.0 + restitution) * v * self._inv_h, 1e-6 * d.efc_R[rows])

    def _rewrite_rows(self, rows: np.ndarray, aref: np.ndarray | float, r: np.ndarray | float) -> None:
        """Constraint rows after mj_step1 with our reference acceleration and regularisation,
        in the solver's per-island copies too."""
        d = self.data
        d.efc_aref[rows] = aref
        d.efc_R[rows] = r
        d.efc_D[rows] = 1.0 / r
        if d.nisland > 0:
            irows = d.map_efc2iefc[rows]
            d.iefc_aref[irows] = aref
            d.iefc_R[irows] = r
            d.iefc_D[irows] = 1.0 / r

    def _record_contacts(self) -> None:
        n = self.data.ncon
        if n:
            contact = self.data.contact
            pairs = np.stack((contact.geom1[:n], contact.geom2[:n]), axis=1).astype(np.int64)
            self._note_contacts(pairs, self._geom_robot, self._ball_geom)

    # ------------------------------------------------------------------ sensors
    def _sensor_readings(self, robot: MjRobot) -> Readings:
        if self._unstepped:
            self._read_unstepped_sensors()
        d = self.data
        gyro = acc = (0.0, 0.0, 0.0)
        lagged = None
        if robot.verbatim:  # rcsssmj reads its sensors, computed before the cycle's last substep
            sd = self._sensordata
            if robot.gyro_adr >= 0:
                gyro = to_sim(np.degrees(sd[robot.gyro_adr:robot.gyro_adr + 3]))
            if robot.acc_adr >= 0:
                acc = to_sim(sd[robot.acc_adr:robot.acc_adr + 3])
        elif robot.gyro_adr >= 0:
            if robot.imu_on_root:  # the torso's angular velocity after the step (sensordata is a substep old)
                gyro = to_sim(np.degrees(d.qvel[robot.root_dof + 3:robot.root_dof + 6]))
            else:
                gyro = to_sim(np.degrees(d.sensordata[robot.gyro_adr:robot.gyro_adr + 3]))
            acc = to_sim(d.sensordata[robot.acc_adr:robot.acc_adr + 3])
            lagged = None if robot.acc_prev is None else to_sim(robot.acc_prev)
        if robot.verbatim:
            q = self._sensordata[robot.q_sensor_adr]
            v = self._sensordata[robot.dq_sensor_adr]
        else:
            q = d.qpos[robot.qpos_adr]
            v = d.qvel[robot.dof_adr]
        root = d.qpos[robot.root_qpos:robot.root_qpos + 7]
        if robot.verbatim and robot.pos_adr >= 0 and robot.quat_adr >= 0:
            sd = self._sensordata
            root = np.concatenate((sd[robot.pos_adr:robot.pos_adr + 3], sd[robot.quat_adr:robot.quat_adr + 4]))
        return Readings(gyro, acc, lagged, np.degrees(q).tolist(), np.degrees(v).tolist(), self._frp(robot),
                        tuple(map(float, root)))

    def _read_unstepped_sensors(self) -> None:
        """Reused bodies not stepped since: their sensor rows from a forward pass of the current
        state, the others' left as the step read them."""
        scratch = copy.copy(self.data)
        mujoco.mj_forward(self.model, scratch)
        for robot in self._robot_list:
            if id(robot) in self._unstepped:
                rows = robot.sensor_rows()
                self._sensordata[rows] = scratch.sensordata[rows]
        self._unstepped.clear()

    def _frp(self, robot: MjRobot) -> list[ForceResistance]:
        """Contact force and centre of pressure of each sensing foot, in the foot frame."""
        return self._foot_pressures(robot.frp_slots)

    def _foot_readings(self) -> list[tuple[tuple[float, float, float], tuple[float, float, float]] | None]:
        """Every foot's (centre of pressure, force) in its box's frame and SimSpark axes, None
        when it does not touch: rcssserver3d's FRP, the compiled rule the articulated engine
        reads too (sim_hotpath.foot_readings), here over the feet's geoms, once per cycle."""
        if self._readings_cycle == self.cycle and self._readings is not None \
                and len(self._readings) == len(self._slot_geom):
            return self._readings
        d = self.data
        geoms = self._slot_geom
        slots = len(geoms)
        pairs, points, forces = np.zeros((0, 2), dtype=np.int64), np.zeros((0, 3)), np.zeros((0, 3))
        n = d.ncon
        if n and slots:
            contact = d.contact
            s1, s2 = self._geom_foot[contact.geom1[:n]], self._geom_foot[contact.geom2[:n]]
            rows = np.flatnonzero((s1 >= 0) | (s2 >= 0))
            local = np.empty((len(rows), 3))
            wrench = np.zeros(6)
            for j, i in enumerate(rows):
                mujoco.mj_contactForce(self.model, d, int(i), wrench)
                local[j] = wrench[:3]
            # the force on geom2 (the contact normal points from geom1 to geom2): geom2's slot first
            forces = np.einsum("nji,nj->ni", contact.frame[rows].reshape(-1, 3, 3), local)
            points = contact.pos[rows]
            pairs = np.stack((s2[rows], s1[rows]), axis=1).astype(np.int64)
        # indices are foot slots; each slot's frame is its box geom's (position, rotation)
        index = np.arange(slots, dtype=np.int64)
        at_origin = np.zeros((slots, 7))
        at_origin[:, 3] = 1.0
        self._readings = foot_readings(pairs, points, forces, index, at_origin, index, d.geom_xpos[geoms],
                                       d.geom_xmat[geoms].reshape(-1, 3, 3), self._last_readings)
        self._last_readings = list(self._readings)
        self._readings_cycle = self.cycle
        return self._readings

    def _camera(self, robot: MjRobot) -> tuple[np.ndarray, np.ndarray]:
        if robot.camera_site >= 0:  # rcsssmj: the model's camera site
            return self.data.site_xpos[robot.camera_site], self.data.site_xmat[robot.camera_site].reshape(3, 3)
        body = robot.head_body if robot.head_body >= 0 else robot.root_body
        return self.data.xpos[body], self.data.xmat[body].reshape(3, 3)

    def _ball_index(self) -> int:
        return self._ball_body

    def _seen_parts(self, robot: MjRobot) -> list[tuple[str, int, np.ndarray]]:
        ipos = self.model.body_ipos
        return [(part, body, seen_centre(robot, ipos[body])) for part, body in robot.part_bodies.items()]

    def _vision_batch(self, robots: list[tuple[MjRobot, bool]]) -> list[Vision]:
        cams = [self._camera(rb) for rb, _ in robots]
        owners, bodies, centres, rows = self._seen_things()
        d = self.data
        points = seen_points(d.xpos[bodies], centres, rows, d.xmat[bodies[rows]].reshape(-1, 3, 3))
        return self._see(robots, np.array([c for c, _ in cams]), np.array([r for _, r in cams]), owners, points)

    # ------------------------------------------------------------------ snapshots
    def _entity(self, name: str) -> EntitySnapshot:
        d = self.data
        if name == "ball":
            q, v = d.qpos[self._ball_qpos:self._ball_qpos + 7], d.qvel[self._ball_dof:self._ball_dof + 6]
            return EntitySnapshot("ball", vec3(q[:3]), quat(q[3:7]), vec3(v[:3]), vec3(v[3:6]), model="ball")
        robot = self._robots[name]
        q = d.qpos[robot.root_qpos:robot.root_qpos + 7]
        v = d.qvel[robot.root_dof:robot.root_dof + 6]
        return EntitySnapshot(name, vec3(q[:3]), quat(q[3:7]), vec3(v[:3]), vec3(v[3:6]),
                              tuple(robot.joint_names), tuple(map(float, d.qpos[robot.qpos_adr])),
                              tuple(map(float, d.qvel[robot.dof_adr])), model=robot.model_name)

    def _state_vector(self, name: str) -> np.ndarray:
        """The numbers of _entity(name) in the same order, without building it."""
        d = self.data
        if name == "ball":
            return np.concatenate(
                (d.qpos[self._ball_qpos : self._ball_qpos + 7], d.qvel[self._ball_dof : self._ball_dof + 6])
            )
        r = self._robots[name]
        return np.concatenate((d.qpos[r.root_qpos:r.root_qpos + 7], d.qvel[r.root_dof:r.root_dof + 6],
                               d.qpos[r.qpos_adr], d.qvel[r.dof_adr]))

    def _set_ball_state(self, e: EntitySnapshot) -> None:
        d = self.data
        d.qpos[self._ball_qpos:self._ball_qpos + 7] = (*e.position, *e.orientation)
        d.qvel[self._ball_dof:self._ball_dof + 6] = (*e.linear_velocity, *e.angular_velocity)

    def _set_robot_state(self, robot: MjRobot, e: EntitySnapshot, joints: list[tuple[int, float, float]]) -> None:
        d = self.data
        d.qpos[robot.root_qpos:robot.root_qpos + 7] = (*e.position, *e.orientation)
        d.qvel[robot.root_dof:robot.root_dof + 6] = (*e.linear_velocity, *e.angular_velocity)
        for i, q, v in joints:
            d.qpos[robot.qpos_adr[i]] = q
            d.qvel[robot.dof_adr[i]] = v
        self._write_ctrl(robot)

    def _states_set(self, forward: bool) -> None:
        if forward:
            mujoco.mj_forward(self.model, self.data)
