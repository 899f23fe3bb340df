"""The match's frames for ROS viewers: /tf as each robot's tree and each robot's URDF as its
robot_description.

Why a module: the ROS node publishes these live and the replay log records them, from the
same conversion. Each robot is a tree as robot_state_publisher would make it from its URDF:
`world -> <entity>/<root link>`, then `<entity>/<parent> -> <entity>/<child>` per joint (the
entity name is the frame prefix, e.g. `Alpha/p7/torso`); fixed joints go once to
/tf_static. The ball is `world -> ball`. Poses come from the engine's link poses, so no
joint-state pipeline is needed to draw the match; a model whose joints are not known here
(an SDF given as text) keeps flat `world -> <entity>/<link>` frames.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from builtin_interfaces.msg import Time
from geometry_msgs.msg import TransformStamped
from sim_physics.world.sdf_loader import load_model
from sim_physics.world.transforms import quat_mul
from sim_physics.world.urdf import model_urdf

from tf2_msgs.msg import TFMessage

WORLD_FRAME = "world"


@dataclass(frozen=True)
class ModelTree:
    """A model's links as a tree: its root link and (parent, child, fixed) per joint."""
    root: str
    joints: tuple[tuple[str, str, bool], ...]


@lru_cache(maxsize=64)
def model_tree(model: str) -> ModelTree | None:
    try:
        spec = load_model(model)
    except (ValueError, OSError, KeyError):
        return None
    names = {link.name for link in spec.links}
    children = {j.child for j in spec.joints}
    roots = [link.name for link in spec.links if link.name not in children]
    if len(roots) != 1:
        return None
    joints = tuple((j.parent, j.child, j.kind != "revolute") for j in spec.joints
                   if j.parent in names and j.child in names)
    return ModelTree(roots[0], joints)


def _transform(parent: str, child: str, pose: Any, time: Time) -> TransformStamped:
    t = TransformStamped()
    t.header.stamp = time
    t.header.frame_id = parent
    t.child_frame_id = child
    tr, q = t.transform.translation, t.transform.rotation
    tr.x, tr.y, tr.z = float(pose[0]), float(pose[1]), float(pose[2])
    q.w, q.x, q.y, q.z = float(pose[3]), float(pose[4]), float(pose[5]), float(pose[6])
    return t


def relative_pose(parent: np.ndarray, child: np.ndarray) -> np.ndarray:
    """child's pose (x, y, z, qw, qx, qy, qz) in parent's frame, both given in the world."""
    conj = parent[3:] * np.array([1.0, -1.0, -1.0, -1.0])
    offset = np.concatenate(([0.0], child[:3] - parent[:3]))
    local = quat_mul(quat_mul(conj, offset), parent[3:])[1:]
    q = quat_mul(conj, child[3:])
    return np.concatenate((local, q / (np.linalg.norm(q) or 1.0)))


def tf_messages(names: list[str], poses: Any, models: dict[str, str], time: Time,
                static_done: set[str] | None = None) -> tuple[TFMessage, list[TransformStamped]]:
    """The moving frames as one /tf message, and the fixed joints of robots not in
    `static_done` (added to it) for /tf_static. names[i] = "ball" or "<entity>/<link>" at
    poses[i] in the world; models: entity -> its model."""
    rows = np.asarray(poses, dtype=float)
    index = {name: i for i, name in enumerate(names)}
    dynamic: list[TransformStamped] = []
    static: list[TransformStamped] = []
    placed: set[str] = set()
    for entity, model in models.items():
        tree = model_tree(model)
        root = f"{entity}/{tree.root}" if tree else ""
        if tree is None or root not in index:
            continue
        dynamic.append(_transform(WORLD_FRAME, root, rows[index[root]], time))
        placed.add(root)
        first = static_done is not None and entity not in static_done
        for parent, child, fixed in tree.joints:
            p, c = f"{entity}/{parent}", f"{entity}/{child}"
            if p not in index or c not in index:
                continue
            placed.add(c)
            if fixed and static_done is not None:
                if first:
                    static.append(_transform(p, c, relative_pose(rows[index[p]], rows[index[c]]), time))
                continue
            dynamic.append(_transform(p, c, relative_pose(rows[index[p]], rows[index[c]]), time))
        if first and static_done is not None:
            static_done.add(entity)
    for name, i in index.items():  # the ball, and links of robots without a known tree
        if name not in placed:
            dynamic.append(_transform(WORLD_FRAME, name, rows[i], time))
    return TFMessage(transforms=dynamic), static


def tf_message(names: list[str], poses: Any, time: Time, models: dict[str, str] | None = None) -> TFMessage:
    """Every frame on one message (the replay log's /tf: fixed joints included, as a log has
    no latched /tf_static for a reader that seeks)."""
    return tf_messages(names, poses, models or {}, time)[0]


def robot_description(model: str) -> str:
    """The URDF of one of our robot models (nao0..nao4, pusher, T1, K1, ...); its link names
    are the frames on /tf after the entity's prefix."""
    return model_urdf(load_model(model), model)
