"""What every physics engine does the same way, whatever steps the physics: robot names and
model aliases, SimSpark's axes and beam height, rcssserver3d's ball drag law, the change
report of delta(), and the entity services built on add/remove.

Why one module: the MuJoCo and the gz-physics engines must agree on these to the byte (a
robot name one engine takes and the other refuses, or a delta one reports and the other
misses, would make the engines differ where physics does not)."""
from __future__ import annotations

import math
import re
from typing import Protocol

import numpy as np

from sim_physics.world.spec import ModelSpec, WorldSpec

MODEL_ALIASES: dict[str, str] = {"nao": "nao0"}
SIMSPARK_BEAM_HEIGHT = 0.4  # m, rcssserver3d's AgentRadius
# Robot names also name MJCF elements (and the gz-physics engine's monitor mirror is MuJoCo).
_ROBOT_ID = re.compile(r"[^\"<>&'\x00-\x1f\x7f]{1,128}")


def check_robot_id(robot_id: str) -> None:
    if not _ROBOT_ID.fullmatch(robot_id):
        raise ValueError(f"invalid robot name {robot_id[:80]!r}: 1-128 printable characters, none of \"<>&'")


def to_sim(v: np.ndarray) -> tuple[float, float, float]:
    """Model axes (x forward, y left, z up) -> SimSpark body axes (x right, y forward, z up)."""
    return (float(-v[1]), float(v[0]), float(v[2]))


def yaw_quat(yaw_deg: float) -> np.ndarray:
    h = math.radians(yaw_deg) / 2
    return np.array([math.cos(h), 0.0, 0.0, math.sin(h)])


def yaw_of(quat: tuple[float, float, float, float]) -> float:
    """Heading in degrees of a w-x-y-z orientation."""
    w, x, y, z = quat
    return math.degrees(math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))


def vec3(a: np.ndarray) -> tuple[float, float, float]:
    return (float(a[0]), float(a[1]), float(a[2]))


def quat(a: np.ndarray) -> tuple[float, float, float, float]:
    return (float(a[0]), float(a[1]), float(a[2]), float(a[3]))


def standing_height(spec: ModelSpec) -> float:
    """Where a robot's root is placed when it joins: an MJCF robot at the height its file
    gives (rcsssmj drops it from there), any other with its lowest collision shape 2 mm above
    the ground at zero joints."""
    if spec.mjcf is not None and spec.spawn_height > 0:
        return spec.spawn_height
    return shape_standing_height(spec)


def shape_standing_height(spec: ModelSpec) -> float:
    """Height of the model frame above the ground when the robot stands with zero joints: the
    lowest point of its collision shapes (link poses are in the model frame), 2 mm above."""
    lowest = 0.0
    for link in spec.links:
        for shape in link.collisions:
            pose = link.pose @ shape.pose
            rot, z = pose.rot, float(pose.pos[2])
            g = shape.geometry
            if g.shape == "box":
                extent = float(np.abs(rot[2]) @ (np.asarray(g.size) / 2))
            elif g.shape == "sphere":
                extent = g.size[0]
            elif g.shape in ("cylinder", "capsule"):  # along the local z axis
                extent = g.size[0] + abs(float(rot[2, 2])) * g.size[1] / 2
            else:
                continue
            lowest = min(lowest, z - extent)
    return -lowest + 0.002


def ball_drag_wrench(world: WorldSpec, v: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """rcssserver3d's ball DragController from the ball's velocities (world axes): force and
    torque, or None when the world has no drag."""
    linear, angular = world.ball_drag
    if linear == 0.0 and angular == 0.0:
        return None
    return -linear * v, -angular * w


class _Robots(Protocol):
    def add_robot(self, robot_id: str, model: str, x: float, y: float, yaw_deg: float) -> None: ...
    def remove_robot(self, robot_id: str) -> None: ...
    def robot_ids(self) -> list[str]: ...
    def robot_pose(self, robot_id: str) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]: ...


class EntityServices:
    """The services' entity calls and the robots' heading, in terms of the engine's robots."""

    def robot_yaw(self: _Robots, robot_id: str) -> float:
        return yaw_of(self.robot_pose(robot_id)[1])

    def spawn_entity(self: _Robots, name: str, model: str, pose: tuple[float, float, float, float]) -> None:
        """A robot model as a free entity: pose is (x, y, z, yaw_deg); z is ignored (stands)."""
        x, y, _z, yaw = pose
        self.add_robot(name, model, x, y, yaw)

    def delete_entity(self: _Robots, name: str) -> None:
        if name == "ball":
            raise ValueError("the ball belongs to the world and cannot be deleted")
        if name not in self.robot_ids():
            raise KeyError(f"no entity named {name!r}")
        self.remove_robot(name)
