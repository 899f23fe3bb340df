"""Robot models from MuJoCo MJCF files (rcsssmj's T1, K1 and ant), read at run time.

Nothing is copied into this project: the files are read from the installed `rcsssmj`
package. The MuJoCo engine attaches such a file verbatim (every joint, contact and
actuator parameter as rcsssmj has it, `ModelSpec.mjcf`); this module gives everything
else what it needs to know about the robot, read through MuJoCo's own parser so that
every MJCF feature the file uses (classes, degrees, fromto, inertia from geoms) counts:
the body tree, inertials, collision shapes (a mesh becomes the box around its vertices,
the nearest primitive for engines and pictures that draw primitives), hinge joints with
their ranges, torque bounds and passive properties, the rcsssmj names (actuator
`<effector>_pos`, sensor `q_<perceptor>`, whose order is the perception order),
`<part>-vismarker` sites (vision parts), the `camera` site (head camera) and the IMU
(the gyro's site)."""
from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np

from sim_physics.world.mjcf_files import RCSSSMJ_MODELS, rcsssmj_models
from sim_physics.world.spec import Geometry, JointSpec, LinkSpec, ModelSpec, MonitorLook, Shape
from sim_physics.world.transforms import Transform, quat_matrix

_OBJ = mujoco.mjtObj
__all__ = ["RCSSSMJ_MODELS", "MjcfError", "load_mjcf_robot", "rcsssmj_models"]


class MjcfError(ValueError):
    """The MJCF cannot be read or is not a robot rcsssmj's protocol can drive."""


def _name(model: mujoco.MjModel, kind: mujoco.mjtObj, index: int) -> str:
    return mujoco.mj_id2name(model, kind, index) or ""


def _pose(pos: np.ndarray, quat: np.ndarray) -> Transform:
    return Transform(np.array(pos, dtype=float), quat_matrix(np.asarray(quat, dtype=float)))


# rcsssmj streams boxes, spheres and cylinders (capsules it leaves out)
_PRIMITIVES = {int(mujoco.mjtGeom.mjGEOM_BOX): "StdUnitBox", int(mujoco.mjtGeom.mjGEOM_SPHERE): "StdUnitSphere",
               int(mujoco.mjtGeom.mjGEOM_CYLINDER): "StdUnitCylinder"}


def _monitor_looks(path: Path, name: str, model: mujoco.MjModel, links: dict[int, LinkSpec]) -> None:
    """Every geom of the robot as rcsssmj's monitor stream names it: meshes as
    `models/<robot>/<file>` (mirrored ones with their negative scale), primitives as unit
    shapes, each with its MJCF material; collision-only geoms (material `transparent`) hidden."""
    try:
        parsed = mujoco.MjSpec.from_file(str(path))  # held while its meshes are read (they point into it)
        files = {m.name: (Path(m.file).name, (float(m.scale[0]), float(m.scale[1]), float(m.scale[2])))
                 for m in parsed.meshes}
    except (ValueError, OSError):
        files = {}
    for g in range(model.ngeom):
        b = int(model.geom_bodyid[g])
        if b not in links:
            continue
        kind = int(model.geom_type[g])
        material = _name(model, _OBJ.mjOBJ_MATERIAL, int(model.geom_matid[g])) if model.geom_matid[g] >= 0 else ""
        pose = _pose(model.geom_pos[g], model.geom_quat[g])
        scale: tuple[float, float, float] | None
        if kind == int(mujoco.mjtGeom.mjGEOM_MESH):
            mesh = _name(model, _OBJ.mjOBJ_MESH, int(model.geom_dataid[g]))
            file, mesh_scale = files.get(mesh, (f"{mesh}.STL", (1.0, 1.0, 1.0)))
            load, scale = f"models/{name}/{file}", (mesh_scale if mesh_scale != (1.0, 1.0, 1.0) else None)
            # MuJoCo moves a mesh's frame to its centroid and principal axes: the file's own
            # frame, which the monitor's mesh is drawn in, is the geom's frame undoing that
            m = int(model.geom_dataid[g])
            pose = pose @ _pose(model.mesh_pos[m], model.mesh_quat[m]).inverse()
        elif kind in _PRIMITIVES:
            size = model.geom_size[g]
            if kind == int(mujoco.mjtGeom.mjGEOM_BOX):
                scale = (2 * float(size[0]), 2 * float(size[1]), 2 * float(size[2]))
            elif kind == int(mujoco.mjtGeom.mjGEOM_SPHERE):
                scale = (float(size[0]),) * 3
            else:
                scale = (float(size[0]), float(size[0]), 2 * float(size[1]))
            load = _PRIMITIVES[kind]
        else:
            continue
        r, g_, b_, a = (float(v) for v in model.geom_rgba[g])
        links[b].looks.append(MonitorLook(load, material, pose, scale, material != "transparent",
                                          None if material else (r, g_, b_, a)))


def load_mjcf_robot(path: Path, name: str) -> ModelSpec:
    """The ModelSpec of a robot MJCF whose first world body is the robot's root (free) body."""
    try:
        model = mujoco.MjModel.from_xml_path(str(path))
    except (ValueError, OSError) as exc:
        raise MjcfError(f"{path}: {exc}") from exc
    if model.nbody < 2:
        raise MjcfError(f"{path}: no robot body in <worldbody>")
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    root = 1
    root_pose = _pose(data.xpos[root], data.xquat[root])
    to_model = root_pose.inverse()
    spec = ModelSpec(name=name)
    spec.mjcf = path
    spec.spawn_height = float(model.body_pos[root][2])

    effector_of: dict[int, str] = {}
    for a in range(model.nu):
        actuator = _name(model, _OBJ.mjOBJ_ACTUATOR, a)
        if actuator.endswith("_pos") and model.actuator_trntype[a] == mujoco.mjtTrn.mjTRN_JOINT:
            effector_of[int(model.actuator_trnid[a, 0])] = actuator[:-len("_pos")]
    perceptor_of: dict[int, str] = {}
    order: list[str] = []
    imu_sites: set[int] = set()
    for s in range(model.nsensor):
        sensor = _name(model, _OBJ.mjOBJ_SENSOR, s)
        if model.sensor_type[s] == mujoco.mjtSensor.mjSENS_JOINTPOS and sensor.startswith("q_"):
            perceptor_of[int(model.sensor_objid[s])] = sensor[2:]
            order.append(sensor[2:])
        elif model.sensor_type[s] == mujoco.mjtSensor.mjSENS_GYRO:
            imu_sites.add(int(model.sensor_objid[s]))
    spec.joint_order = tuple(order)

    links: dict[int, LinkSpec] = {}
    for b in range(root, model.nbody):
        pose = to_model @ _pose(data.xpos[b], data.xquat[b])
        link = LinkSpec(_name(model, _OBJ.mjOBJ_BODY, b) or f"body{b}", pose)
        link.mass = float(model.body_mass[b])
        ixx, iyy, izz = (float(v) for v in model.body_inertia[b])
        link.inertia = (ixx, iyy, izz)
        link.inertial_pose = _pose(model.body_ipos[b], model.body_iquat[b])
        links[b] = link
        spec.links.append(link)
    for g in range(model.ngeom):
        b = int(model.geom_bodyid[g])
        if b not in links or (model.geom_contype[g] == 0 and model.geom_conaffinity[g] == 0):
            continue  # world geoms and visuals
        shape = _shape(model, g)
        if shape is not None:
            links[b].collisions.append(shape)
    _monitor_looks(path, name, model, links)
    for s in range(model.nsite):
        b = int(model.site_bodyid[s])
        if b not in links:
            continue
        site = _name(model, _OBJ.mjOBJ_SITE, s)
        if site.endswith("-vismarker"):
            links[b].vision_part = site[:-len("-vismarker")]
        elif site == "camera":
            links[b].camera_fov = 2.0944  # 120 degrees, the rcsssmj vision cone
        if s in imu_sites:
            links[b].imu = True

    for j in range(model.njnt):
        b = int(model.jnt_bodyid[j])
        kind = model.jnt_type[j]
        if kind == mujoco.mjtJoint.mjJNT_FREE:
            if b != root:
                raise MjcfError(f"{path}: a free joint below the root body")
            continue
        if kind != mujoco.mjtJoint.mjJNT_HINGE:
            raise MjcfError(f"{path}: joint {_name(model, _OBJ.mjOBJ_JOINT, j)!r} is not a hinge")
        mjcf_name = _name(model, _OBJ.mjOBJ_JOINT, j)
        effector = effector_of.get(j)
        if effector is None:
            raise MjcfError(f"{path}: no <position name=\"..._pos\"> actuator for joint {mjcf_name!r}")
        child = links[b]
        parent = links[int(model.body_parentid[b])]
        lower, upper = (float(v) for v in model.jnt_range[j]) if model.jnt_limited[j] else (-1e9, 1e9)
        effort = float(model.jnt_actfrcrange[j][1]) if model.jnt_actfrclimited[j] else 0.0
        dof = int(model.jnt_dofadr[j])
        name_ = perceptor_of.get(j, mjcf_name)
        spec.mjcf_joints[name_] = mjcf_name
        spec.joints.append(JointSpec(
            name_, "revolute", parent.name, child.name,
            child.pose @ Transform(np.array(model.jnt_pos[j], dtype=float), np.eye(3)),
            _vec3(child.pose.rot @ model.jnt_axis[j]),
            lower, upper, effort, 0.0, effector,
            float(model.dof_damping[dof]), float(model.dof_armature[dof]), float(model.dof_frictionloss[dof])))
    for b, link in links.items():
        if b != root and model.body_jntnum[b] == 0:
            spec.joints.append(JointSpec(f"{link.name}_fixed", "fixed", links[int(model.body_parentid[b])].name,
                                         link.name, link.pose))
    return spec


def _shape(model: mujoco.MjModel, g: int) -> Shape | None:
    kind, size = model.geom_type[g], model.geom_size[g]
    name = _name(model, _OBJ.mjOBJ_GEOM, g) or f"geom{g}"
    pose = _pose(model.geom_pos[g], model.geom_quat[g])
    if kind == mujoco.mjtGeom.mjGEOM_BOX:
        geometry = Geometry("box", tuple(2 * float(s) for s in size))  # half sizes -> sizes
    elif kind == mujoco.mjtGeom.mjGEOM_SPHERE:
        geometry = Geometry("sphere", (float(size[0]),))
    elif kind in (mujoco.mjtGeom.mjGEOM_CAPSULE, mujoco.mjtGeom.mjGEOM_CYLINDER):
        shape = "capsule" if kind == mujoco.mjtGeom.mjGEOM_CAPSULE else "cylinder"
        geometry = Geometry(shape, (float(size[0]), 2 * float(size[1])))  # radius, half length -> length
    elif kind == mujoco.mjtGeom.mjGEOM_MESH:
        mesh = int(model.geom_dataid[g])
        start, count = int(model.mesh_vertadr[mesh]), int(model.mesh_vertnum[mesh])
        vertices = model.mesh_vert[start:start + count]  # in the geom's frame
        low, high = vertices.min(axis=0), vertices.max(axis=0)
        pose = pose @ Transform((low + high) / 2, np.eye(3))
        geometry = Geometry("box", tuple(float(v) for v in np.maximum(high - low, 1e-3)))
    else:
        return None  # planes, ellipsoids, height fields: not robot parts here
    return Shape(name, pose, geometry)


def _vec3(v: np.ndarray) -> tuple[float, float, float]:
    return (float(v[0]), float(v[1]), float(v[2]))
