"""Behaviour-tree leaves for kinematic swarms (tags used in worlds/swarm_bt.xml).

Conditions read the engine's world as it was at the start of the cycle; actions set the
robot's wheel speeds. Randomness is derived from the seed and the robot's name with
crc32, never Python's hash(), so every process computes the same swarm."""
from __future__ import annotations

import math
import zlib
from typing import TYPE_CHECKING

import numpy as np
from py_trees.behaviour import Behaviour
from py_trees.common import Status

from sim_distributed.simpy_engine.kinematics import MAX_WHEEL_SPEED, Body
from sim_master.bt.loader import BehaviorTreeFactory, LeafFactory

if TYPE_CHECKING:
    from sim_distributed.simpy_engine.engine import SimpyEngine


class _SwarmLeaf(Behaviour):
    def __init__(self, name: str, engine: SimpyEngine, robot_id: str, attrs: dict[str, str]) -> None:
        super().__init__(name)
        self.engine = engine
        self.robot_id = robot_id
        self.attrs = attrs

    @property
    def body(self) -> Body:
        return self.engine.bodies[self.robot_id]

    def number(self, key: str, default: float) -> float:
        return float(self.attrs.get(key, default))

    def drive(self, left: float, right: float) -> None:
        self.engine.set_joint_velocities(self.robot_id, {"lwe": left, "rwe": right})

    def steer_to(self, heading: float, speed: float) -> None:
        """Forward at `speed` (wheel rad/s) while turning towards `heading` (rad)."""
        error = math.remainder(heading - self.body.yaw, math.tau)
        turn = max(-1.0, min(1.0, 2.0 * error)) * MAX_WHEEL_SPEED / 2
        forward = speed * max(0.0, math.cos(error))
        self.drive(forward - turn, forward + turn)


class NearBoundary(_SwarmLeaf):
    def update(self) -> Status:
        margin = self.number("margin", 1.5)
        b, e = self.body, self.engine
        near = abs(b.x) > e.half_length - margin or abs(b.y) > e.half_width - margin
        return Status.SUCCESS if near else Status.FAILURE


class TurnToCentre(_SwarmLeaf):
    def update(self) -> Status:
        b = self.body
        self.steer_to(math.atan2(-b.y, -b.x), self.number("speed", 6.0))
        return Status.RUNNING


def _nearest_ahead(leaf: _SwarmLeaf, distance: float) -> tuple[float, float] | None:
    """Offset (dx, dy) to the nearest other robot within `distance` and +-45 deg of heading."""
    e, b = leaf.engine, leaf.body
    if len(e.position_names) < 2:
        return None
    offsets = e.positions - (b.x, b.y)
    dist = np.hypot(offsets[:, 0], offsets[:, 1])
    ahead = offsets[:, 0] * math.cos(b.yaw) + offsets[:, 1] * math.sin(b.yaw)
    candidates = (dist > 1e-9) & (dist < distance) & (ahead > dist * math.cos(math.pi / 4))
    if not candidates.any():
        return None
    i = int(np.flatnonzero(candidates)[np.argmin(dist[candidates])])
    return float(offsets[i, 0]), float(offsets[i, 1])


class NeighbourAhead(_SwarmLeaf):
    def update(self) -> Status:
        found = _nearest_ahead(self, self.number("distance", 0.6))
        return Status.SUCCESS if found is not None else Status.FAILURE


class AvoidNeighbour(_SwarmLeaf):
    def update(self) -> Status:
        found = _nearest_ahead(self, self.number("distance", 0.8))
        if found is None:
            return Status.SUCCESS
        b = self.body
        side = found[0] * -math.sin(b.yaw) + found[1] * math.cos(b.yaw)  # > 0: it is on our left
        spin = self.number("speed", 8.0)
        if side >= 0:  # on our left (or dead ahead: both keep right): turn right, in place
            self.drive(spin, -spin)
        else:
            self.drive(-spin, spin)
        return Status.RUNNING


class Wander(_SwarmLeaf):
    def __init__(self, name: str, engine: SimpyEngine, robot_id: str, attrs: dict[str, str]) -> None:
        super().__init__(name, engine, robot_id, attrs)
        key = zlib.crc32(f"{engine.seed}:{robot_id}".encode())
        self.phase = (key % 6283) / 1000
        self.period = 4.0 + (key >> 13) % 5000 / 1000  # s: 4..9

    def update(self) -> Status:
        speed = self.number("speed", 10.0)
        curve = 0.35 * speed * math.sin(math.tau * self.engine.time / self.period + self.phase)
        self.drive(speed - curve, speed + curve)
        return Status.RUNNING


class GoToBall(_SwarmLeaf):
    def update(self) -> Status:
        b, ball = self.body, self.engine.ball
        self.steer_to(math.atan2(ball.y - b.y, ball.x - b.x), self.number("speed", 14.0))
        return Status.RUNNING


LEAVES: dict[str, type[_SwarmLeaf]] = {
    "NearBoundary": NearBoundary, "TurnToCentre": TurnToCentre, "NeighbourAhead": NeighbourAhead,
    "AvoidNeighbour": AvoidNeighbour, "Wander": Wander, "GoToBall": GoToBall,
}


def swarm_factory(engine: SimpyEngine, robot_id: str) -> BehaviorTreeFactory:
    """A factory whose leaves act for one robot of `engine`."""
    factory = BehaviorTreeFactory()
    for tag, cls in LEAVES.items():
        factory.register(tag, _leaf_maker(cls, engine, robot_id))
    return factory


def _leaf_maker(cls: type[_SwarmLeaf], engine: SimpyEngine, robot_id: str) -> LeafFactory:
    def make(name: str, attrs: dict[str, str]) -> Behaviour:
        return cls(name, engine, robot_id, attrs)
    return make
