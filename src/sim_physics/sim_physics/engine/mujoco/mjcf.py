"""WorldSpec / ModelSpec -> MJCF text. One place knows both formats.

Contact bits: world geoms (ground, goals, ball) collide with everything; every robot owns
one bit so that it collides with the world and with other robots but never with itself
(links of one robot overlap at the joints, as in the SimSpark models). With more than 30
robots, bits repeat and robots sharing a bit pass through each other."""
from __future__ import annotations

from typing import Final
from xml.sax.saxutils import quoteattr

import numpy as np

from sim_physics.world.spec import LinkSpec, ModelSpec, Shape, WorldSpec
from sim_physics.world.transforms import Transform

WORLD_BIT: Final = 1
ROBOT_BITS: Final = 30
ALL_BITS: Final = (1 << (ROBOT_BITS + 1)) - 1
# SimSpark hinge effector = ODE velocity motor (a velocity constraint with a bounded force,
# solved with the contacts): a dof friction constraint of the joint's effort whose
# reference acceleration the engine points at the commanded speed (engine._substep).
# Its impedance: how much of the constraint-free motion leaks through (1 - d).
MOTOR_SOLIMP: Final = "0.99 0.99 0.001 0.5 2"
PD_ARMATURE: Final = 0.005  # kg m^2, only while a SimSpark model's joint runs an agent's PD law


def robot_bit(index: int) -> int:
    return 1 << (1 + index % ROBOT_BITS)


def _v(values) -> str:
    return " ".join(f"{float(x):.6g}" for x in values)


def _geom(shape: Shape, name: str, contype: int, conaffinity: int, extra: str = "") -> str:
    g = shape.geometry
    pose = f'pos="{_v(shape.pose.pos)}" quat="{_v(shape.pose.quat())}"'
    if g.shape == "box":
        size = _v(np.asarray(g.size) / 2)
    elif g.shape == "sphere":
        size = _v(g.size)
    elif g.shape in ("cylinder", "capsule"):
        size = _v((g.size[0], g.size[1] / 2))
    else:  # plane
        size = _v((g.size[0] / 2, g.size[1] / 2, 0.1))
    if shape.friction is not None and "friction=" not in extra:  # MuJoCo takes the larger of two geoms'
        extra = f'friction="{shape.friction:g} 0.005 0.0001" {extra}'
    return (f'<geom name={quoteattr(name)} type="{g.shape}" size="{size}" {pose} '
            f'contype="{contype}" conaffinity="{conaffinity}" {extra}/>')


def _inertial(link: LinkSpec) -> str:
    if link.mass <= 0:
        return ""
    ip = link.inertial_pose
    return (f'<inertial pos="{_v(ip.pos)}" quat="{_v(ip.quat())}" mass="{link.mass:.6g}" '
            f'diaginertia="{_v(link.inertia)}"/>')


def static_world_mjcf(world: WorldSpec) -> str:
    """Ground, goals and ball of a world (robots are added separately). The options are
    rcsssmj's (MuJoCo's defaults: Euler, Newton, 100 iterations) so that its robots move
    here exactly as there; the air is the world's."""
    parts: list[str] = []
    for model in world.models:
        if model.is_ball:
            link = model.links[0]
            pose = model.pose @ link.pose
            geoms = "".join(
                _geom(c, "ball", WORLD_BIT, ALL_BITS,
                      f'condim="6" friction="{_v(world.ball_friction)}" solref="{_v(world.ball_solref)}" '
                      'priority="1"')
                for c in link.collisions)
            parts.append(f'<body name="ball" pos="{_v(pose.pos)}"><freejoint name="ball"/>'
                         f"{_inertial(link)}{geoms}</body>")
            continue
        for link in model.links:
            pose = model.pose @ link.pose
            for c in link.collisions:
                shape = Shape(c.name, pose @ c.pose, c.geometry)
                parts.append(_geom(shape, f"{model.name}/{c.name}", WORLD_BIT, ALL_BITS))
    gx, gy, gz = world.gravity
    return f"""<mujoco model={quoteattr(world.name)}>
  <compiler angle="radian" autolimits="true"/>
  <option timestep="{world.timestep:g}" gravity="{gx:g} {gy:g} {gz:g}" integrator="Euler"
          cone="{world.contact_cone}" solver="Newton" iterations="100" ls_iterations="50"
          density="{world.air_density:g}" viscosity="{world.air_viscosity:g}"/>
  <size memory="64M"/>
  <default><geom friction="1 0.005 0.0001" solref="{_v(world.contact_solref)}"/></default>
  <worldbody>
    <light pos="0 0 20" dir="0 0 -1" directional="true"/>
    {"".join(parts)}
    <!--robots-->
  </worldbody>
  <actuator><!--actuators--></actuator>
  <sensor><!--sensors--></sensor>
</mujoco>"""


def robot_mjcf(model: ModelSpec, robot_id: str, index: int, pose: Transform) -> tuple[str, str, str]:
    """(body XML for the worldbody, actuator XML, sensor XML) of one robot named robot_id."""
    bit = robot_bit(index)
    affinity = (ALL_BITS & ~bit) | WORLD_BIT
    by_child = {j.child: j for j in model.joints}
    children: dict[str, list[LinkSpec]] = {}
    for link in model.links:
        joint = by_child.get(link.name)
        if joint is not None:
            children.setdefault(joint.parent, []).append(link)
    actuators: list[str] = []

    def body(link: LinkSpec, parent_pose: Transform) -> str:
        rel = parent_pose.inverse() @ link.pose
        name = f"{robot_id}/{link.name}"
        inner: list[str] = []
        joint = by_child.get(link.name)
        if joint is None:
            inner.append(f'<freejoint name="{robot_id}/root"/>')
        elif joint.kind == "revolute":
            jpos = link.pose.inverse() @ joint.pose
            axis = link.pose.rot.T @ np.asarray(joint.axis)
            jname = f"{robot_id}/{joint.name}"
            inner.append(f'<joint name="{jname}" type="hinge" pos="{_v(jpos.pos)}" axis="{_v(axis)}" '
                         f'range="{joint.lower:.6g} {joint.upper:.6g}" '
                         f'damping="{joint.damping:g}" armature="{joint.armature:g}" '
                         f'frictionloss="{joint.frictionloss:g}" solimpfriction="{MOTOR_SOLIMP}"/>')
            effort = joint.effort or 10.0
            actuators.append(f'<general name="{robot_id}/{joint.effector or joint.name}" joint="{jname}" '
                             f'gaintype="fixed" gainprm="1" biastype="affine" '
                             f'biasprm="0 0 0" forcerange="{-effort:g} {effort:g}"/>')
        inner.append(_inertial(link))
        for i, c in enumerate(link.collisions):
            inner.append(_geom(c, f"{name}/c{i}", bit, affinity))
        if link.imu:
            inner.append(f'<site name="{robot_id}/imu" pos="0 0 0"/>')
        for child in children.get(link.name, []):
            inner.append(body(child, link.pose))
        return (f'<body name="{name}" pos="{_v(rel.pos)}" quat="{_v(rel.quat())}">'
                f'{"".join(inner)}</body>')

    xml = body(model.root_link(), pose.inverse())  # the root body sits at pose @ root.pose
    sensors = (f'<gyro name="{robot_id}/gyro" site="{robot_id}/imu"/>'
               f'<accelerometer name="{robot_id}/acc" site="{robot_id}/imu"/>'
               if any(link.imu for link in model.links) else "")
    return xml, "".join(actuators), sensors
