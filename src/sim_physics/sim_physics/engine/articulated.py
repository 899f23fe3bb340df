"""The articulated-body engine node: worlds of SDF robots built and stepped by a physics
library with one array interface (`PhysicsWorld` below): gz-physics 5 with DART
(`sim_gazebo`, gazebo/engine.py) or ODE as rcssserver3d drives it (`sim_ode`, ode/engine.py).

Why one base: both libraries take a model and give every link's pose and twist and every
hinge's state as arrays; everything else (robots joining and leaving without a rebuild,
effectors, sensors, vision, snapshots, the recovery from faults) is the same code over those
arrays. A backend opens its world (`_open_world`), dresses a robot just built (`_dress`) and
declares what it offers (`features`)."""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol, cast

import numpy as np

from sim_contracts.percept import Vision
from sim_hotpath import foot_readings, imu_readings
from sim_physics.engine.common import (
    MODEL_ALIASES,
    ball_drag_wrench,
    quat,
    vec3,
    yaw_quat,
)
from sim_physics.engine.core import (
    EngineCore,
    ModelEntry,
    Readings,
    SeenThings,
    lagged_accelerations,
    seen_centre,
    seen_points,
)
from sim_physics.engine.node import Feature
from sim_physics.engine.recovery import (
    SLOW_STEP,
    SLOW_STEPS,
    crowds,
    free_spot,
    health,
    health_limits,
    separate,
    unhealthy_links,
)
from sim_physics.engine.robot import MODE_PD, Robot
from sim_physics.snapshot import EntitySnapshot, StateCapture
from sim_physics.world.sdf_loader import load_world, resolve_model, resolve_world
from sim_physics.world.sdf_writer import model_sdf
from sim_physics.world.spec import ModelSpec, WorldSpec
from sim_physics.world.transforms import Transform

_MOTORS = ("velocity", "servo")


class ModelLayout(Protocol):
    """Where one model's links and hinges are in the library's arrays."""

    name: str
    first_link: int
    first_hinge: int
    links: list[str]
    hinges: list[str]


class PhysicsWorld(Protocol):
    """The array interface both libraries' modules offer (sim_gazebo.GzWorld, sim_ode.OdeWorld):
    what the engine requires of a backend. Poses are x y z w x y z; states per hinge q, dq."""

    @property
    def link_count(self) -> int: ...
    @property
    def hinge_count(self) -> int: ...

    def layout(self) -> Sequence[ModelLayout]: ...
    def add_model(self, sdf: str, is_text: bool, name: str, pose: np.ndarray) -> None: ...
    def remove_model(self, name: str) -> None: ...
    def step(self, substeps: int) -> None: ...
    def link_poses(self) -> np.ndarray: ...
    def link_velocities(self) -> np.ndarray: ...
    def hinge_states(self) -> np.ndarray: ...
    def contacts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
    def positions(self, name: str) -> np.ndarray: ...
    def velocities(self, name: str) -> np.ndarray: ...
    def set_positions(self, name: str, q: np.ndarray) -> None: ...
    def set_velocities(self, name: str, dq: np.ndarray) -> None: ...
    def set_root_pose(self, name: str, pose: np.ndarray) -> None: ...
    def set_root_velocity(self, name: str, linear: np.ndarray, angular: np.ndarray) -> None: ...
    def set_hinge_modes(self, modes: np.ndarray) -> None: ...
    def set_hinge_velocities(self, speeds: np.ndarray) -> None: ...
    def set_hinge_pd(self, q: np.ndarray, dq: np.ndarray, kp: np.ndarray, kd: np.ndarray, tau: np.ndarray) -> None: ...
    def set_link_wrench(self, link: int, force: np.ndarray, torque: np.ndarray) -> None: ...


class OverlappingWorld(PhysicsWorld, Protocol):
    """A backend world whose step runs on a thread of its own (Feature.OVERLAPPED_STEP: the
    ODE module): step_start returns at once, step_finish waits and raises what step would;
    any other call in between waits for the step."""

    @property
    def last_step_seconds(self) -> float: ...
    def step_start(self, substeps: int) -> None: ...
    def step_finish(self) -> None: ...


class TemplateReader(Protocol):
    """A library that parses a model file ahead of its first robot (a backend declaring
    Feature.MODELS_READ_AHEAD offers it: the ODE module)."""

    def load_template(self, path: str) -> None: ...


def _quat_matrix(q: np.ndarray) -> np.ndarray:
    """(..., 4) w x y z -> (..., 3, 3) rotation matrices (filled in place: a few array
    operations whatever the count, as this runs several times per cycle)."""
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    out = np.empty(q.shape[:-1] + (3, 3))
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz, wx, wy, wz = x * y, x * z, y * z, w * x, w * y, w * z
    out[..., 0, 0] = 1 - 2 * (yy + zz)
    out[..., 0, 1] = 2 * (xy - wz)
    out[..., 0, 2] = 2 * (xz + wy)
    out[..., 1, 0] = 2 * (xy + wz)
    out[..., 1, 1] = 1 - 2 * (xx + zz)
    out[..., 1, 2] = 2 * (yz - wx)
    out[..., 2, 0] = 2 * (xz - wy)
    out[..., 2, 1] = 2 * (yz + wx)
    out[..., 2, 2] = 1 - 2 * (xx + yy)
    return out


@dataclass(slots=True)
class _Body:
    """Where a robot's links and hinges are in the module's arrays (refreshed on reindex)."""

    instance: str
    hinges: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))  # perception order
    dofs: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))  # in the skeleton's positions
    links: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    link_names: list[str] = field(default_factory=list)
    root: int = 0
    head: int = -1
    imu: int = -1
    parts: dict[str, int] = field(default_factory=dict)  # vision part -> link
    # vision part -> where others see it in its link's frame (core.seen_centre)
    part_centres: dict[str, np.ndarray] = field(default_factory=dict)
    feet: dict[str, tuple[int, Transform]] = field(default_factory=dict)  # FRP name -> link, box in link
    foot_slots: dict[str, int] = field(default_factory=dict)  # FRP name -> row of the engine's foot readings


@dataclass(slots=True)
class _SensorTable:
    """One state's sensor values of every robot (rows as ArticulatedEngine._robot_list)."""

    spans: list[tuple[int, int]]  # each robot's joints in angles / speeds
    angles: list[float]  # deg
    speeds: list[float]  # deg/s
    gyro: list[tuple[float, float, float]]  # deg/s, SimSpark body axes
    acc_lagged: list[tuple[float, float, float]]  # m/s^2: rcssserver3d's (before the step)
    acc_now: list[tuple[float, float, float]]  # m/s^2: rcsssmj's (over the last step)
    roots: list[list[float]]  # x y z qw qx qy qz


def _sim_axes(v: np.ndarray) -> list[tuple[float, float, float]]:
    """(R, 3) model axes -> SimSpark body axes (x right, y forward, z up), as to_sim does."""
    return [(-y, x, z) for x, y, z in v.tolist()]


ArticulatedState = tuple[np.ndarray, np.ndarray, np.ndarray]  # link poses, link twists, hinge states


def _entity_vector(poses: np.ndarray, twists: np.ndarray, hinges: np.ndarray, root: int,
                   rows: np.ndarray | None) -> np.ndarray:
    """An entity's state vector (snapshot.py's order: root pose, root twist, joint positions,
    joint velocities) from one state's arrays; `rows`: its hinges (None: no joints)."""
    if rows is None:
        return np.concatenate((poses[root], twists[root]))
    return np.concatenate((poses[root], twists[root], hinges[rows].T.reshape(-1)))


class ArticulatedEngine(EngineCore[Robot, ArticulatedState]):
    """Implements SimulationNode over a `PhysicsWorld` (see sim_physics.engine.node)."""

    FEATURES: ClassVar[frozenset[Feature]] = frozenset({Feature.LIBRARY_STEP_TIME})  # the backend's
    # Whether robots written to SDF carry their joints' armature in their links' inertia
    # (sdf_writer.model_sdf): for a backend that has no joint armature of its own.
    ARMATURE_AS_INERTIA: ClassVar[bool] = False

    def __init__(self, world: str = "simspark_field", *, substeps: int | None = None, timestep: float | None = None,
                 vision_noise: bool = True, seed: int | None = None, hinge_motor: str = "velocity") -> None:
        """substeps, timestep: the backend's for this world by default (`_default_step`)."""
        if hinge_motor not in _MOTORS:
            raise ValueError(f"hinge_motor is one of {', '.join(_MOTORS)}, not {hinge_motor!r}")
        spec = load_world(world)
        default_substeps, default_timestep = self._default_step(spec)
        substeps = default_substeps if substeps is None else substeps
        timestep = default_timestep if timestep is None else timestep
        if not (1 <= substeps <= 100 and 0 < timestep <= 0.05):
            raise ValueError("substeps 1..100 and timestep (0, 0.05] s")
        # builds stays 0: robots are added to and removed from the running world
        self._init_core(spec, substeps=substeps, timestep=timestep, vision_noise=vision_noise, seed=seed,
                        fault_name=type(self).__name__.removesuffix("Engine"))
        self.hinge_motor = hinge_motor
        self._physics: PhysicsWorld = self._open_world(str(resolve_world(world)), timestep)
        self._gravity = np.asarray(self.world.gravity, dtype=float)
        self._models: dict[str, ModelEntry] = {}
        self._bodies: dict[str, _Body] = {}
        self._next = 0
        self._layout_version = 0
        self._had_pd = False
        self._slow_steps = 0  # steps in a row over SLOW_STEP
        self._physics_started = False  # the library's step runs on its thread (_start_update)
        self._reindex()

    def _default_step(self, world: WorldSpec) -> tuple[int, float]:
        """Substeps per cycle and seconds per substep when none are given: one 0.02 s step, as
        rcssserver3d takes one 0.02 s ODE step."""
        return 1, 0.02

    def _open_world(self, path: str, timestep: float) -> PhysicsWorld:
        """The backend library's world of this SDF file."""
        raise NotImplementedError(f"{type(self).__name__} names no physics library")

    def _dress(self, name: str, robot: Robot) -> None:
        """Contact settings of a robot just built (name: its model in the library): the
        backend's, none by default."""

    # ------------------------------------------------------------------ models
    def _model_file(self, name: str, spec: ModelSpec) -> str | None:
        return None if spec.mjcf is not None else str(resolve_model(name))

    def prepare_models(self, models: list[str]) -> None:
        """Read these robot models ahead of their first robot, so that agents join without
        waiting for it; the library parses a model file ahead only where its backend declares
        Feature.MODELS_READ_AHEAD (the ODE module: a Nao takes about 0.1 s)."""
        for name in models:
            _, _, path = self._model(name)
            reader = self._template_reader()
            if path is not None and reader is not None and Feature.MODELS_READ_AHEAD in self.FEATURES:
                reader.load_template(path)

    def _template_reader(self) -> TemplateReader | None:
        """The library's model-file reader where the backend has one (Feature.MODELS_READ_AHEAD)."""
        return None

    # ------------------------------------------------------------------ indices
    def _reindex(self) -> None:
        """Array positions of the ball and of every robot's links and hinges; who owns each link."""
        self._layout_version = getattr(self, "_layout_version", 0) + 1
        self._arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._readings: list[tuple[tuple[float, float, float], tuple[float, float, float]] | None] | None = None
        models = self._physics.layout()
        layout = {m.name: m for m in models}
        # The step's contacts stay when every link keeps its index (a robot joining after the
        # step, as rcsssmj's do, is appended): the others' foot forces in this cycle's percepts
        # are the step's. Otherwise they are read again (none until the next step).
        link_keys = [(m.name, name) for m in sorted(models, key=lambda m: m.first_link) for name in m.links]
        previous = getattr(self, "_link_keys", [])
        cache = getattr(self, "_contact_cache", None)
        if cache is not None and previous[:len(link_keys)] == link_keys and len(link_keys) < len(previous):
            # the last models left (a robot refused as it joined): the others' contacts stay
            links, points, forces = cache
            kept = np.all(links < len(link_keys), axis=1)
            cache = (links[kept], points[kept], forces[kept])
        elif link_keys[:len(previous)] != previous:
            cache = None
        self._contact_cache: tuple[np.ndarray, np.ndarray, np.ndarray] | None = cache
        self._link_keys = link_keys
        ball = layout["ball"]
        self._ball_link = ball.first_link
        self._link_robot = np.full(self._physics.link_count, -1, dtype=np.int64)
        self._robots_reindexed()
        for i, robot in enumerate(self._robot_list):
            body = self._bodies[robot.robot_id]
            m = layout[body.instance]
            hinge_of = {name: m.first_hinge + k for k, name in enumerate(m.hinges)}
            # SDF files and specs written back to SDF name joints as the robot does; an MJCF's own
            # joint names are only known through mjcf_joints
            names = [n if n in hinge_of else robot.spec.mjcf_joints.get(n, n) for n in robot.joint_names]
            missing = [n for n in names if n not in hinge_of]
            if missing:
                raise ValueError(f"model {robot.model_name!r}: gz-physics built no hinge {missing[0]!r}")
            body.hinges = np.array([hinge_of[n] for n in names], dtype=np.intp)
            body.dofs = body.hinges - m.first_hinge + 6  # after the free root's 6 coordinates
            body.links = np.arange(m.first_link, m.first_link + len(m.links), dtype=np.intp)
            body.link_names = list(m.links)
            link_of = {name: m.first_link + k for k, name in enumerate(m.links)}
            body.root = link_of[robot.spec.root_link().name]
            body.parts, body.part_centres, body.feet, body.foot_slots = {}, {}, {}, {}
            body.head, body.imu = -1, body.root
            for link in robot.spec.links:
                index = link_of.get(link.name, -1)
                if link.vision_part:
                    body.parts[link.vision_part] = index
                    body.part_centres[link.vision_part] = seen_centre(robot, link.inertial_pose.pos)
                if link.camera_fov:
                    body.head = index
                if link.imu:
                    body.imu = index
                if link.frp:
                    box = link.collisions[0].pose if link.collisions else Transform.identity()
                    body.feet[link.frp] = (index, box)
            self._link_robot[body.links] = i
        self._robot_links = self._link_robot >= 0  # health limits per link (engine/recovery.py)
        self._health_limits = health_limits(self._robot_links)
        feet = [(body, name, foot, box) for body in (self._bodies[r.robot_id] for r in self._robot_list)
                for name, (foot, box) in body.feet.items()]
        self._foot_links = np.array([foot for _, _, foot, _ in feet], dtype=np.intp)
        self._foot_box_pos = np.array([box.pos for *_, box in feet], dtype=float).reshape(-1, 3)
        self._foot_box_rot = np.array([box.rot for *_, box in feet], dtype=float).reshape(-1, 3, 3)
        self._slot_of_link = np.full(self._physics.link_count, -1, dtype=np.intp)
        # the last reading of every sensing foot, kept for robots that stay
        keys = [(id(owner), name) for owner, name, _, _ in feet]
        kept = dict(zip(getattr(self, "_foot_keys", []), getattr(self, "_last_readings", [])))
        self._foot_keys = keys
        self._last_readings: list[tuple[tuple[float, float, float], tuple[float, float, float]] | None] = \
            [kept.get(key) for key in keys]
        for slot, (owner, name, foot, _) in enumerate(feet):
            owner.foot_slots[name] = slot
            self._slot_of_link[foot] = slot
        previous = zip(getattr(self, "_vel_prev", []), getattr(self, "_acc_lagged", []))
        old = dict(zip(getattr(self, "_acc_ids", []), previous))  # rows of robots that stay
        self._acc_ids = [id(robot) for robot in self._robot_list]
        self._row = {robot.robot_id: i for i, robot in enumerate(self._robot_list)}
        self._imu_links = np.array([self._bodies[r.robot_id].imu for r in self._robot_list], dtype=np.intp)
        self._root_links = np.array([self._bodies[r.robot_id].root for r in self._robot_list], dtype=np.intp)
        hinge_lists = [self._bodies[r.robot_id].hinges for r in self._robot_list]
        self._hinge_rows = np.concatenate(hinge_lists) if hinge_lists else np.zeros(0, dtype=np.intp)
        ends = np.cumsum([len(h) for h in hinge_lists]).tolist()
        self._hinge_spans = list(zip([0, *ends[:-1]], ends))
        self._sensors: _SensorTable | None = None
        self._sensors_of: object = None
        self._modes_set: np.ndarray | None = None  # the hinge modes last given to the module
        self._vel_prev = np.full((len(self._robot_list), 3), np.nan)
        self._acc_lagged = np.tile(-self._gravity, (len(self._robot_list), 1))
        for i, key in enumerate(self._acc_ids):
            if key in old:
                self._vel_prev[i], self._acc_lagged[i] = old[key]
        self._vision_cycle = -1

    # ------------------------------------------------------------------ robots
    def _roots_xy(self, robot: Robot | None) -> np.ndarray:
        rows = [i for i, other in enumerate(self._robot_list) if other is not robot]
        return self._state_arrays()[0][self._root_links[rows], :2]

    def _add_robot(self, robot_id: str, model: str, x: float, y: float, yaw_deg: float) -> None:
        spec, height, path = self._model(model)
        name = MODEL_ALIASES.get(model, model)
        robot = Robot.create(robot_id, name, spec, self._next, height, (x, y, yaw_deg))
        instance = f"robot_{self._next}"
        self._next += 1
        pose = np.array([x, y, height, *yaw_quat(yaw_deg)])
        if path is not None:
            self._physics.add_model(path, False, instance, pose)
        else:
            self._physics.add_model(model_sdf(spec, armature_as_inertia=self.ARMATURE_AS_INERTIA), True, instance, pose)
        robot.calibration = self._eyes.calibration(robot.vision)
        self._robots[robot_id] = robot
        self._bodies[robot_id] = _Body(instance)
        try:
            self._dress(instance, robot)
            self._reindex()
        except Exception:  # nothing of a robot that cannot be driven stays in the world
            del self._robots[robot_id], self._bodies[robot_id]
            self._physics.remove_model(instance)
            self._reindex()
            raise

    def _removed(self, robot: Robot) -> None:
        body = self._bodies.pop(robot.robot_id)
        self._physics.remove_model(body.instance)
        self._reindex()

    def _renamed(self, old: str, new: str) -> None:
        self._bodies = {(new if k == old else k): b for k, b in self._bodies.items()}
        self._reindex()

    # ------------------------------------------------------------------ effectors
    def _drive_motors(self) -> None:
        """Every robot's controller state into the module's hinge arrays (whole arrays per cycle)."""
        n = self._physics.hinge_count
        robots = self._robot_list
        speed = np.zeros(n)
        any_pd = False
        if robots:
            speed[self._hinge_rows] = np.concatenate([robot.v_cmd for robot in robots])
            any_pd = bool((np.concatenate([robot.mode for robot in robots]) == MODE_PD).any())
        motor = 1 if self.hinge_motor == "servo" else 0
        modes = np.full(n, motor, dtype=np.int32)
        # SimSpark robots: none under PD
        pd_robots = [robot for robot in robots if (robot.mode == MODE_PD).any()] if any_pd else []
        if pd_robots:
            q, dq, kp, kd, tau = (np.zeros(n) for _ in range(5))
            for robot in pd_robots:
                h = self._bodies[robot.robot_id].hinges
                modes[h] = np.where(robot.mode == MODE_PD, 2, motor)
                q[h], dq[h], kp[h], kd[h], tau[h] = robot.q_target, robot.dq_target, robot.kp, robot.kd, robot.tau
        if self._modes_set is None or not np.array_equal(modes, self._modes_set):  # they rarely change
            self._physics.set_hinge_modes(modes)
            self._modes_set = modes
        self._physics.set_hinge_velocities(speed)
        if pd_robots or self._had_pd:
            if not pd_robots:
                q, dq, kp, kd, tau = (np.zeros(n) for _ in range(5))
            self._physics.set_hinge_pd(q, dq, kp, kd, tau)
        self._had_pd = bool(pd_robots)

    # ------------------------------------------------------------------ moving things
    def _root_state(self, robot_id: str) -> tuple[np.ndarray, np.ndarray]:
        """The root link's pose (x y z w x y z) and twist (linear, angular; world)."""
        root = self._bodies[robot_id].root
        poses, twists, _ = self._state_arrays()
        return poses[root], twists[root]

    def _set_root(self, robot_id: str, position: np.ndarray, quat: np.ndarray, *, zero_joints: bool,
                  beside: bool = True) -> None:
        robot, body = self._robot(robot_id), self._bodies[robot_id]
        if beside:  # not into another robot (engine/recovery.py)
            roots = self._state_arrays()[0][self._root_links, :2]
            others = np.delete(roots, self._row[robot_id], axis=0)
            position = np.array([*free_spot(float(position[0]), float(position[1]), others), position[2]])
        if zero_joints:
            q = self._physics.positions(body.instance)
            q[body.dofs] = 0.0
            self._physics.set_positions(body.instance, q)
        self._physics.set_velocities(body.instance, np.zeros_like(self._physics.velocities(body.instance)))
        self._physics.set_root_pose(body.instance, np.array([*position, *(quat / np.linalg.norm(quat))]))
        self._state_changed()
        index = self._row[robot.robot_id]
        self._vel_prev[index] = np.nan
        self._acc_lagged[index] = _quat_matrix(quat / np.linalg.norm(quat)).T @ -self._gravity

    def _root_now(self, robot_id: str) -> tuple[np.ndarray, np.ndarray]:
        pose, _ = self._root_state(robot_id)
        return pose[:3], pose[3:7]

    def _put_root(self, robot_id: str, x: float, y: float, z: float | None, quat: np.ndarray | None, *,
                  zero_joints: bool, beside: bool, yaw_deg: float | None) -> None:
        assert z is not None and quat is not None  # every robot is in the library's world (_root_now)
        self._set_root(robot_id, np.array([x, y, z]), quat, zero_joints=zero_joints, beside=beside)

    def robot_pose(self, robot_id: str) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
        p, _ = self._root_state(robot_id)
        return (float(p[0]), float(p[1]), float(p[2])), (float(p[3]), float(p[4]), float(p[5]), float(p[6]))

    def robot_velocity(self, robot_id: str) -> tuple[float, float, float]:
        _, v = self._root_state(robot_id)
        return (float(v[0]), float(v[1]), float(v[2]))

    def ball_position(self) -> tuple[float, float, float]:
        p = self._state_arrays()[0][self._ball_link]
        return (float(p[0]), float(p[1]), float(p[2]))

    def ball_velocity(self) -> tuple[float, float, float]:
        v = self._state_arrays()[1][self._ball_link]
        return (float(v[0]), float(v[1]), float(v[2]))

    def _put_ball(self, position: tuple[float, float, float], velocity: tuple[float, float, float]) -> None:
        self._physics.set_root_pose("ball", np.array([*position, 1.0, 0.0, 0.0, 0.0]))
        self._physics.set_root_velocity("ball", np.asarray(velocity, dtype=float), np.zeros(3))
        self._state_changed()

    # ------------------------------------------------------------------ stepping
    def _update(self) -> tuple[str | None, list[str]]:
        self._start_update()
        return self._end_update()

    def _start_update(self) -> None:
        if self._overlapping and Feature.OVERLAPPED_STEP in self.features:
            self._overlapping_world().step_start(self.substeps)
            self._physics_started = True

    def _end_update(self) -> tuple[str | None, list[str]]:
        return self._physics_step()

    def _overlapping_world(self) -> OverlappingWorld:
        """The backend's world as one that steps on its own thread (Feature.OVERLAPPED_STEP)."""
        return cast(OverlappingWorld, self._physics)

    def _hold_readings(self) -> None:
        """The sensor table and the feet's readings (a robot that left since the last step
        dropped them) of this state, before the library's thread changes what they read."""
        if self._robot_list:
            self._sensor_table()
            if self._foot_keys:
                self._foot_readings()

    def _saved_state(self) -> ArticulatedState:
        return self._state_arrays()

    def _restore(self, saved: ArticulatedState) -> None:
        self._roll_back(saved)
        self._contact_cache = None
        self._state_changed()

    def _refuse_step(self) -> None:
        super()._refuse_step()
        self._contact_cache = (np.zeros((0, 2), dtype=np.int64), np.zeros((0, 3)), np.zeros((0, 3)))

    def _post_update(self) -> None:
        self._record_contacts()
        if self._foot_keys:
            self._foot_readings()  # every step: a foot that falls asleep repeats this reading

    def _controls_changed(self) -> None:
        self._drive_motors()

    def _physics_step(self) -> tuple[str | None, list[str]]:
        """One cycle of the physics library; (why it cannot be played on, the robots whose
        links exploded) or (None, []) (engine/recovery.py)."""
        started = time.perf_counter()
        fault: str | None = None
        overlapped, self._physics_started = self._physics_started, False
        try:
            if overlapped:  # begun on the library's thread (_start_update)
                self._overlapping_world().step_finish()
            else:
                self._physics.step(self.substeps)
        except RuntimeError as exc:  # the library gave up on the step (and ODE rolled back)
            fault = str(exc) or type(exc).__name__
        took = self._overlapping_world().last_step_seconds if overlapped else time.perf_counter() - started
        self.library_step_s += took
        self._contact_cache = None
        self._state_changed()
        if fault is not None:
            return fault, []
        after = self._state_arrays()
        fault = health(after[0], after[1], self._robot_links, self._health_limits)
        if fault is None:
            self._slow_steps = self._slow_steps + 1 if took > SLOW_STEP else 0
            if self._slow_steps >= SLOW_STEPS:  # a valid state, but a pile the solver grinds on
                self._slow_steps = 0
                self._record_contacts()
                moved = separate(self, crowds(self))
                self.faults.fault(self.cycle, f"{SLOW_STEPS} steps of over {SLOW_STEP:g} s (a pile)", moved)
            return None, []
        owners = self._link_robot[unhealthy_links(after[0], after[1], self._robot_links)]
        return fault, [self._robot_list[i].robot_id for i in sorted(set(owners.tolist())) if i >= 0]

    def _roll_back(self, before: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        """Every entity as in `before` (the state arrays the step began from)."""
        self._arrays = before
        snapshot = self.snapshot()
        self._state_changed()
        self.apply_snapshot(snapshot)

    def _lagged_accelerations(self, saved: ArticulatedState) -> None:
        """ACC of every robot at once. rcssserver3d's (SimSpark models) is the torso's velocity
        change over the previous cycle, computed before the step, in torso axes; rcsssmj's is
        the change over the last cycle, read after it (percept). A robot just placed has no
        previous velocity (NaN): it reads gravity alone."""
        imu = self._imu_links
        if len(imu) == 0:
            return
        poses, twists, _ = saved
        self._acc_lagged, self._vel_prev = lagged_accelerations(poses, twists, imu, self._vel_prev, self._gravity,
                                                                self.cycle_dt)

    def _ball_drag(self, saved: ArticulatedState) -> None:
        """rcssserver3d's ball DragController (see the MuJoCo engine), held through the cycle."""
        twist = saved[1][self._ball_link]
        wrench = ball_drag_wrench(self.world, twist[:3], twist[3:])
        if wrench is not None:
            self._physics.set_link_wrench(self._ball_link, *wrench)

    def _record_contacts(self) -> None:
        """Robots touching the ball and robots touching each other in this step (the referee's)."""
        self._forget_contacts()
        self._note_contacts(self._contact_arrays()[0], self._link_robot, self._ball_link)

    def _contact_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The last step's contacts (link indices, points, forces), read once per step."""
        if self._contact_cache is None:
            links, points, forces = self._physics.contacts()
            if len(links) == 0:  # a module cleared by a model change may give (0, 0) arrays
                links, points, forces = np.zeros((0, 2), dtype=np.int64), np.zeros((0, 3)), np.zeros((0, 3))
            self._contact_cache = (links, points, forces)
        return self._contact_cache

    # ------------------------------------------------------------------ sensors
    def _sensor_readings(self, robot: Robot) -> Readings:
        body = self._bodies[robot.robot_id]
        table = self._sensor_table()
        i = self._row[robot.robot_id]
        start, end = table.spans[i]
        frp = self._foot_pressures(body.foot_slots)
        return Readings(table.gyro[i], table.acc_now[i], table.acc_lagged[i], table.angles[start:end],
                        table.speeds[start:end], frp, table.roots[i])

    def _sensor_table(self) -> _SensorTable:
        """Every robot's IMU readings, joint states (wire units) and root pose, in one numpy
        pass per state: a percept then only slices lists."""
        arrays = self._state_arrays()
        if self._sensors is not None and self._sensors_of is arrays:
            return self._sensors
        poses, twists, hinges = arrays
        acc_now, gyro, _ = imu_readings(poses, twists, self._imu_links, self._vel_prev, self._gravity, self.cycle_dt)
        states = np.degrees(hinges[self._hinge_rows])
        self._sensors = _SensorTable(
            spans=self._hinge_spans, angles=states[:, 0].tolist(), speeds=states[:, 1].tolist(),
            gyro=_sim_axes(gyro), acc_lagged=_sim_axes(self._acc_lagged), acc_now=_sim_axes(acc_now),
            roots=poses[self._root_links].tolist())
        self._sensors_of = arrays
        return self._sensors

    def _foot_readings(self) -> list[tuple[tuple[float, float, float], tuple[float, float, float]] | None]:
        """Every sensing foot's (centre of pressure, force) in its box's frame and SimSpark axes
        (rcssserver3d's FRP), None without contact; one pass over the step's contacts for all
        robots (the module gives each contact's force on its first link)."""
        if self._readings is not None:
            return self._readings
        n = len(self._foot_links)
        if n == 0:
            self._readings = []
            return self._readings
        links, points, forces = self._contact_arrays()
        # compiled (sim_hotpath): one pass over the contacts, every foot's reading as a tuple
        self._readings = foot_readings(links, points, forces, self._slot_of_link, self._state_arrays()[0],
                                       self._foot_links, self._foot_box_pos, self._foot_box_rot, self._last_readings)
        self._last_readings = list(self._readings)
        return self._readings

    def _ball_index(self) -> int:
        return self._ball_link

    def _seen_parts(self, robot: Robot) -> list[tuple[str, int, np.ndarray]]:
        body = self._bodies[robot.robot_id]
        return [(part, link, body.part_centres.get(part, np.zeros(3))) for part, link in body.parts.items()]

    def _seen_points(self, poses: np.ndarray, seen: SeenThings) -> np.ndarray:
        """World positions of the ball and every seen part: its link's pose moved to the part's
        centre where that is off the link's origin."""
        links, rows = seen.indices, seen.offset_rows
        return seen_points(poses[links, :3], seen.centres, rows, _quat_matrix(poses[links[rows], 3:7]))

    def _vision_batch(self, robots: list[tuple[Robot, bool]]) -> list[Vision]:
        poses = self._state_arrays()[0]
        cams = np.array([b.head if b.head >= 0 else b.root for b in (self._bodies[rb.robot_id] for rb, _ in robots)])
        seen = self._seen_things()
        return self._see(robots, poses[cams, :3], _quat_matrix(poses[cams, 3:7]), seen.owners,
                         self._seen_points(poses, seen))

    def _frame_links(self, robot: Robot) -> list[tuple[str, int]]:
        body = self._bodies[robot.robot_id]
        return list(zip(body.link_names, body.links.tolist()))

    def _poses_of(self, indices: np.ndarray) -> np.ndarray:
        return self._state_arrays()[0][indices]

    # ------------------------------------------------------------------ snapshots
    def _entity(self, name: str) -> EntitySnapshot:
        poses, twists, hinges = self._state_arrays()
        if name == "ball":
            p, v = poses[self._ball_link], twists[self._ball_link]
            return EntitySnapshot("ball", vec3(p[:3]), quat(p[3:]), vec3(v[:3]), vec3(v[3:]), model="ball")
        robot, body = self._robots[name], self._bodies[name]
        p, v = poses[body.root], twists[body.root]
        states = hinges[body.hinges]
        return EntitySnapshot(name, vec3(p[:3]), quat(p[3:]), vec3(v[:3]), vec3(v[3:]),
                              tuple(robot.joint_names), tuple(map(float, states[:, 0])),
                              tuple(map(float, states[:, 1])), model=robot.model_name)

    def _state_changed(self) -> None:
        """Something moved (a step, a placement): what was read from the module is stale."""
        self._arrays = None
        self._readings = None

    def _state_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Link poses, link twists and hinge states, read from the module once per state: the
        referee, every percept and the monitors of a cycle share them."""
        if self._arrays is None:
            self._arrays = (self._physics.link_poses(), self._physics.link_velocities(), self._physics.hinge_states())
        return self._arrays

    def capture(self) -> StateCapture:
        """The state arrays as read once per state (the module hands out copies, never
        touched again) and where each entity is in them: the vectors are cut where used."""
        self._ensure_built()
        poses, twists, hinges = self._state_arrays()
        where: list[tuple[str, str, tuple[str, ...], int, np.ndarray | None]] = [
            ("ball", "ball", (), self._ball_link, None)]
        where += [(name, robot.model_name, tuple(robot.joint_names), self._bodies[name].root,
                   self._bodies[name].hinges) for name, robot in self._robots.items()]

        def read() -> tuple[tuple[str, str, tuple[str, ...], np.ndarray], ...]:
            return tuple((name, model, joints, _entity_vector(poses, twists, hinges, root, rows))
                         for name, model, joints, root, rows in where)

        return StateCapture(self.cycle, self.time, read)

    def _state_vector(self, name: str) -> np.ndarray:
        poses, twists, hinges = self._state_arrays()
        if name == "ball":
            return _entity_vector(poses, twists, hinges, self._ball_link, None)
        body = self._bodies[name]
        return _entity_vector(poses, twists, hinges, body.root, body.hinges)

    def _set_ball_state(self, e: EntitySnapshot) -> None:
        self._physics.set_root_pose("ball", np.array([*e.position, *e.orientation]))
        self._physics.set_root_velocity("ball", np.array(e.linear_velocity), np.array(e.angular_velocity))

    def _set_robot_state(self, robot: Robot, e: EntitySnapshot, joints: list[tuple[int, float, float]]) -> None:
        body = self._bodies[robot.robot_id]
        q, dq = self._physics.positions(body.instance), self._physics.velocities(body.instance)
        for i, qi, vi in joints:
            q[body.dofs[i]], dq[body.dofs[i]] = qi, vi
        self._physics.set_positions(body.instance, q)
        self._physics.set_velocities(body.instance, dq)
        self._physics.set_root_pose(body.instance, np.array([*e.position, *e.orientation]))
        self._physics.set_root_velocity(body.instance, np.array(e.linear_velocity), np.array(e.angular_velocity))

    def _states_set(self, forward: bool) -> None:
        self._state_changed()
