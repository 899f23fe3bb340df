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

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from builtin_interfaces.msg import Time
from geometry_msgs.msg import TransformStamped
from sim_physics.world.sdf_loader import load_model
from sim_physics.world.urdf import model_urdf

from sim_master.ros.tf_cdr import WORLD_FRAME, FrameLink, TfLayout, plan_links
from tf2_msgs.msg import TFMessage

__all__ = ["WORLD_FRAME", "model_tree", "robot_description", "tf_cdr", "tf_message", "tf_messages"]


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


def _transform(link: FrameLink, value: np.ndarray, time: Time) -> TransformStamped:
    t = TransformStamped()
    t.header.stamp = time
    t.header.frame_id = link.parent
    t.child_frame_id = link.child
    tr, q = t.transform.translation, t.transform.rotation
    tr.x, tr.y, tr.z = float(value[0]), float(value[1]), float(value[2])
    q.x, q.y, q.z, q.w = float(value[3]), float(value[4]), float(value[5]), float(value[6])
    return t


@lru_cache(maxsize=8)
def _layouts(names: tuple[str, ...], models: tuple[tuple[str, str], ...], fixed: bool) -> tuple[TfLayout, TfLayout]:
    """(moving, fixed joints) of these frames: planned once while the robots stay the same."""
    trees = []
    for entity, model in models:
        tree = model_tree(model)
        trees.append((entity, tree.root if tree else None, tree.joints if tree else ()))
    moving, still = plan_links(names, trees, fixed=fixed)
    return TfLayout(moving), TfLayout(still)


def tf_messages(names: list[str], poses: Any, models: dict[str, str], time: Time,
                static_done: set[str] | None = None) -> tuple[TFMessage, list[TransformStamped]]:
    """The moving frames as one /tf message, and the fixed joints of robots not in
    `static_done` (added to it) for /tf_static. names[i] = "ball" or "<entity>/<link>" at
    poses[i] in the world; models: entity -> its model."""
    moving, still = _layouts(tuple(names), tuple(models.items()), static_done is None)
    values = moving.values(poses)
    dynamic = [_transform(link, values[i], time) for i, link in enumerate(moving.links)]
    static: list[TransformStamped] = []
    if static_done is not None:
        fixed_values = still.values(poses)
        static = [_transform(link, fixed_values[i], time) for i, link in enumerate(still.links)
                  if link.entity not in static_done]
        static_done.update(link.entity for link in moving.links if link.entity)
    return TFMessage(transforms=dynamic), static


def tf_cdr(names: list[str], poses: Any, time: Time, models: dict[str, str] | None = None, *,
           fixed: bool = True, rounding: Callable[[np.ndarray], np.ndarray] | None = None) -> bytes:
    """The moving frames' /tf message as CDR bytes (`tf_cdr.py`); with `fixed` (the replay
    log) the fixed joints too, as a log has no latched /tf_static for a reader that seeks;
    `rounding`: the numbers as the log keeps them (store/log_precision.py)."""
    moving, _ = _layouts(tuple(names), tuple((models or {}).items()), fixed)
    values = moving.values(poses)
    return moving.encode(rounding(values) if rounding else values, time.sec, time.nanosec)


def tf_message(names: list[str], poses: Any, time: Time, models: dict[str, str] | None = None) -> TFMessage:
    """Every frame on one message, fixed joints included (what the log's /tf holds)."""
    return tf_messages(names, poses, models or {}, time)[0]


def robot_description(model: str) -> str:
    """The URDF of one of our robot models (nao0..nao4, pusher, T1, K1, ...); its link names
    are the frames on /tf after the entity's prefix."""
    return model_urdf(load_model(model), model)
