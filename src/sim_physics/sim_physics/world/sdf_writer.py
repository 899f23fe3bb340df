"""A ModelSpec as SDF text, for engines that build from SDF (gz-physics) when the model did
not come from an SDF file: rcsssmj's MJCF robots and models registered from a spec.

Why only what the engines simulate: links with their inertials and collision shapes, revolute
and fixed joints with axes, ranges, effort, speed and passive damping/friction. Visuals and
monitor looks stay in the spec, which the drawings read."""
from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from sim_physics.world.spec import Geometry, JointSpec, LinkSpec, ModelSpec
from sim_physics.world.transforms import Transform


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


def _valid(tensor: np.ndarray) -> bool:
    """A rigid body's inertia: no principal moment above the sum of the other two."""
    moments = np.linalg.eigvalsh(tensor)
    return bool(2 * moments[-1] <= moments.sum() * (1 + 1e-9))


def inertia_with_rotors(link: LinkSpec, rotors: list[JointSpec]) -> np.ndarray:
    """The link's inertia tensor in its inertial frame, plus each rotor's armature about its
    joint's axis (the joints whose child the link is). A rotor's armature is not a rigid body's
    (a small link spun by a large one breaks the triangle inequality, which SDFormat refuses),
    so the least inertia across the axis that makes the sum one is added too: at most half the
    armature, a disc's."""
    tensor = np.diag(np.asarray(link.inertia, dtype=float))
    to_inertial = (link.pose.rot @ link.inertial_pose.rot).T  # model frame -> inertial frame
    for joint in rotors:
        axis = to_inertial @ np.asarray(joint.axis, dtype=float)
        axis /= np.linalg.norm(axis)
        across = np.eye(3) - np.outer(axis, axis)
        spun = tensor + joint.armature * np.outer(axis, axis)
        moments = np.linalg.eigvalsh(spun)
        shortfall = (moments[2] - moments[0] - moments[1]) / 2  # of the two moments across
        widened = spun + max(0.0, shortfall * (1 + 1e-6)) * across
        tensor = widened if _valid(widened) else spun + joint.armature / 2 * across
    return tensor


def model_sdf(spec: ModelSpec, *, armature_as_inertia: bool = False) -> str:
    """armature_as_inertia: for libraries without joint armature (DART), each joint's armature
    (an MJCF motor's reflected rotor inertia) is added to its child link's inertia about the
    joint's axis. The joint's own inertia then grows by the armature as in MuJoCo; other joints
    turning that link about the same axis see it too (a few per cent of a hip's or knee's)."""
    out = [f'<?xml version="1.0"?><sdf version="1.9"><model name={quoteattr(spec.name)}>']
    if spec.static:
        out.append("<static>true</static>")
    rotors: dict[str, list[JointSpec]] = {}
    if armature_as_inertia:
        for joint in spec.joints:
            if joint.kind == "revolute" and joint.armature > 0:
                rotors.setdefault(joint.child, []).append(joint)
    for link in spec.links:
        out.append(f"<link name={quoteattr(link.name)}>{_pose(link.pose)}")
        if link.mass > 0:
            i = inertia_with_rotors(link, rotors.get(link.name, []))
            out.append(f"<inertial>{_pose(link.inertial_pose)}<mass>{link.mass:.9g}</mass><inertia>"
                       f"<ixx>{i[0, 0]:.9g}</ixx><iyy>{i[1, 1]:.9g}</iyy><izz>{i[2, 2]:.9g}</izz>"
                       f"<ixy>{i[0, 1]:.9g}</ixy><ixz>{i[0, 2]:.9g}</ixz><iyz>{i[1, 2]:.9g}</iyz>"
                       "</inertia></inertial>")
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
