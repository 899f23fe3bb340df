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
from collections.abc import Mapping
from typing import ClassVar, Generic, TypeVar

import numpy as np

from sim_contracts.agents import VisionRules
from sim_contracts.percept import Vision
from sim_hotpath import contact_owners, imu_readings
from sim_master.engine.common import (
    MODEL_ALIASES,
    SIMSPARK_BEAM_HEIGHT,
    EntityServices,
    delta_since,
    yaw_of,
    yaw_quat,
)
from sim_master.engine.common import quat as quat_tuple
from sim_master.engine.node import Feature, Quaternion
from sim_master.engine.recovery import FaultLog
from sim_master.engine.robot import Robot
from sim_master.engine.vision import Eyes
from sim_master.snapshot import EntitySnapshot, Snapshot
from sim_master.world.sdf_loader import available_models
from sim_master.world.spec import FieldSpec, WorldSpec
from sim_master.world.transforms import quat_mul


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


R = TypeVar("R", bound=Robot)


class EngineCore(EntityServices, Generic[R]):
    """The part of SimulationNode (sim_master.engine.node) no physics library changes."""

    FEATURES: ClassVar[frozenset[Feature]] = frozenset({Feature.LIBRARY_STEP_TIME})
    _models: Mapping[str, object]  # model key -> what the backend keeps of it
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

    # ------------------------------------------------------------------ placing robots
    def teleport_robot(self, robot_id: str, x: float, y: float, yaw_deg: float) -> None:
        """A beam: the robot upright at (x, y), facing yaw_deg, dropped as its reference drops
        it (beam_drop), beside any robot already there (engine/recovery.py)."""
        check_move(x, y, yaw_deg)
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

    # ------------------------------------------------------------------ snapshots
    def entity_names(self) -> list[str]:
        return ["ball", *self._robots]

    def snapshot(self) -> Snapshot:
        self._ensure_built()
        return Snapshot(self.cycle, self.time, True, {n: self._entity(n) for n in self.entity_names()})

    def delta(self, only: set[str] | None = None) -> Snapshot:
        """Entities whose state changed since the previous delta() (all on the first call);
        `only` limits the report to those entities (a distributed node's own assets)."""
        self._ensure_built()
        return delta_since(self._last_delta, self.entity_names(), only, self._state_vector, self._entity,
                           self.cycle, self.time)

    def _entity(self, name: str) -> EntitySnapshot:
        raise NotImplementedError

    def _state_vector(self, name: str) -> np.ndarray:
        """The numbers of _entity(name) in the same order, without building it."""
        raise NotImplementedError
