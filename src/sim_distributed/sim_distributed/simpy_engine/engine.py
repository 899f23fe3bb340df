"""SimPy engine: kinematic robots whose decisions run as SimPy processes ticking behaviour
trees (BehaviorTree.CPP XML, executed with py_trees).

Each cycle has two phases: first every owned robot's process wakes and decides (its tree
reads the world as it was at the start of the cycle and sets wheel speeds), then every owned
body is integrated. So decisions never depend on the order of the robots, and two engines
built the same way produce the same world bit for bit. SimPy time is in integer
milliseconds, so a process that waits `k` cycles wakes exactly then.

Serves distributed-mode nodes with the snapshot part of the SimulationNode interface
(the same calls as MujocoEngine: add_robot, set_ball, step, snapshot, delta,
apply_snapshot); soccer sensors are not simulated here."""
from __future__ import annotations

import math
import zlib
from collections.abc import Generator
from typing import Any, Final

import numpy as np
import simpy
from py_trees.behaviour import Behaviour
from sim_physics.snapshot import EntitySnapshot, Snapshot
from sim_physics.world.sdf_loader import load_world
from sim_physics.world.spec import FieldSpec

from sim_distributed.simpy_engine.kinematics import EFFECTORS, MAX_WHEEL_SPEED, Ball, Body

CYCLE_MS: Final = 20
SUPPORTED_MODELS: Final = ("pusher",)
BORDER: Final = 1.0  # m beyond the field lines a robot may go


class SimpyEngine:
    physics = "simpy"  # no physics: scripted robots (distributed mode's test world)

    def __init__(self, world: str = "simspark_field", *, bt_xml: str = "", seed: int = 0,
                 tick_ms: int = CYCLE_MS) -> None:
        if tick_ms <= 0 or tick_ms % CYCLE_MS:
            raise ValueError(f"tick_ms must be a positive multiple of the {CYCLE_MS} ms cycle, not {tick_ms}")
        self.tick_ms = tick_ms  # how often each robot's tree is ticked (robots are staggered)
        self.field: FieldSpec = load_world(world).field
        self.bt_xml = bt_xml
        self.seed = seed
        self.cycle_dt = CYCLE_MS / 1000
        self.cycle = 0
        self.time = 0.0
        self.half_length = self.field.length / 2 + BORDER
        self.half_width = self.field.width / 2 + BORDER
        self.bodies: dict[str, Body] = {}
        self.ball = Ball(z=self.field.ball_radius)
        self._owned: set[str] | None = None  # None: everything added here is owned
        self._trees: dict[str, Behaviour] = {}
        self._last_delta: dict[str, tuple[Any, ...]] = {}
        self.positions = np.zeros((0, 2))  # every robot at the start of the cycle (for the trees)
        self.position_names: list[str] = []
        self.env = simpy.Environment()

    # ------------------------------------------------------------------ ownership, bodies
    def set_owned(self, names: set[str]) -> None:
        """Only these entities are simulated here; the others are ghosts set from snapshots."""
        self._owned = set(names)
        for name, body in self.bodies.items():
            body.owned = name in self._owned
        self.ball.owned = "ball" in self._owned

    def _is_owned(self, name: str) -> bool:
        return self._owned is None or name in self._owned

    def add_robot(self, robot_id: str, model: str, x: float, y: float, yaw_deg: float) -> None:
        if model not in SUPPORTED_MODELS:
            raise ValueError(f"the simpy engine simulates {', '.join(SUPPORTED_MODELS)}, not {model!r}")
        if robot_id in self.bodies or robot_id == "ball":
            raise ValueError(f"an entity named {robot_id!r} exists already")
        body = Body(robot_id, model, x, y, math.radians(yaw_deg), owned=self._is_owned(robot_id))
        self.bodies[robot_id] = body
        if body.owned and self.bt_xml:
            from sim_distributed.simpy_engine.swarm_nodes import swarm_factory

            self._trees[robot_id] = swarm_factory(self, robot_id).create_tree(self.bt_xml)
            self._trees[robot_id].setup_with_descendants()
        if body.owned:
            self.env.process(self._decide(robot_id, self._stagger(robot_id)))

    def _stagger(self, robot_id: str) -> int:
        """Offset of a robot's first tick (ms), so slow tick rates spread over the cycles."""
        slots = self.tick_ms // CYCLE_MS
        return (zlib.crc32(robot_id.encode()) % slots) * CYCLE_MS

    def remove_robot(self, robot_id: str) -> None:
        if self.bodies.pop(robot_id, None) is None:
            raise KeyError(f"no robot {robot_id!r}")
        self._trees.pop(robot_id, None)  # its process ends at its next wake-up

    def robot_ids(self) -> list[str]:
        return list(self.bodies)

    def entity_names(self) -> list[str]:
        return ["ball", *self.bodies]

    def set_ball(self, position: tuple[float, float, float],
                 velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> None:
        self.ball.x, self.ball.y, self.ball.z = position
        self.ball.vx, self.ball.vy = velocity[0], velocity[1]

    def set_joint_velocities(self, robot_id: str, speeds: dict[str, float]) -> list[str]:
        """Wheel speeds (lwe, rwe), clipped to the motors' limit; bad entries are reported."""
        body = self.bodies.get(robot_id)
        if body is None:
            return [f"no robot {robot_id!r}"]
        errors = []
        for name, speed in speeds.items():
            index = EFFECTORS.get(name)
            if index is None:
                errors.append(f"{robot_id}: unknown effector {name!r} (pusher has lwe, rwe)")
            elif not math.isfinite(speed):
                errors.append(f"{robot_id}: {name} speed {speed} is not a number")
            else:
                body.wheels[index] = min(max(float(speed), -MAX_WHEEL_SPEED), MAX_WHEEL_SPEED)
        return errors

    # ------------------------------------------------------------------ stepping
    def _decide(self, robot_id: str, offset_ms: int) -> Generator[simpy.Event, None, None]:
        """The robot's process: tick its tree every tick_ms, for as long as it exists."""
        if offset_ms:
            yield self.env.timeout(offset_ms)
        while robot_id in self.bodies:
            tree = self._trees.get(robot_id)
            if tree is not None:
                tree.tick_once()
            yield self.env.timeout(self.tick_ms)

    def step(self, dt: float | None = None) -> None:
        cycles = 1 if dt is None else max(1, round(dt / self.cycle_dt))
        for _ in range(cycles):
            self.position_names = list(self.bodies)
            self.positions = np.array([(b.x, b.y) for b in self.bodies.values()]).reshape(-1, 2)
            self.env.run(until=(self.cycle + 1) * CYCLE_MS)  # decisions of this cycle
            owned = [b for b in self.bodies.values() if b.owned]
            if self.ball.owned:
                self.ball.integrate(self.cycle_dt, list(self.bodies.values()), self.half_length, self.half_width)
            for body in owned:
                body.integrate(self.cycle_dt, self.half_length, self.half_width)
            self.cycle += 1
            self.time = self.cycle * self.cycle_dt

    # ------------------------------------------------------------------ snapshots
    def _entity(self, name: str) -> EntitySnapshot:
        return self.ball.to_entity() if name == "ball" else self.bodies[name].to_entity()

    def snapshot(self) -> Snapshot:
        return Snapshot(self.cycle, self.time, True, {n: self._entity(n) for n in self.entity_names()})

    def delta(self, only: set[str] | None = None) -> Snapshot:
        """Entities whose state changed since the previous delta() (all on the first call)."""
        changed: dict[str, EntitySnapshot] = {}
        names = self.entity_names()
        for name in names if only is None else [n for n in names if n in only]:
            e = self._entity(name)
            key = (e.position, e.orientation, e.linear_velocity, e.angular_velocity, e.joint_positions,
                   e.joint_velocities)
            if self._last_delta.get(name) != key:
                changed[name] = e
                self._last_delta[name] = key
        removed = tuple(n for n in self._last_delta if n not in names)
        for n in removed:
            del self._last_delta[n]
        return Snapshot(self.cycle, self.time, False, changed, removed)

    def apply_snapshot(self, snapshot: Snapshot, *, only: set[str] | None = None, forward: bool = True) -> None:
        """Set entity states (ghosts every step, everything on a resync). Robots this engine
        does not know are created as ghosts of any model (they are only mirrored)."""
        del forward  # nothing derived to recompute
        for name, e in snapshot.entities.items():
            if only is not None and name not in only:
                continue
            if name == "ball":
                self.ball.set_from(e)
                continue
            body = self.bodies.get(name)
            if body is None:
                if e.model in SUPPORTED_MODELS and self._is_owned(name):
                    self.add_robot(name, e.model, e.position[0], e.position[1], 0.0)
                    body = self.bodies[name]
                else:
                    body = self.bodies[name] = Body(name, e.model, 0.0, 0.0, 0.0, owned=False)
            body.set_from(e)
        for name in snapshot.removed:
            if (only is None or name in only) and name in self.bodies:
                self.remove_robot(name)
        if snapshot.full and only is None and snapshot.step != self.cycle:
            self._restart_clock(snapshot.step)

    def _restart_clock(self, cycle: int) -> None:
        """A resync to another cycle: SimPy time only runs forwards, so start a new clock."""
        self.cycle, self.time = cycle, cycle * self.cycle_dt
        self.env = simpy.Environment(initial_time=cycle * CYCLE_MS)
        for name, body in self.bodies.items():
            if body.owned:
                self.env.process(self._decide(name, self._stagger(name)))

