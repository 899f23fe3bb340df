"""Robot models from MuJoCo MJCF files (rcsssmj's T1 and K1), read at run time into the
same ModelSpec the SDF loader makes, so the engine builds them like any other robot.

Nothing is copied into this project: the files are read from the installed `rcsssmj`
package. What is read: the body tree (pos/quat), inertials, collision geoms (box, sphere,
capsule, cylinder; meshes are visuals and are left out), hinge joints with their ranges and
their default class's torque range, the rcsssmj names (actuator `<effector>_pos`, sensor
`q_<perceptor>`, whose order is the perception order), `<part>-vismarker` sites (vision
parts), the `camera` site (head camera) and the `torso` site's gyro (IMU). A mesh collision geom (K1's head and arms) becomes the box
around its vertices, read from the STL: the nearest primitive, MuJoCo would use the hull."""
from __future__ import annotations

import importlib.util
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from sim_master.world.spec import Geometry, JointSpec, LinkSpec, ModelSpec, Shape
from sim_master.world.transforms import Transform, quat_matrix

RCSSSMJ_MODELS = ("T1", "K1")


class MjcfError(ValueError):
    """The MJCF uses something this importer does not read."""


def rcsssmj_models() -> dict[str, Path]:
    """The rcsssmj robot files that exist here ({} when rcsssmj is not installed)."""
    found = importlib.util.find_spec("rcsssmj")
    if found is None or not found.submodule_search_locations:
        return {}
    robots = Path(next(iter(found.submodule_search_locations))) / "resources" / "robots"
    return {name: robots / name / "robot.xml" for name in RCSSSMJ_MODELS if (robots / name / "robot.xml").exists()}


def _floats(text: str | None, n: int, default: tuple[float, ...], where: str) -> tuple[float, ...]:
    if text is None:
        return default
    values = tuple(float(v) for v in text.split())
    if len(values) != n:
        raise MjcfError(f"{where}: expected {n} numbers, got {text!r}")
    return values


def _local(el: ET.Element, where: str) -> Transform:
    for unsupported in ("euler", "axisangle", "xyaxes", "zaxis", "fromto"):
        if el.get(unsupported) is not None:
            raise MjcfError(f"{where}: attribute {unsupported!r} is not supported (use pos/quat)")
    pos = np.array(_floats(el.get("pos"), 3, (0.0, 0.0, 0.0), where))
    quat = np.array(_floats(el.get("quat"), 4, (1.0, 0.0, 0.0, 0.0), where))
    return Transform(pos, quat_matrix(quat / np.linalg.norm(quat)))


def _class_attrs(root: ET.Element) -> dict[str, dict[str, str]]:
    """Attributes of <joint>/<geom> per default class (one level of nesting is enough here);
    the top default's under the class name "" and merged into every class."""
    out: dict[str, dict[str, str]] = {}
    for default in root.iter("default"):
        name = default.get("class") or ""
        for child in default:
            if child.tag != "default":
                out[f"{child.tag}:{name}"] = dict(child.attrib)
    for key in list(out):
        tag, name = key.split(":", 1)
        if name:
            out[key] = {**out.get(f"{tag}:", {}), **out[key]}
    return out


def load_mjcf_robot(path: Path, name: str) -> ModelSpec:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise MjcfError(f"{path}: {exc}") from exc
    compiler = root.find("compiler")
    if compiler is not None and compiler.get("angle", "degree") != "radian":
        raise MjcfError(f"{path}: only angle=\"radian\" is supported")
    classes = _class_attrs(root)
    meshdir = path.parent / (compiler.get("meshdir", "") if compiler is not None else "")
    meshes = {m.get("name") or Path(m.get("file", "")).stem: (meshdir / m.get("file", ""),
                                                              _floats(m.get("scale"), 3, (1.0, 1.0, 1.0), str(path)))
              for m in root.iter("mesh") if m.get("file")}
    effector_of = {a.get("joint", ""): (a.get("name") or "")[:-len("_pos")]
                   for a in root.iter("position") if (a.get("name") or "").endswith("_pos")}
    sensors = [s for s in root.iter("jointpos") if (s.get("name") or "").startswith("q_")]
    perceptor_of = {s.get("joint", ""): (s.get("name") or "")[2:] for s in sensors}
    torso = root.find("worldbody/body")
    if torso is None:
        raise MjcfError(f"{path}: no robot body in <worldbody>")
    spec = ModelSpec(name=name)
    spec.joint_order = tuple(perceptor_of[s.get("joint", "")] for s in sensors)
    gyro_sites = {s.get("site") for s in root.iter("gyro")}

    def visit(body: ET.Element, parent: LinkSpec | None, parent_pose: Transform) -> None:
        link_name = body.get("name") or f"body{len(spec.links)}"
        where = f"{path.name} body {link_name!r}"
        pose = Transform.identity() if parent is None else parent_pose @ _local(body, where)
        link = LinkSpec(link_name, pose)
        inertial = body.find("inertial")
        if inertial is not None:
            link.mass = float(inertial.get("mass", "0"))
            link.inertia = _floats(inertial.get("diaginertia"), 3, (0.0, 0.0, 0.0), where)  # type: ignore[assignment]
            if inertial.get("fullinertia") is not None:
                raise MjcfError(f"{where}: fullinertia is not supported")
            link.inertial_pose = _local(inertial, where)
        for i, geom in enumerate(body.findall("geom")):
            attrs = {**classes.get(f"geom:{geom.get('class') or ''}", {}), **geom.attrib}
            if attrs.get("contype") == "0" and attrs.get("conaffinity") == "0":
                continue  # visual only
            pose_in_link = _local(geom, where)
            if attrs.get("type") == "mesh":
                mesh_file, scale = meshes[attrs.get("mesh", "")]
                centre, geometry = _mesh_box(mesh_file, np.array(scale), where)
                pose_in_link = pose_in_link @ Transform(centre, np.eye(3))
            else:
                geometry = _geometry(attrs, where)
            link.collisions.append(Shape(attrs.get("name", f"{link_name}_c{i}"), pose_in_link, geometry))
        for site in body.findall("site"):
            site_name = site.get("name") or ""
            if site_name.endswith("-vismarker"):
                link.vision_part = site_name[:-len("-vismarker")]
            elif site_name == "camera":
                link.camera_fov = 2.0944  # 120 degrees, as the rcsssmj vision cone
            if site_name in gyro_sites:
                link.imu = True
        spec.links.append(link)
        if parent is not None:
            joints = body.findall("joint")
            if len(joints) > 1:
                raise MjcfError(f"{where}: more than one joint per body is not supported")
            if joints:
                j = joints[0]
                attrs = {**classes.get(f"joint:{j.get('class') or ''}", {}), **j.attrib}
                if attrs.get("type", "hinge") != "hinge":
                    raise MjcfError(f"{where}: joint type {attrs.get('type')!r} is not supported")
                mjcf_name = attrs.get("name", "")
                lower, upper = _floats(attrs.get("range"), 2, (-1e9, 1e9), where)
                effort = _floats(attrs.get("actuatorfrcrange"), 2, (0.0, 0.0), where)[1]
                axis = pose.rot @ np.array(_floats(attrs.get("axis"), 3, (0.0, 0.0, 1.0), where))
                spec.joints.append(JointSpec(
                    perceptor_of.get(mjcf_name, mjcf_name), "revolute", parent.name, link_name,
                    pose @ Transform(np.array(_floats(attrs.get("pos"), 3, (0.0, 0.0, 0.0), where)), np.eye(3)),
                    tuple(axis), lower, upper, effort, 0.0, effector_of.get(mjcf_name, ""),  # type: ignore[arg-type]
                    float(attrs.get("damping", "0")), float(attrs.get("armature", "0")),
                    float(attrs.get("frictionloss", "0"))))
            else:
                spec.joints.append(JointSpec(f"{link_name}_fixed", "fixed", parent.name, link_name, pose))
        for child in body.findall("body"):
            visit(child, link, pose)

    visit(torso, None, Transform.identity())
    missing = [j for j in spec.joints if j.kind == "revolute" and not j.effector]
    if missing:
        raise MjcfError(f"{path}: no <position name=\"..._pos\"> actuator for joints {[j.name for j in missing]}")
    return spec


def _geometry(attrs: dict[str, str], where: str) -> Geometry:
    kind = attrs.get("type", "sphere")
    size = tuple(float(v) for v in attrs.get("size", "").split())
    if kind == "box" and len(size) == 3:
        return Geometry("box", tuple(2 * s for s in size))  # MJCF half sizes -> full sizes
    if kind == "sphere" and size:
        return Geometry("sphere", (size[0],))
    if kind in ("capsule", "cylinder") and len(size) == 2:
        return Geometry(kind, (size[0], 2 * size[1]))  # radius, half length -> radius, length
    raise MjcfError(f"{where}: collision geom {kind!r} with size {size} is not supported")


def _mesh_box(stl: Path, scale: np.ndarray, where: str) -> tuple[np.ndarray, Geometry]:
    """Centre and size of the axis-aligned box around an STL mesh's vertices."""
    try:
        data = stl.read_bytes()
    except OSError as exc:
        raise MjcfError(f"{where}: {exc}") from exc
    count = int(np.frombuffer(data, dtype="<u4", count=1, offset=80)[0]) if len(data) >= 84 else -1
    if count >= 0 and len(data) == 84 + 50 * count:  # binary STL
        records = np.frombuffer(data, dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]),
                                count=count, offset=84)
        vertices = records["v"].reshape(-1, 3).astype(float)
    else:  # ASCII STL
        vertices = np.array([[float(x) for x in line.split()[1:4]] for line in data.decode(errors="replace").splitlines()
                             if line.strip().startswith("vertex")])
    if len(vertices) == 0:
        raise MjcfError(f"{where}: mesh {stl.name} has no vertices")
    vertices = vertices * scale
    low, high = vertices.min(axis=0), vertices.max(axis=0)
    return (low + high) / 2, Geometry("box", tuple(np.maximum(high - low, 1e-3)))
