"""The match's frames for ROS viewers: /tf (every link of every robot and the ball in the
world frame) and each robot model's URDF as its robot_description.

Why a module: the ROS node publishes these live and the replay log records them, from the
same conversion; a frame is `<entity>/<link>` under `world` (flat: each link's world pose,
as the engine has it, so no joint-state pipeline is needed to draw the match).
"""
from __future__ import annotations

from typing import Any

from builtin_interfaces.msg import Time
from geometry_msgs.msg import TransformStamped

from sim_master.world.sdf_loader import load_model
from sim_master.world.urdf import model_urdf
from tf2_msgs.msg import TFMessage

WORLD_FRAME = "world"


def tf_message(names: list[str], poses: Any, time: Time) -> TFMessage:
    """names[i] at poses[i] = (x, y, z, qw, qx, qy, qz) in the world frame."""
    transforms = []
    for name, p in zip(names, poses.tolist(), strict=True):
        t = TransformStamped()
        t.header.stamp = time
        t.header.frame_id = WORLD_FRAME
        t.child_frame_id = name
        tr, q = t.transform.translation, t.transform.rotation
        tr.x, tr.y, tr.z = p[0], p[1], p[2]
        q.w, q.x, q.y, q.z = p[3], p[4], p[5], p[6]
        transforms.append(t)
    return TFMessage(transforms=transforms)


def robot_description(model: str) -> str:
    """The URDF of one of our robot models (nao0..nao4, pusher, T1, K1, ...)."""
    return model_urdf(load_model(model), model)
