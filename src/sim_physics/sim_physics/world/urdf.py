"""A model's URDF, generated from its engine-neutral spec, for ROS tools that draw robots
(RViz's RobotModel, Foxglove's 3D panel) from a `robot_description`.

Why generated: our models are SDF (Gazebo's format) or rcsssmj's MJCF; ROS viewers read
URDF. Each link gets its collision shapes as visual and collision geometry and its inertia;
each joint its axis and limits, with the joint frame at the child link's origin (where our
links and their frames on /tf are). URDF has no capsule: a capsule becomes a cylinder of its
radius over its full length. The link frames on /tf are named `<entity>/<link>`, so a viewer
given the entity as its TF prefix draws each robot.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from xml.sax.saxutils import quoteattr

import numpy as np

from sim_physics.world.spec import Geometry, LinkSpec, ModelSpec, Shape
from sim_physics.world.transforms import Transform


def model_urdf(spec: ModelSpec, name: str | None = None) -> str:
    by_child = {j.child: j for j in spec.joints}
    links = {link.name: link for link in spec.links}
    out = [f"<?xml version=\"1.0\"?>\n<robot name={quoteattr(name or spec.name or 'model')}>"]
    for link in spec.links:
        out.append(_link(link))
    for link in spec.links:
        joint = by_child.get(link.name)
        if joint is None or joint.parent not in links:
            continue
        parent = links[joint.parent]
        origin = parent.pose.inverse() @ link.pose
        axis = link.pose.rot.T @ np.asarray(joint.axis, dtype=float)
        norm = float(np.linalg.norm(axis)) or 1.0
        kind = "revolute" if joint.kind == "revolute" else "fixed"
        parts = [f'  <joint name={quoteattr(joint.name)} type="{kind}">', _origin(origin),
                 f"    <parent link={quoteattr(parent.name)}/>", f"    <child link={quoteattr(link.name)}/>"]
        if kind == "revolute":
            parts.append(f'    <axis xyz="{_v(axis / norm)}"/>')
            lower, upper = max(joint.lower, -1e4), min(joint.upper, 1e4)
            parts.append(f'    <limit lower="{lower:.6g}" upper="{upper:.6g}" effort="{joint.effort or 10.0:g}" '
                         f'velocity="{joint.velocity or 6.1395:g}"/>')
        parts.append("  </joint>")
        out.append("\n".join(parts))
    out.append("</robot>\n")
    return "\n".join(out)


def _link(link: LinkSpec) -> str:
    parts = [f"  <link name={quoteattr(link.name)}>"]
    if link.mass > 0:
        ixx, iyy, izz = (max(v, 1e-9) for v in link.inertia)
        parts += ["    <inertial>", _origin(link.inertial_pose, "      "), f'      <mass value="{link.mass:.6g}"/>',
                  f'      <inertia ixx="{ixx:.6g}" ixy="0" ixz="0" iyy="{iyy:.6g}" iyz="0" izz="{izz:.6g}"/>',
                  "    </inertial>"]
    for shape in link.visuals or link.collisions:
        parts.append(_shape("visual", shape))
    for shape in link.collisions:
        parts.append(_shape("collision", shape))
    parts.append("  </link>")
    return "\n".join(parts)


def _shape(tag: str, shape: Shape) -> str:
    geometry = _geometry(shape.geometry)
    if geometry is None:
        return ""
    return (f"    <{tag} name={quoteattr(shape.name)}>\n{_origin(shape.pose, '      ')}\n"
            f"      <geometry>{geometry}</geometry>\n    </{tag}>")


def _geometry(g: Geometry) -> str | None:
    if g.shape == "box":
        return f'<box size="{_v(g.size[:3])}"/>'
    if g.shape == "sphere":
        return f'<sphere radius="{g.size[0]:.6g}"/>'
    if g.shape == "cylinder":
        return f'<cylinder radius="{g.size[0]:.6g}" length="{g.size[1]:.6g}"/>'
    if g.shape == "capsule":
        return f'<cylinder radius="{g.size[0]:.6g}" length="{g.size[1] + 2 * g.size[0]:.6g}"/>'
    return None  # planes and meshes are not drawn


def _origin(t: Transform, indent: str = "    ") -> str:
    return f'{indent}<origin xyz="{_v(t.pos)}" rpy="{_v(_rpy(t.rot))}"/>'


def _rpy(r: np.ndarray) -> tuple[float, float, float]:
    """URDF's fixed-axis roll, pitch, yaw of a rotation matrix (R = Rz Ry Rx)."""
    pitch = math.asin(max(-1.0, min(1.0, -float(r[2, 0]))))
    if abs(math.cos(pitch)) > 1e-9:
        roll = math.atan2(float(r[2, 1]), float(r[2, 2]))
        yaw = math.atan2(float(r[1, 0]), float(r[0, 0]))
    else:  # gimbal lock: all the rotation about z
        roll, yaw = 0.0, math.atan2(-float(r[0, 1]), float(r[1, 1]))
    return (roll, pitch, yaw)


def _v(values: Iterable[float]) -> str:
    return " ".join(f"{float(v):.6g}" for v in values)
