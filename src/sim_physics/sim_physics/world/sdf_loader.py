"""Reads the SDF subset our worlds and robots use into WorldSpec / ModelSpec.

Anything outside the subset (meshes, other joint types, unknown elements) is rejected
with an error naming the element and the file: a world that half-loads would simulate
something the user did not write."""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Final

import numpy as np

from sim_contracts.logtext import clip
from sim_physics.world.spec import FieldSpec, Geometry, JointSpec, LinkSpec, ModelSpec, Shape, WorldSpec
from sim_physics.world.transforms import Transform

SOCCER_NS: Final = "https://soccersim.invalid/sdf"
_ALLOWED: Final[dict[str, set[str]]] = {
    "sdf": {"world", "model"},
    "world": {"physics", "gravity", "model", "soccer:field", "soccer:landmark", "soccer:line",
              "soccer:air", "soccer:contact"},
    "physics": {"max_step_size", "real_time_factor"},
    "model": {"static", "pose", "link", "joint", "soccer:ball"},
    "link": {"pose", "inertial", "collision", "visual", "sensor", "soccer:vision_part", "soccer:frp"},
    "inertial": {"pose", "mass", "inertia"},
    "inertia": {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"},
    "collision": {"pose", "geometry", "surface"},
    "surface": {"friction"},
    "friction": {"ode"},
    "ode": {"mu", "mu2"},
    "visual": {"pose", "geometry", "material"},
    "geometry": {"box", "sphere", "cylinder", "capsule", "plane"},
    "joint": {"parent", "child", "pose", "axis", "soccer:effector"},
    "axis": {"xyz", "limit"},
    "limit": {"lower", "upper", "effort", "velocity"},
}


class SdfError(ValueError):
    """The file uses something outside the supported SDF subset, or is malformed."""


class NotSdf(SdfError):
    """Well-formed, but another format (a URDF's <robot>, an MJCF's <mujoco>)."""


def worlds_dir() -> Path:
    """worlds/ of the installed package (or of the source tree when run from it)."""
    try:
        from ament_index_python.packages import get_package_share_directory

        share = Path(get_package_share_directory("sim_physics")) / "worlds"
        if share.is_dir():
            return share
    except (ImportError, LookupError, OSError, ValueError):
        pass
    return Path(__file__).resolve().parents[2] / "worlds"


def _is_file(path: Path) -> bool:
    """An existing file; False for a name the system cannot even look up (too long, NUL)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def resolve_world(name_or_path: str) -> Path:
    path = Path(name_or_path)
    if path.suffix == ".sdf" and _is_file(path):
        return path
    candidate = worlds_dir() / f"{name_or_path}.sdf"
    if _is_file(candidate):
        return candidate
    available = sorted(p.stem for p in worlds_dir().glob("*.sdf"))
    raise SdfError(f"world {clip(name_or_path, 80)!r} not found (available: {', '.join(available)})")


def resolve_model(name: str) -> Path:
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise SdfError(f"robot model {name[:80]!r} not found: a model name has no path in it")
    candidate = worlds_dir() / "models" / f"{name}.sdf"
    if _is_file(candidate):
        return candidate
    raise SdfError(f"robot model {clip(name, 80)!r} not found (available: {', '.join(available_models())})")


def available_models() -> list[str]:
    """Our SDF robots, plus rcsssmj's T1 and K1 where the rcsssmj package is installed."""
    from sim_physics.world.mjcf_files import rcsssmj_models

    return sorted(p.stem for p in (worlds_dir() / "models").glob("*.sdf")) + sorted(rcsssmj_models())


def _tag(el: ET.Element) -> str:
    tag = el.tag
    if tag.startswith("{"):
        ns, _, local = tag[1:].partition("}")
        return f"soccer:{local}" if ns == SOCCER_NS else f"{{{ns}}}{local}"
    return tag


def _check(el: ET.Element, path: str) -> None:
    allowed = _ALLOWED.get(_tag(el))
    if allowed is None:
        return
    for child in el:
        tag = _tag(child)
        if tag not in allowed and not (tag == "sensor" and _tag(el) == "link"):
            raise SdfError(f"{path}: unsupported element <{tag}> in <{_tag(el)}>")
        _check(child, path)


def _text(el: ET.Element | None, default: str = "") -> str:
    return (el.text or "").strip() if el is not None else default


def _float(el: ET.Element | None, default: float) -> float:
    return float(_text(el)) if el is not None and _text(el) else default


def _find(el: ET.Element, tag: str) -> ET.Element | None:
    for child in el:
        if _tag(child) == tag:
            return child
    return None


def _findall(el: ET.Element, tag: str) -> list[ET.Element]:
    return [c for c in el if _tag(c) == tag]


def _parse(path: Path) -> ET.Element:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise SdfError(f"{path}: {exc}") from exc
    if _tag(root) != "sdf":
        raise SdfError(f"{path}: root element is <{_tag(root)}>, expected <sdf>")
    _check(root, str(path))
    return root


def load_world(name_or_path: str) -> WorldSpec:
    path = resolve_world(name_or_path)
    try:
        spec = _load_world(path)
    except (ValueError, TypeError) as exc:
        if isinstance(exc, SdfError):
            raise
        raise SdfError(f"{path}: {exc}") from None
    _validate_world(spec, path)
    return spec


def _validate_world(spec: WorldSpec, path: Path) -> None:
    """Numbers a world file gives are finite and physical, so the engine never sees one
    that would make it reset or divide by zero; one line names the file and the value."""
    def bad(what: str) -> SdfError:
        return SdfError(f"{path}: {what}")

    if not (math.isfinite(spec.timestep) and 1e-4 <= spec.timestep <= 0.02):
        raise bad(f"max_step_size {spec.timestep} is not in 0.0001..0.02 s")
    if len(spec.gravity) != 3 or not all(math.isfinite(g) and abs(g) < 100 for g in spec.gravity):
        raise bad(f"<gravity> needs 3 finite numbers below 100 m/s^2, got {spec.gravity}")
    f = spec.field
    for key in ("length", "width", "goal_width", "goal_depth", "goal_height", "ball_radius"):
        value = getattr(f, key)
        if not (math.isfinite(value) and 0 < value < 1e4):
            raise bad(f"<soccer:field {key}=...> must be a positive finite size, got {value}")
    for key in ("penalty_depth", "penalty_width", "center_radius"):
        value = getattr(f, key)
        if not (math.isfinite(value) and 0 <= value < 1e4):
            raise bad(f"<soccer:field {key}=...> must be a finite size >= 0, got {value}")
    points = [c for xyz in f.landmarks.values() for c in xyz] + [c for line in f.lines for c in line]
    if not all(math.isfinite(c) and abs(c) < 1e4 for c in points):
        raise bad("landmark and line coordinates must be finite")
    balls = [m.name for m in spec.models if m.is_ball]
    if len(balls) != 1:
        raise bad(f"a world needs exactly one <model> with <soccer:ball/>, has {len(balls)}")


def _load_world(path: Path) -> WorldSpec:
    root = _parse(path)
    world = _find(root, "world")
    if world is None:
        raise SdfError(f"{path}: no <world>")
    spec = WorldSpec(name=world.get("name", path.stem))
    physics = _find(world, "physics")
    if physics is not None:
        spec.timestep = _float(_find(physics, "max_step_size"), spec.timestep)
    gravity = _find(world, "gravity")
    if gravity is not None:
        gx, gy, gz = _numbers(_text(gravity), 3, spec.gravity, path, "<gravity>")
        spec.gravity = (gx, gy, gz)
    air = _find(world, "soccer:air")  # MuJoCo's fluid model: rcsssmj's world has air, SimSpark's none
    if air is not None:
        spec.air_density = float(air.get("density", "0"))
        spec.air_viscosity = float(air.get("viscosity", "0"))
        if not (0 <= spec.air_density < 1e3 and 0 <= spec.air_viscosity < 1):
            raise SdfError(f"{path}: <soccer:air> density/viscosity out of range")
    contact = _find(world, "soccer:contact")
    if contact is not None:
        timeconst, dampratio = _numbers(contact.get("solref"), 2, spec.contact_solref, path, "<soccer:contact> solref")
        if not (0 < timeconst <= 1 and 0 < dampratio <= 10):
            raise SdfError(f"{path}: <soccer:contact solref='time_constant damping_ratio'> needs "
                           f"0 < time constant <= 1 s and 0 < damping ratio <= 10, got {contact.get('solref')!r}")
        spec.contact_solref = (timeconst, dampratio)
        cone = contact.get("cone", spec.contact_cone)
        if cone not in ("pyramidal", "elliptic"):
            raise SdfError(f"{path}: <soccer:contact cone=...> is pyramidal or elliptic, got {cone!r}")
        spec.contact_cone = cone
        slip = _numbers(contact.get("slip"), 1, (spec.contact_slip,), path, "<soccer:contact> slip")[0]
        if not 0 <= slip <= 1 or (slip > 0 and cone != "elliptic"):
            raise SdfError(f"{path}: <soccer:contact slip=...> is 0..1 (m/s)/N and needs cone=\"elliptic\", "
                           f"got slip={contact.get('slip')!r} cone={cone!r}")
        spec.contact_slip = slip
    field_el = _find(world, "soccer:field")
    if field_el is not None:
        f = FieldSpec()
        for key in ("length", "width", "goal_width", "goal_depth", "goal_height", "penalty_depth",
                    "penalty_width", "center_radius", "ball_radius", "goalie_area_length", "goalie_area_width",
                    "corner_radius", "penalty_spot_distance"):
            value = field_el.get(key)
            if value is not None:
                setattr(f, key, float(value))
        f.landmarks = {lm.get("name", ""): (float(lm.get("x", 0)), float(lm.get("y", 0)),
                                            float(lm.get("z", 0)))
                       for lm in _findall(world, "soccer:landmark")}
        f.landmark_dialects = {lm.get("name", ""): lm.get("dialect", "")
                               for lm in _findall(world, "soccer:landmark") if lm.get("dialect")}
        f.lines = [(float(ln.get("x1", 0)), float(ln.get("y1", 0)), float(ln.get("x2", 0)),
                    float(ln.get("y2", 0))) for ln in _findall(world, "soccer:line")]
        spec.field = f
    spec.models = [_model(m, str(path)) for m in _findall(world, "model")]
    for model_el in _findall(world, "model"):
        ball = _find(model_el, "soccer:ball")
        if ball is not None:
            sliding, torsional, rolling = _numbers(ball.get("friction"), 3, spec.ball_friction, path)
            spec.ball_friction = (sliding, torsional, rolling)
            spec.ball_solref = _pair(_numbers(ball.get("solref"), 2, spec.ball_solref, path))
            spec.ball_drag = _pair(_numbers(ball.get("drag"), 2, spec.ball_drag, path))
            if ball.get("stillness") is not None:  # an earlier law of ours, not rcssserver3d's
                raise SdfError(f"{path}: <soccer:ball stillness> is gone: rcssserver3d's ball is slowed by its "
                               "drag alone (remove the attribute; drag='0.01 5e-05' is the reference's)")
            spec.ball_bounce = _pair(_numbers(ball.get("bounce"), 2, spec.ball_bounce, path))
            restitution, threshold = spec.ball_bounce
            if not (0 <= restitution <= 1 and 0 <= threshold < 100):
                raise SdfError(f"{path}: <soccer:ball bounce='restitution min_speed'> needs a restitution in 0..1 "
                               f"and a speed in 0..100 m/s, got {ball.get('bounce')!r}")
            if min(spec.ball_drag) < 0:
                raise SdfError(f"{path}: <soccer:ball> drag must be >= 0 (got drag={spec.ball_drag})")
    return spec


def _numbers(text: str | None, n: int, default: tuple[float, ...], path: Path,
             element: str = "<soccer:ball>") -> tuple[float, ...]:
    if text is None:
        return default
    try:
        values = tuple(float(v) for v in text.split())
    except ValueError:
        values = ()
    if len(values) != n or not all(math.isfinite(v) and abs(v) < 1e6 for v in values):
        raise SdfError(f"{path}: {element} needs {n} finite numbers, got {text!r}")
    return values


def _pair(values: tuple[float, ...]) -> tuple[float, float]:
    return (values[0], values[1])


def load_model(name_or_path: str) -> ModelSpec:
    from sim_physics.world.mjcf_files import rcsssmj_models

    mjcf = rcsssmj_models().get(name_or_path)  # listed only where MuJoCo can read it
    if mjcf is not None:
        from sim_physics.world.mjcf_import import load_mjcf_robot

        return load_mjcf_robot(mjcf, name_or_path)
    path = Path(name_or_path) if name_or_path.endswith(".sdf") else resolve_model(name_or_path)
    root = _parse(path)
    model = _find(root, "model")
    if model is None:
        raise SdfError(f"{path}: no <model>")
    return _model(model, str(path))


MAX_SDF_TEXT = 1 << 20  # a spawned model's SDF text: 1 MB at most
# A spawned model is built on the loop's thread: a size a robot never needs would stall the
# match while MuJoCo compiles it, so spawned models are held to these.
MAX_SPAWNED_LINKS = 64
MAX_SPAWNED_SHAPES = 256


def load_model_text(text: str, origin: str = "<resource_string>") -> ModelSpec:
    """A model from SDF text (e.g. simulation_interfaces' resource_string): <sdf><model>."""
    if len(text) > MAX_SDF_TEXT:
        raise SdfError(f"{origin}: SDF text over {MAX_SDF_TEXT} bytes")
    if "<!DOCTYPE" in text or "<!ENTITY" in text:  # SDF needs neither; entities expand without bound
        raise SdfError(f"{origin}: document type and entity declarations are not accepted")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise SdfError(f"{origin}: {exc}") from exc
    if _tag(root) in ("robot", "mujoco"):
        raise NotSdf(f"{origin}: a {'URDF' if _tag(root) == 'robot' else 'MJCF'} document; only SDF "
                     "models can be spawned (gz sdf -p converts a URDF)")
    if _tag(root) != "sdf":
        raise SdfError(f"{origin}: root element is <{_tag(root)}>, expected <sdf>")
    _check(root, origin)
    model = _find(root, "model")
    if model is None:
        raise SdfError(f"{origin}: no <model>")
    try:
        spec = _model(model, origin)
    except ValueError as exc:  # a number that is none (<pose>abc def</pose>)
        raise SdfError(f"{origin}: {exc}") from exc
    _check_physical(spec, origin)
    shapes = sum(len(link.collisions) + len(link.visuals) for link in spec.links)
    if len(spec.links) > MAX_SPAWNED_LINKS or shapes > MAX_SPAWNED_SHAPES:
        raise SdfError(f"{origin}: {len(spec.links)} links and {shapes} shapes; a spawned model may have "
                       f"{MAX_SPAWNED_LINKS} links and {MAX_SPAWNED_SHAPES} shapes")
    if not spec.links:
        raise SdfError(f"{origin}: the model has no <link>")
    return spec


MAX_SPAWNED_SIZE = 100.0  # m: a spawned shape's largest extent (the world is about 50 m across)
MAX_SPAWNED_MASS = 1e4  # kg per link


def solid_inertia(geometry: Geometry, mass: float) -> tuple[float, float, float]:
    """Principal moments (kg m^2) of a solid shape of this mass about its centre, in its frame
    (cylinders and capsules along z; a capsule counted as a cylinder of its full length)."""
    size = geometry.size
    if geometry.shape == "box" and len(size) >= 3:
        x, y, z = size[:3]
        return (mass * (y * y + z * z) / 12, mass * (x * x + z * z) / 12, mass * (x * x + y * y) / 12)
    if geometry.shape == "sphere" and size:
        moment = 0.4 * mass * size[0] ** 2
        return (moment, moment, moment)
    if geometry.shape in ("cylinder", "capsule") and len(size) >= 2:
        r, length = size[0], size[1] + (2 * size[0] if geometry.shape == "capsule" else 0.0)
        side = mass * (3 * r * r + length * length) / 12
        return (side, side, 0.5 * mass * r * r)
    return (1.0, 1.0, 1.0)


def _check_physical(spec: ModelSpec, origin: str) -> None:
    """A spawned model's figures must be ones physics can step: finite, masses not negative
    and bounded, shapes of positive bounded size, poses within the world."""
    for link in spec.links:
        numbers = (*link.pose.pos, *link.inertial_pose.pos, link.mass, *link.inertia)
        if not all(math.isfinite(float(v)) for v in numbers):
            raise SdfError(f"{origin}: link {link.name!r} has a number that is not finite")
        if any(abs(float(v)) > MAX_SPAWNED_SIZE for v in (*link.pose.pos, *link.inertial_pose.pos)):
            raise SdfError(f"{origin}: link {link.name!r} is placed beyond {MAX_SPAWNED_SIZE:g} m")
        if not 0.0 <= link.mass <= MAX_SPAWNED_MASS:  # 0: none given (the engine's default)
            raise SdfError(f"{origin}: link {link.name!r} mass {link.mass:g} kg: a link's mass is in "
                           f"(0, {MAX_SPAWNED_MASS:g}] kg")
        if any(v < 0.0 for v in link.inertia):
            raise SdfError(f"{origin}: link {link.name!r} has a negative moment of inertia")
        for shape in (*link.collisions, *link.visuals):
            size = shape.geometry.size
            if shape.geometry.shape == "plane":
                continue
            if not size or not all(math.isfinite(v) and 0.0 < v <= MAX_SPAWNED_SIZE for v in size):
                raise SdfError(f"{origin}: shape {shape.name!r} of link {link.name!r}: sizes must be in "
                               f"(0, {MAX_SPAWNED_SIZE:g}] m, got {' '.join(f'{v:g}' for v in size)}")
            if not all(math.isfinite(float(v)) and abs(float(v)) <= MAX_SPAWNED_SIZE for v in shape.pose.pos):
                raise SdfError(f"{origin}: shape {shape.name!r} of link {link.name!r} is placed beyond "
                               f"{MAX_SPAWNED_SIZE:g} m")


def resolve_model_uri(uri: str) -> Path:
    """An SDF model file a client may name: `model://<name>`, `<name>`, a path to an .sdf
    file inside the worlds' model directory, or an absolute path or `file://` URI to an .sdf
    file (as Gazebo's spawn reads one; parsed with the same limits as SDF text)."""
    models = (worlds_dir() / "models").resolve()
    absolute = uri.startswith("file://") or uri.startswith("/")
    name = uri.removeprefix("model://").removeprefix("file://")
    if not name.endswith(".sdf"):
        if absolute:
            raise NotSdf(f"{uri}: only SDF models (.sdf) can be spawned")
        return resolve_model(name)
    path = Path(name)
    path = (path if path.is_absolute() else models / path).resolve()
    if not absolute and not path.is_relative_to(models):
        raise SdfError(f"{uri}: only models under {models} can be spawned by a relative path")
    if path.suffix != ".sdf" or not path.is_file():  # the file itself (a link's target), regular
        raise SdfError(f"{uri}: no such model file")
    return path


def _model(el: ET.Element, path: str) -> ModelSpec:
    name = el.get("name") or ""
    spec = ModelSpec(name=name, static=_text(_find(el, "static")) in ("true", "1"),
                     is_ball=_find(el, "soccer:ball") is not None)
    pose_el = _find(el, "pose")
    if pose_el is not None:
        spec.pose = Transform.from_sdf_pose(_text(pose_el))
    link_els = _findall(el, "link")
    joint_els = _findall(el, "joint")
    raw_link_pose = {link.get("name", ""): _find(link, "pose") for link in link_els}
    resolved: dict[str, Transform] = {"__model__": Transform.identity()}

    def frame(name: str, stack: tuple[str, ...] = ()) -> Transform:
        if name in resolved:
            return resolved[name]
        if name not in raw_link_pose:
            raise SdfError(f"{path}: pose relative_to unknown frame {name!r} in model {spec.name!r}")
        if name in stack:
            raise SdfError(f"{path}: cyclic relative_to through {name!r}")
        pose_el = raw_link_pose[name]
        local = Transform.from_sdf_pose(_text(pose_el)) if pose_el is not None else Transform.identity()
        base = pose_el.get("relative_to", "__model__") if pose_el is not None else "__model__"
        resolved[name] = frame(base, stack + (name,)) @ local
        return resolved[name]

    for link_el in link_els:
        spec.links.append(_link(link_el, frame(link_el.get("name", "")), path))
    for joint_el in joint_els:
        spec.joints.append(_joint(joint_el, frame, path, spec.name))
    return spec


def _shape(el: ET.Element, path: str) -> Shape:
    pose_el = _find(el, "pose")
    pose = Transform.from_sdf_pose(_text(pose_el)) if pose_el is not None else Transform.identity()
    geometry = _find(el, "geometry")
    if geometry is None or len(geometry) != 1:
        raise SdfError(f"{path}: <{_tag(el)} name={el.get('name')!r}> needs exactly one geometry")
    g = geometry[0]
    kind = _tag(g)
    if kind == "box":
        size = tuple(float(v) for v in _text(_find(g, "size")).split())
    elif kind == "sphere":
        size = (_float(_find(g, "radius"), 0.0),)
    elif kind in ("cylinder", "capsule"):
        size = (_float(_find(g, "radius"), 0.0), _float(_find(g, "length"), 0.0))
    elif kind == "plane":
        size = tuple(float(v) for v in _text(_find(g, "size"), "100 100").split())
    else:  # pragma: no cover - _check rejects these already
        raise SdfError(f"{path}: unsupported geometry <{kind}>")
    return Shape(el.get("name", ""), pose, Geometry(kind, size), _friction(el, path))


def _friction(collision: ET.Element, path: str) -> float | None:
    """<surface><friction><ode><mu> of a collision (mu2 must equal it: one isotropic
    coefficient), or None for the world's default."""
    node: ET.Element | None = collision
    for tag in ("surface", "friction", "ode"):
        node = _find(node, tag) if node is not None else None
    if node is None or _find(node, "mu") is None:
        return None
    mu = _float(_find(node, "mu"), 1.0)
    mu2 = _float(_find(node, "mu2"), mu) if _find(node, "mu2") is not None else mu
    if not (math.isfinite(mu) and 0 <= mu <= 100) or mu2 != mu:
        raise SdfError(f"{path}: <collision name={collision.get('name')!r}> friction mu must be in 0..100 "
                       f"and mu2 equal to it (got {mu}, {mu2})")
    return mu


def _link(el: ET.Element, pose: Transform, path: str) -> LinkSpec:
    link = LinkSpec(name=el.get("name", ""), pose=pose)
    inertial = _find(el, "inertial")
    if inertial is not None:
        link.mass = _float(_find(inertial, "mass"), 0.0)
        ipose = _find(inertial, "pose")
        if ipose is not None:
            link.inertial_pose = Transform.from_sdf_pose(_text(ipose))
        inertia = _find(inertial, "inertia")
        if inertia is not None:
            link.inertia = (_float(_find(inertia, "ixx"), 0.0), _float(_find(inertia, "iyy"), 0.0),
                            _float(_find(inertia, "izz"), 0.0))
    link.collisions = [_shape(c, path) for c in _findall(el, "collision")]
    link.visuals = [_shape(v, path) for v in _findall(el, "visual")]
    if inertial is not None and link.mass > 0 and _find(inertial, "inertia") is None:
        # a mass without moments: those of the first collision shape as a solid of that mass
        # (as SDFormat 1.11's <inertial auto="true">), else SDFormat's default of 1 kg m^2
        shape = link.collisions[0].geometry if link.collisions else None
        link.inertia = solid_inertia(shape, link.mass) if shape is not None else (1.0, 1.0, 1.0)
    link.vision_part = _text(_find(el, "soccer:vision_part"))
    frp = _find(el, "soccer:frp")
    link.frp = frp.get("name", "") if frp is not None else ""
    for sensor in _findall(el, "sensor"):
        kind = sensor.get("type", "")
        if kind == "imu":
            link.imu = True
        elif kind == "camera":
            camera = _find(sensor, "camera")
            link.camera_fov = _float(_find(camera, "horizontal_fov") if camera is not None else None, 2.0944)
        else:
            raise SdfError(f"{path}: unsupported sensor type {kind!r} on link {link.name!r}")
    return link


def _joint(el: ET.Element, frame, path: str, model: str) -> JointSpec:
    name, kind = el.get("name", ""), el.get("type", "")
    if kind not in ("revolute", "fixed"):
        raise SdfError(f"{path}: joint {name!r} in model {model!r} has unsupported type {kind!r}")
    parent, child = _text(_find(el, "parent")), _text(_find(el, "child"))
    pose_el = _find(el, "pose")
    local = Transform.from_sdf_pose(_text(pose_el)) if pose_el is not None else Transform.identity()
    base = pose_el.get("relative_to", child) if pose_el is not None else child
    pose = frame(base) @ local
    joint = JointSpec(name=name, kind=kind, parent=parent, child=child, pose=pose,
                      effector=_text(_find(el, "soccer:effector")))
    axis = _find(el, "axis")
    if kind == "revolute":
        if axis is None:
            raise SdfError(f"{path}: revolute joint {name!r} needs an <axis>")
        xyz = np.array([float(v) for v in _text(_find(axis, "xyz"), "0 0 1").split()])
        xyz = pose.rot @ (xyz / np.linalg.norm(xyz))  # expressed in the joint frame
        joint.axis = (float(xyz[0]), float(xyz[1]), float(xyz[2]))
        limit = _find(axis, "limit")
        if limit is not None:
            joint.lower = _float(_find(limit, "lower"), joint.lower)
            joint.upper = _float(_find(limit, "upper"), joint.upper)
            joint.effort = _float(_find(limit, "effort"), 0.0)
            joint.velocity = _float(_find(limit, "velocity"), 0.0)
    return joint


