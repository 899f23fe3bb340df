"""A ModelSpec as SDF text, for engines that build from SDF (gz-physics) when the model did
not come from an SDF file: rcsssmj's MJCF robots and models registered from a spec.

Why only what the engines simulate: links with their inertials and collision shapes, revolute
and fixed joints with axes, ranges, effort, speed and passive damping/friction. Visuals and
monitor looks stay in the spec, which the drawings read."""
from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from sim_master.world.spec import Geometry, ModelSpec
from sim_master.world.transforms import Transform


def _rpy(rot: np.ndarray) -> tuple[float, float, float]:
    """Rotation matrix -> SDF roll pitch yaw (R = Rz(yaw) Ry(pitch) Rx(roll))."""
    pitch = math.asin(max(-1.0, min(1.0, -float(rot[2, 0]))))
    if abs(math.cos(pitch)) > 1e-9:
        return math.atan2(float(rot[2, 1]), float(rot[2, 2])), pitch, math.atan2(float(rot[1, 0]), float(rot[0, 0]))
    return math.atan2(-float(rot[1, 2]), float(rot[1, 1])), pitch, 0.0


def _pose(t: Transform, relative_to: str | None = None) -> str:
    attr = f" relative_to={quoteattr(relative_to)}" if relative_to else ""
    numbers = (*t.pos.tolist(), *_rpy(t.rot))
    return f"<pose{attr}>{' '.join(f'{v:.9g}' for v in numbers)}</pose>"


def _geometry(g: Geometry) -> str:
    s = g.size
    if g.shape == "box":
        return f"<box><size>{s[0]:.9g} {s[1]:.9g} {s[2]:.9g}</size></box>"
    if g.shape == "sphere":
        return f"<sphere><radius>{s[0]:.9g}</radius></sphere>"
    if g.shape in ("cylinder", "capsule"):
        return f"<{g.shape}><radius>{s[0]:.9g}</radius><length>{s[1]:.9g}</length></{g.shape}>"
    if g.shape == "plane":
        return f"<plane><normal>0 0 1</normal><size>{s[0]:.9g} {s[1]:.9g}</size></plane>"
    raise ValueError(f"shape {g.shape!r} has no SDF form")


def model_sdf(spec: ModelSpec) -> str:
    out = [f'<?xml version="1.0"?><sdf version="1.9"><model name={quoteattr(spec.name)}>']
    if spec.static:
        out.append("<static>true</static>")
    for link in spec.links:
        out.append(f"<link name={quoteattr(link.name)}>{_pose(link.pose)}")
        if link.mass > 0:
            ixx, iyy, izz = link.inertia
            out.append(f"<inertial>{_pose(link.inertial_pose)}<mass>{link.mass:.9g}</mass><inertia>"
                       f"<ixx>{ixx:.9g}</ixx><iyy>{iyy:.9g}</iyy><izz>{izz:.9g}</izz>"
                       "<ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial>")
        for k, shape in enumerate(link.collisions):
            friction = "" if shape.friction is None else (
                f"<surface><friction><ode><mu>{shape.friction:.9g}</mu><mu2>{shape.friction:.9g}</mu2>"
                "</ode></friction></surface>")
            out.append(f"<collision name={quoteattr(f'{shape.name or link.name}_{k}')}>{_pose(shape.pose)}"
                       f"<geometry>{_geometry(shape.geometry)}</geometry>{friction}</collision>")
        out.append("</link>")
    for joint in spec.joints:
        kind = "revolute" if joint.kind == "revolute" else "fixed"
        out.append(f"<joint name={quoteattr(joint.name)} type={quoteattr(kind)}>"
                   f"<parent>{escape(joint.parent)}</parent><child>{escape(joint.child)}</child>"
                   f"{_pose(joint.pose, '__model__')}")
        if kind == "revolute":
            x, y, z = joint.axis
            limit = "".join(f"<{tag}>{value:.9g}</{tag}>" for tag, value in (
                ("lower", joint.lower), ("upper", joint.upper), ("effort", joint.effort), ("velocity", joint.velocity))
                if value and math.isfinite(value) and abs(value) < 1e8)
            out.append(f'<axis><xyz expressed_in="__model__">{x:.9g} {y:.9g} {z:.9g}</xyz><limit>{limit}</limit>'
                       f"<dynamics><damping>{joint.damping:.9g}</damping><friction>{joint.frictionloss:.9g}"
                       "</friction></dynamics></axis>")
        out.append("</joint>")
    out.append("</model></sdf>")
    return "".join(out)
