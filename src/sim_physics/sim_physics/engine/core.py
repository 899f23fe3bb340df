"""The engine core: what every physics backend does the same way, written once.

Why: the MuJoCo engine and the articulated engine (gz-physics, ODE) must agree on every
reference rule (a beam's drop height and joints, where a carried robot faces, rcssserver3d's
lagged ACC, who touches the ball, the vision cache of a cycle, the robot table, snapshots and
their delta). Each rule lives here once, as a method of `EngineCore` or a function over arrays,
and a backend supplies only what its library holds: where a robot's root is (`_put_root`),
its cameras and seen points (`_vision_batch`), its state vector and entity (`_state_vector`,
`_entity`)."""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar, Generic, NamedTuple, TypeVar

import numpy as np

from sim_contracts.agents import VisionRules
from sim_contracts.percept import ForceResistance, GameStateView, Percept, Vision
from sim_hotpath import contact_owners, imu_readings
from sim_physics.engine.common import (
    MODEL_ALIASES,
    SIMSPARK_BEAM_HEIGHT,
    EntityServices,
    check_robot_id,
    standing_height,
    yaw_of,
    yaw_quat,
)
from sim_physics.engine.common import quat as quat_tuple
from sim_physics.engine.node import DeltaMemory, Feature, PdTarget, Quaternion
from sim_physics.engine.recovery import FaultLog, crowds, free_spot, limp, separate
from sim_physics.engine.robot import Robot, command_pd, command_speeds
from sim_physics.engine.vision import Eyes
from sim_physics.snapshot import EntitySnapshot, Snapshot, StateCapture
from sim_physics.world.sdf_loader import available_models, load_model
from sim_physics.world.spec import FieldSpec, ModelSpec, WorldSpec
from sim_physics.world.transforms import quat_mul


def beam_drop(robot: Robot) -> tuple[float, bool]:
    """Where a beam puts the robot's root (height) and whether it zeroes its joints:
    rcssserver3d lifts the torso to its AgentRadius (0.4 m) and lets the Nao drop onto its feet
    in its posture; rcsssmj drops its robot from its spawn height with every joint at zero."""
    if robot.simspark_model:
        return max(robot.standing_height, SIMSPARK_BEAM_HEIGHT), False
    return robot.standing_height, True


def carried_orientation(current: np.ndarray, current_yaw_deg: float, yaw_deg: float | None, *,
                        upright: bool, orientation: Quaternion | None) -> np.ndarray:
    """A carried robot's new orientation (w x y z): given outright; upright at the heading
    (MoveAndRotateAgent); turned about the vertical to the heading, tilt kept (MoveAgent);
    or as it is."""
    if orientation is not None:
        q = np.asarray(orientation, dtype=float)
        return q / np.linalg.norm(q)
    if upright:
        return yaw_quat(current_yaw_deg if yaw_deg is None else yaw_deg)
    if yaw_deg is not None:
        return quat_mul(yaw_quat(yaw_deg - current_yaw_deg), np.asarray(current, dtype=float))
    return np.asarray(current, dtype=float).copy()


def seen_centre(robot: Robot, inertial_centre: np.ndarray | tuple[float, float, float]) -> np.ndarray:
    """Where other robots see one of this robot's parts, in its body's frame: a SimSpark
    robot's at the body's centre of mass, as rcssserver3d's ObjectState sits on the body (a
    lower arm's is 5 cm from the elbow); an rcsssmj robot's at the body's frame, as rcsssmj."""
    return np.asarray(inertial_centre, dtype=float) if robot.simspark_model else np.zeros(3)


def seen_points(positions: np.ndarray, centres: np.ndarray, rows: np.ndarray, rotations: np.ndarray) -> np.ndarray:
    """World positions of seen things: their bodies' positions (n, 3), moved to their seen
    centres (n, 3, body frames) where those are off the origin (`rows`, whose bodies'
    rotations (len(rows), 3, 3) are given)."""
    points = np.array(positions, dtype=float)
    if len(rows):
        points[rows] += np.einsum("nij,nj->ni", rotations, centres[rows])
    return points


def check_move(x: float, y: float, yaw_deg: float | None, z: float | None = None) -> None:
    """A move's one check: every given number finite."""
    if not all(math.isfinite(v) for v in (x, y, 0.0 if yaw_deg is None else yaw_deg, 0.0 if z is None else z)):
        raise ValueError("move target must be finite")


def lagged_accelerations(poses: np.ndarray, twists: np.ndarray, imu: np.ndarray, vel_prev: np.ndarray,
                         gravity: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """rcssserver3d's ACC of every robot at once, computed before its physics step: the IMU
    link's velocity change over the previous cycle minus gravity, in the link's axes (so it
    lags GYR by a cycle); a robot just placed has no previous velocity (NaN) and reads gravity
    alone. poses (n, 7) x y z w x y z, twists (n, 6) world linear | angular, imu: the rows to
    read. Returns the readings (model axes) and the velocities to keep for the next cycle."""
    acc, _, kept = imu_readings(poses, twists, imu, vel_prev, gravity, dt)
    return acc, kept


class ModelEntry(NamedTuple):
    """A robot or entity model the engine knows: its spec, where its root stands when it joins,
    and its SDF file (for a backend whose library reads the file itself; None otherwise)."""

    spec: ModelSpec
    standing_height: float
    path: str | None


class SeenThings(NamedTuple):
    """Everything other robots can see, in the backend's index space: (team, unum, part) of
    every labelled robot part; the ball's index then the parts'; where each is seen in its
    body's frame (seen_centre); the rows where that is off the body's origin."""

    owners: list[tuple[str, int, str]]
    indices: np.ndarray
    centres: np.ndarray
    offset_rows: np.ndarray


class Readings(NamedTuple):
    """One robot's sensors after a step, as its backend reads them (wire units: deg, deg/s,
    m/s^2): `acc_lagged` is rcssserver3d's ACC (None where the backend has none yet)."""

    gyro: tuple[float, float, float]
    acc_now: tuple[float, float, float]
    acc_lagged: tuple[float, float, float] | None
    angles: list[float]
    speeds: list[float]
    feet: list[ForceResistance]
    root: Sequence[float]  # x y z w x y z


R = TypeVar("R", bound=Robot)
S = TypeVar("S")  # a backend's saved state (what a failed step is rolled back to)


class EngineCore(EntityServices, Generic[R, S]):
    """The part of SimulationNode (sim_physics.engine.node) no physics library changes.

    A cycle runs in gz-sim's phases (`step`): pre-update (`_pre_update`: the motors take the
    cycle's commands, rcssserver3d's rules that act before its physics step), update
    (`_update`: the library's step and its health), post-update (`_post_update`: what the step
    leaves to read); a step that fails is rolled back and recovered here, once."""

    FEATURES: ClassVar[frozenset[Feature]] = frozenset({Feature.LIBRARY_STEP_TIME})
    _models: dict[str, ModelEntry]  # model key -> the model (built-in ones read on first use)
    _robot_list: list[R]  # the robots in the backend's index order (contact owners' rows)

    def _init_core(self, world: WorldSpec, *, substeps: int, timestep: float, vision_noise: bool,
                   seed: int | None, fault_name: str) -> None:
        self.world = world
        self.field: FieldSpec = world.field
        self.substeps = substeps
        self.cycle_dt = substeps * timestep
        self.vision_noise = vision_noise
        self.rng = np.random.default_rng(seed)
        self.features: frozenset[Feature] = self.FEATURES
        self._eyes = Eyes(self.field, noise=vision_noise, rng=self.rng)
        self._robots: dict[str, R] = {}
        self.time = 0.0
        self.cycle = 0
        self._touchers: set[str] = set()
        self._contacts: set[tuple[str, str]] = set()
        self._last_delta: dict[str, np.ndarray] = {}
        self._vision_cache: dict[str, Vision] = {}
        self._vision_cycle = -1
        self.builds = 0
        self.library_step_s = 0.0  # seconds inside the physics library's step (the benches' yardstick)
        self.faults = FaultLog(fault_name)  # steps rolled back (engine/recovery.py)
        self._seen_key: object = None
        self._seen_cache: SeenThings | None = None
        self._frames_key: object = None
        self._frame_names: list[str] = []
        self._frame_indices = np.zeros(0, dtype=np.intp)
        self._stepping = False  # between begin_step and finish_step
        self._overlapping = False  # this step's library step runs on the library's thread
        self._before: S | None = None  # the state the step in progress began from

    def _ensure_built(self) -> None:
        """The library's world is up to date with the robot table (a backend that builds lazily)."""

    # ------------------------------------------------------------------ the robot table
    def _robot(self, robot_id: str) -> R:
        try:
            return self._robots[robot_id]
        except KeyError:
            raise KeyError(f"no robot named {robot_id!r}") from None

    def robot_ids(self) -> list[str]:
        return list(self._robots)

    def robot_model(self, robot_id: str) -> str:
        return self._robot(robot_id).model_name

    def set_label(self, robot_id: str, team: str, unum: int) -> None:
        self._robot(robot_id).label = (team, unum)

    def set_vision(self, robot_id: str, vision: VisionRules) -> None:
        """The rules of the robot's agent decide what its vision shows: the landmarks under
        that set's names, and SimSpark's noise and calibration error where they are noisy."""
        self._give_vision(self._robot(robot_id), vision)

    def _give_vision(self, robot: R, vision: VisionRules) -> None:
        robot.vision = vision
        robot.calibration = self._eyes.calibration(vision)

    def joint_names(self, robot_id: str) -> list[str]:
        return list(self._robot(robot_id).joint_names)

    def effector_names(self, robot_id: str) -> list[str]:
        return list(self._robot(robot_id).effector_names)

    def has_model(self, key: str) -> bool:
        return MODEL_ALIASES.get(key, key) in self._models or key in available_models()

    # ------------------------------------------------------------------ models
    def _model(self, name: str) -> ModelEntry:
        """A model by key: registered, or a built-in model file read on its first use."""
        name = MODEL_ALIASES.get(name, name)
        if name not in self._models:
            if name not in available_models():
                raise ValueError(f"unknown robot model {name!r} (available: nao, {', '.join(available_models())})")
            spec = load_model(name)
            self._models[name] = ModelEntry(spec, self._standing_height(spec), self._model_file(name, spec))
            self._model_loaded(name, spec)
        return self._models[name]

    def register_model(self, key: str, spec: ModelSpec) -> None:
        """A model that is not one of the worlds' files (spawned from SDF text or a file):
        robots and entities of it can be added under `key` from now on."""
        if key not in self._models:
            self._models[key] = ModelEntry(spec, self._standing_height(spec), None)

    def forget_model(self, key: str) -> None:
        """A registered model no entity uses any more (spawned ones are many: each SDF text its
        own); built-in models and those the library read from their files stay."""
        entry = self._models.get(key)
        if entry is not None and entry.path is None and key not in available_models():
            del self._models[key]

    def model_spec(self, key: str) -> ModelSpec:
        """The engine-neutral description of a model in play (links, shapes), for drawings."""
        return self._model(key).spec

    def _standing_height(self, spec: ModelSpec) -> float:
        """Where the model's root stands when it joins (engine.common.standing_height)."""
        return standing_height(spec)

    def _model_file(self, name: str, spec: ModelSpec) -> str | None:
        """The SDF file a backend's library reads the model from, or None."""
        return None

    def _model_loaded(self, name: str, spec: ModelSpec) -> None:
        """A built-in model was read (a backend may prepare what it builds robots from)."""

    def add_robot(self, robot_id: str, model: str, x: float, y: float, yaw_deg: float) -> None:
        """A robot of `model` standing at (x, y) facing yaw_deg, beside any robot already there
        (engine/recovery.py's free_spot); its name must be free and usable as an entity name."""
        check_robot_id(robot_id)  # it names elements of generated model files too
        self._settle()
        if robot_id in self._robots or robot_id == "ball":
            raise ValueError(f"an entity named {robot_id!r} already exists")
        if not all(math.isfinite(v) for v in (x, y, yaw_deg)):
            raise ValueError("robot pose must be finite")
        x, y = free_spot(x, y, self._roots_xy(None))
        self._add_robot(robot_id, model, x, y, yaw_deg)

    def _add_robot(self, robot_id: str, model: str, x: float, y: float, yaw_deg: float) -> None:
        raise NotImplementedError

    def _roots_xy(self, robot: R | None) -> np.ndarray:
        """Where every robot but `robot` stands (n, 2)."""
        raise NotImplementedError

    def remove_robot(self, robot_id: str) -> None:
        """The robot leaves the world; the next delta reports it removed."""
        robot = self._robot(robot_id)
        self._settle()
        del self._robots[robot_id]
        self._removed(robot)

    def _removed(self, robot: R) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ placing robots
    def teleport_robot(self, robot_id: str, x: float, y: float, yaw_deg: float) -> None:
        """A beam: the robot upright at (x, y), facing yaw_deg, dropped as its reference drops
        it (beam_drop), beside any robot already there (engine/recovery.py)."""
        check_move(x, y, yaw_deg)
        self._settle()
        z, zero_joints = beam_drop(self._robot(robot_id))
        self._put_root(robot_id, x, y, z, yaw_quat(yaw_deg), zero_joints=zero_joints, beside=True, yaw_deg=yaw_deg)

    def carry_robot(self, robot_id: str, x: float, y: float, yaw_deg: float | None, *,
                    z: float | None = None, upright: bool = False, orientation: Quaternion | None = None,
                    zero_joints: bool = False, beside: bool = False) -> None:
        """A referee's or trainer's move (rcssserver3d's SoccerBase::MoveAgent): the robot is
        carried to (x, y) as it is, at its height, in its posture and tilt, turned to `yaw_deg`
        (None: as it faces), and stopped. Unlike a beam it is not lifted: a walking robot
        dropped from the beam height in mid-stride falls. Trainer commands may also give the
        root's height `z`, set it `upright` at the heading (MoveAndRotateAgent), give its
        `orientation` outright, or zero its joints (rcsssmj)."""
        check_move(x, y, yaw_deg, z)
        self._settle()
        root = self._root_now(robot_id)
        if root is None:  # not in the library's world yet: it will stand there when built
            self._put_root(robot_id, x, y, None, None, zero_joints=zero_joints, beside=beside, yaw_deg=yaw_deg)
            return
        position, current = root
        quat = carried_orientation(current, yaw_of(quat_tuple(current)), yaw_deg, upright=upright,
                                   orientation=orientation)
        self._put_root(robot_id, x, y, float(position[2]) if z is None else z, quat, zero_joints=zero_joints,
                       beside=beside, yaw_deg=yaw_deg)

    def _root_now(self, robot_id: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The robot's root position and w-x-y-z orientation in the library's world, or None
        while it is not in it yet."""
        raise NotImplementedError

    def _put_root(self, robot_id: str, x: float, y: float, z: float | None, quat: np.ndarray | None, *,
                  zero_joints: bool, beside: bool, yaw_deg: float | None) -> None:
        """The robot's root at (x, y, z) with orientation quat, at rest (its joints zeroed if
        asked), beside others if asked; z and quat None: a robot not built yet keeps the spot
        and heading for its build."""
        raise NotImplementedError

    def robot_pose(self, robot_id: str) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
        raise NotImplementedError

    # ------------------------------------------------------------------ the ball
    def ball_position(self) -> tuple[float, float, float]:
        raise NotImplementedError

    def set_ball(self, position: tuple[float, float, float],
                 velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> None:
        """The ball at `position` (its orientation reset) moving at `velocity`, not spinning."""
        if not all(math.isfinite(v) for v in (*position, *velocity)):
            raise ValueError("ball position and velocity must be finite")
        self._settle()
        self._put_ball(position, velocity)

    def _put_ball(self, position: tuple[float, float, float], velocity: tuple[float, float, float]) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ contacts
    def _note_contacts(self, pairs: np.ndarray, owner: np.ndarray, ball: int) -> None:
        """Robots touching the ball and robots touching each other, from a step's contact pairs
        (N, 2) of indices whose robot row `owner` gives (-1: none) and the ball's index."""
        if len(pairs) == 0 or not self._robot_list:
            return
        touchers, touching = contact_owners(pairs, owner, ball)
        robots = self._robot_list
        self._touchers.update(robots[r].robot_id for r in touchers)
        for a, b in touching:
            ia, ib = robots[a].robot_id, robots[b].robot_id
            self._contacts.add((ia, ib) if ia < ib else (ib, ia))

    def _foot_pressures(self, slots: dict[str, int]) -> list[ForceResistance]:
        """The FRP perceptor of one robot: each sensing foot (name -> slot in the backend's
        foot readings) that touches something, with its centre of pressure and force."""
        if not slots:
            return []
        readings = self._foot_readings()
        return [ForceResistance(name, *reading) for name, slot in slots.items()
                if (reading := readings[slot]) is not None]

    def _foot_readings(self) -> list[tuple[tuple[float, float, float], tuple[float, float, float]] | None]:
        """Every sensing foot's (centre of pressure, force) in its frame, by slot; None for a
        foot that touches nothing (the backend's, once per step)."""
        raise NotImplementedError

    def _robots_reindexed(self) -> None:
        """The backend's robot order changed (a robot joined, left or the model was rebuilt):
        the core's per-layout caches start again."""
        self._robot_list = list(self._robots.values())
        self._seen_cache = None
        self._frames_key = None

    def ball_touchers(self) -> list[str]:
        return sorted(self._touchers)

    def robot_contacts(self) -> list[tuple[str, str]]:
        return sorted(self._contacts)

    # ------------------------------------------------------------------ vision
    def prepare_vision(self, requests: list[tuple[str, bool]]) -> None:
        """Compute this cycle's vision of several robots at once (robot id, with lines);
        percept(vision=True) then uses it. One pass instead of one per robot."""
        self._ensure_built()
        robots = [(self._robot(rid), lines) for rid, lines in requests]
        visions = self._vision_batch(robots) if robots else []
        self._vision_cache = {rb.robot_id: v for (rb, _), v in zip(robots, visions)}
        self._vision_cycle = self.cycle

    def _vision(self, robot: R, lines: bool = True) -> Vision:
        if self._vision_cycle == self.cycle and robot.robot_id in self._vision_cache:
            return self._vision_cache[robot.robot_id]
        return self._vision_batch([(robot, lines)])[0]

    def _vision_batch(self, robots: list[tuple[R, bool]]) -> list[Vision]:
        raise NotImplementedError

    def _see(self, robots: list[tuple[R, bool]], cam_pos: np.ndarray, cam_rot: np.ndarray,
             owners: list[tuple[str, int, str]], points: np.ndarray) -> list[Vision]:
        return self._eyes.see([(rb.vision, rb.calibration, lines) for rb, lines in robots],
                              cam_pos, cam_rot, owners, points)

    def _seen_things(self) -> SeenThings:
        """Every labelled robot's parts and the ball, as others see them: rebuilt only when the
        robots or their labels change (or a backend drops the cache after a reindex)."""
        key = tuple((rb.robot_id, rb.label) for rb in self._robot_list)
        if self._seen_key != key or self._seen_cache is None:
            owners: list[tuple[str, int, str]] = []
            indices = [self._ball_index()]
            centres = [np.zeros(3)]
            for robot in self._robot_list:
                if robot.label is not None:
                    for part, index, centre in self._seen_parts(robot):
                        owners.append((robot.label[0], robot.label[1], part))
                        indices.append(index)
                        centres.append(centre)
            centre_array = np.array(centres)
            self._seen_cache = SeenThings(owners, np.array(indices, dtype=np.intp), centre_array,
                                          np.flatnonzero(np.any(centre_array != 0.0, axis=1)))
            self._seen_key = key
        return self._seen_cache

    def _ball_index(self) -> int:
        """The ball's body (or link) index in the backend's arrays."""
        raise NotImplementedError

    def _seen_parts(self, robot: R) -> list[tuple[str, int, np.ndarray]]:
        """(part, body or link index, seen centre in that body's frame) of each part others see."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the cycle
    def step(self, dt: float | None = None) -> None:
        """One cycle (the backend's substeps). dt, if given, must be the cycle length."""
        self._begin_step(dt, hold=False)  # nobody reads between the halves
        self.finish_step()

    def begin_step(self, dt: float | None = None) -> None:
        """The first half of `step`: the motors take the cycle's commands and the library's step
        starts. An engine with Feature.OVERLAPPED_STEP steps on the library's own thread until
        `finish_step`; until then it still reports the state before the step (percepts,
        vision, frames, captures, poses) and takes effector commands for the next cycle;
        whatever moves the world (a robot placed, the ball set) finishes the step first."""
        self._begin_step(dt, hold=True)

    def _begin_step(self, dt: float | None, *, hold: bool) -> None:
        self._ensure_built()
        if dt is not None and abs(dt - self.cycle_dt) > 1e-9:
            raise ValueError(f"this engine steps {self.cycle_dt} s per cycle, not {dt}")
        self._settle()
        if hold:
            self._hold_readings()
        self._before = self._pre_update()
        self._overlapping = hold  # a whole step() keeps to the calling thread, as before
        self._start_update()  # should it raise, no step is in progress
        self._stepping = True

    def finish_step(self) -> None:
        """The second half of `step`: the library's result taken (or recovered from), what it
        leaves to read, the clock. Nothing when no step was begun."""
        if not self._stepping:
            return
        self._stepping = False
        self._overlapping = False  # a retry after a recovery steps on the calling thread
        before, self._before = self._before, None
        assert before is not None
        fault, suspects = self._end_update()
        if fault is not None:
            self._recover(fault, before, suspects)
            # the world steps on with the crowd apart; should that fail too, it holds still
            # for this cycle rather than take a state no match produces
            separated = self._saved_state()
            self._before_retry(separated)
            if self._update()[0] is not None:
                self._restore(separated)
                self._refuse_step()
        self._post_update()
        self.cycle += 1
        self.time = self.cycle * self.cycle_dt

    @property
    def stepping(self) -> bool:
        """Between begin_step and finish_step."""
        return self._stepping

    def _settle(self) -> None:
        """A step begun is finished before anything moves the world."""
        if self._stepping:
            self.finish_step()

    def _hold_readings(self) -> None:
        """What the readers of this state derive from values the pre-update changes (the
        lagged ACC) is computed now, so a percept read while the step runs is this state's."""

    def _start_update(self) -> None:
        """The library's step started (an engine with Feature.OVERLAPPED_STEP: on its thread);
        the others step in `_end_update`."""

    def _end_update(self) -> tuple[str | None, list[str]]:
        """The library's step taken: what `_update` returns."""
        return self._update()

    def _recover(self, why: str, before: S, suspects: list[str]) -> None:
        """The step failed or left a state no match produces: the world as it was before it,
        the robots that exploded upright and crowds beamed apart (engine/recovery.py); a fault
        that repeats makes every robot limp and stills the ball."""
        self._restore(before)
        if self.faults.repeated(self.cycle):  # the same state and commands would fail again
            suspects = list(self._robots)
            for robot in self._robot_list:
                limp(robot)
            self._controls_changed()
            ball = self.ball_position()
            self.set_ball(ball if all(map(math.isfinite, ball)) else (0.0, 0.0, self.field.ball_radius))
        moved = separate(self, crowds(self, suspects))
        self.faults.fault(self.cycle, why, moved)

    def _refuse_step(self) -> None:
        """Nothing of a refused step is reported: no touches, no contacts."""
        self._forget_contacts()

    def _forget_contacts(self) -> None:
        """A new step's touches and contacts start from none (a step notes its own)."""
        self._touchers.clear()
        self._contacts.clear()

    def _pre_update(self) -> S:
        """The motors take the cycle's commands, then the rules rcssserver3d applies before its
        physics step: the lagged ACC and the ball's drag, from the state the step starts from
        (returned: what a failed step is rolled back to)."""
        self._drive_motors()
        saved = self._saved_state()
        self._lagged_accelerations(saved)
        self._ball_drag(saved)
        return saved

    def _drive_motors(self) -> None:
        """Every robot's controller state into the library's motors, for this cycle."""
        raise NotImplementedError

    def _lagged_accelerations(self, saved: S) -> None:
        """rcssserver3d's ACC of every SimSpark robot from the state before the step
        (`lagged_accelerations`), kept for the percepts after it."""
        raise NotImplementedError

    def _ball_drag(self, saved: S) -> None:
        """rcssserver3d's ball DragController (engine.common.ball_drag_wrench) from the ball's
        velocities before the step, held through the cycle's physics."""
        raise NotImplementedError

    def _update(self) -> tuple[str | None, list[str]]:
        """The library's step: (why its result cannot be played on, the robots at fault) or
        (None, [])."""
        raise NotImplementedError

    def _post_update(self) -> None:
        """What the step leaves for the cycle's readers (contacts, readings)."""

    def _before_retry(self, saved: S) -> None:
        """What must be applied again before the step after a recovery: the ball's drag from
        the state recovered (every library clears applied forces at each step; a stilled ball
        is not pushed on)."""
        self._ball_drag(saved)

    def _saved_state(self) -> S:
        raise NotImplementedError

    def _restore(self, saved: S) -> None:
        raise NotImplementedError

    def _controls_changed(self) -> None:
        """Every robot's controller state changed at once (all made limp)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ effectors
    def set_joint_velocities(self, robot_id: str, speeds: dict[str, float]) -> list[str]:
        robot = self._robot(robot_id)
        errors, mode_changed = command_speeds(robot, speeds)
        if mode_changed:
            self._gains_changed(robot)
        return errors

    def set_joint_pd(self, robot_id: str, targets: dict[str, PdTarget]) -> list[str]:
        robot = self._robot(robot_id)
        errors, changed = command_pd(robot, targets)
        if changed:  # gains a backend keeps in its model are rewritten only when they change
            self._gains_changed(robot)
        else:
            self._targets_changed(robot)
        return errors

    def _gains_changed(self, robot: R) -> None:
        """A robot's joint modes or gains changed (a backend that keeps them in its model)."""

    def _targets_changed(self, robot: R) -> None:
        """A robot's PD targets changed, its gains did not."""

    def rename_robot(self, robot_id: str, new_id: str) -> None:
        """The robot's entity name changes (an agent's robot takes its player's name when it
        joins a team); the next delta reports the old name removed and the new one."""
        if new_id == robot_id:
            return
        check_robot_id(new_id)
        self._settle()
        if new_id in self._robots or new_id == "ball":
            raise ValueError(f"an entity named {new_id!r} already exists")
        robot = self._robot(robot_id)
        robot.robot_id = new_id
        self._robots = {(new_id if k == robot_id else k): r for k, r in self._robots.items()}  # order kept
        self._renamed(robot_id, new_id)

    def _renamed(self, old: str, new: str) -> None:
        """The backend's own tables follow a rename."""
        raise NotImplementedError

    # ------------------------------------------------------------------ sensing
    def percept(self, robot_id: str, *, vision: bool, lines: bool = True) -> Percept:
        """What the robot's sensors read after this cycle's step. A SimSpark robot's ACC is
        rcssserver3d's, a cycle behind (lagged_accelerations); others read the step's."""
        self._ensure_built()
        robot = self._robot(robot_id)
        r = self._sensor_readings(robot)
        root = r.root
        return Percept(
            time=self.time, game=GameStateView(), gyro=r.gyro,
            accel=r.acc_lagged if robot.simspark_model and r.acc_lagged is not None else r.acc_now,
            joint_names=robot.joint_names, joint_angles=r.angles, joint_velocities=r.speeds, foot_resistance=r.feet,
            torso_position=(root[0], root[1], root[2]), torso_quaternion=(root[3], root[4], root[5], root[6]),
            vision=self._vision(robot, lines) if vision else None)

    def _sensor_readings(self, robot: R) -> Readings:
        raise NotImplementedError

    # ------------------------------------------------------------------ frames
    def frames(self) -> tuple[list[str], np.ndarray]:
        """Every link of every robot and the ball as TF frames: names `<entity>/<link>` (the
        ball: `ball`) and an (n, 7) array of world positions and w-x-y-z quaternions."""
        self._ensure_built()
        key = (self._frames_layout(), tuple(r.robot_id for r in self._robot_list))
        if self._frames_key != key:
            names, indices = ["ball"], [self._ball_index()]
            for robot in self._robot_list:
                for link, index in self._frame_links(robot):
                    names.append(f"{robot.robot_id}/{link}")
                    indices.append(index)
            self._frames_key, self._frame_names = key, names
            self._frame_indices = np.asarray(indices, dtype=np.intp)
        return list(self._frame_names), self._poses_of(self._frame_indices)

    def _frames_layout(self) -> object:
        """Changes whenever the backend's body indices may have (a rebuilt model)."""
        return None

    def _frame_links(self, robot: R) -> list[tuple[str, int]]:
        """(link name, body or link index) of each of the robot's links."""
        raise NotImplementedError

    def _poses_of(self, indices: np.ndarray) -> np.ndarray:
        """World poses (n, 7: x y z w x y z) of these bodies or links."""
        raise NotImplementedError

    # ------------------------------------------------------------------ snapshots
    def entity_names(self) -> list[str]:
        return ["ball", *self._robots]

    def snapshot(self) -> Snapshot:
        self._ensure_built()
        return Snapshot(self.cycle, self.time, True, {n: self._entity(n) for n in self.entity_names()})

    def delta(self, only: set[str] | None = None, memory: DeltaMemory | None = None) -> Snapshot:
        """Entities whose state changed since the last report against `memory` (all on the
        first): a reader's own memory, or the engine's (a distributed node's); `only` limits the
        report to those entities (a distributed node's own assets)."""
        return self.capture().delta(self._last_delta if memory is None else memory, only)

    def capture(self) -> StateCapture:
        """This cycle's state as plain numbers (a snapshot or a delta made later, elsewhere)."""
        self._ensure_built()
        entities = []
        for name in self.entity_names():
            robot = self._robots.get(name)
            model, joints = ("ball", ()) if robot is None else (robot.model_name, tuple(robot.joint_names))
            entities.append((name, model, joints, self._state_vector(name)))
        captured = tuple(entities)
        return StateCapture(self.cycle, self.time, lambda: captured)

    def apply_snapshot(self, snapshot: Snapshot, *, only: set[str] | None = None, forward: bool = True) -> None:
        """Set entity states (resync, ghosts); unknown robots of a known model are created (a
        model spawned from SDF text elsewhere is not known here: that entity is left out);
        joints are matched by name. forward=False: the backend may skip recomputing what a
        following step recomputes anyway."""
        self._settle()
        entities = [(name, e) for name, e in snapshot.entities.items() if only is None or name in only]
        for name, e in entities:
            if name != "ball" and name not in self._robots and e.model and self.has_model(e.model):
                self.add_robot(name, e.model, e.position[0], e.position[1], 0.0)
        self._ensure_built()
        for name, e in entities:
            if name == "ball":
                self._set_ball_state(e)
                continue
            robot = self._robots.get(name)
            if robot is None:
                continue
            index = {n: i for i, n in enumerate(robot.joint_names)}
            joints = [(i, q, v) for jn, q, v in zip(e.joint_names, e.joint_positions, e.joint_velocities)
                      if (i := index.get(jn)) is not None]
            self._set_robot_state(robot, e, joints)
        if snapshot.full and only is None:
            self.cycle, self.time = snapshot.step, snapshot.time
        self._states_set(forward)

    def _set_ball_state(self, e: EntitySnapshot) -> None:
        raise NotImplementedError

    def _set_robot_state(self, robot: R, e: EntitySnapshot, joints: list[tuple[int, float, float]]) -> None:
        """The robot's root as in `e`, and joint i at (angle, rate) for each of `joints`."""
        raise NotImplementedError

    def _states_set(self, forward: bool) -> None:
        """After a snapshot was applied: what derives from the state is recomputed or dropped."""

    def _entity(self, name: str) -> EntitySnapshot:
        raise NotImplementedError

    def _state_vector(self, name: str) -> np.ndarray:
        """The numbers of _entity(name) in the same order, without building it."""
        raise NotImplementedError
