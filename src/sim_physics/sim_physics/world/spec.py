"""Engine-neutral description of a world: what the SDF says, resolved to the model frame."""
from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as _field
from pathlib import Path

from sim_contracts.field import FieldSpec
from sim_physics.world.transforms import Transform

__all__ = ["FieldSpec", "Geometry", "LinkSpec", "ModelSpec", "MonitorLook", "Shape", "WorldSpec"]


@dataclass(slots=True)
class Geometry:
    shape: str  # box, sphere, cylinder, capsule, plane
    size: tuple[float, ...]  # box: x y z; sphere: r; cylinder/capsule: r, length; plane: x y


@dataclass(slots=True)
class Shape:
    name: str
    pose: Transform  # in the link frame
    geometry: Geometry
    friction: float | None = None  # SDF <surface><friction><ode><mu>; None: the world's default


@dataclass(slots=True)
class MonitorLook:
    """One part of a link as its reference server's monitor stream names it (rcsssmj: the
    MJCF's mesh files and materials), drawn by monitors that have those meshes."""

    load: str  # e.g. models/T1/Trunk.STL or StdUnitBox
    material: str  # the MJCF material; `team` becomes the side's colour on the wire
    pose: Transform  # in the link frame
    scale: tuple[float, float, float] | None = None  # sSc, when not 1 1 1
    visible: bool = True
    rgba: tuple[float, float, float, float] | None = None  # a geom's own colour, when it has no material


@dataclass(slots=True)
class LinkSpec:
    name: str
    pose: Transform  # in the model frame
    mass: float = 0.0
    inertia: tuple[float, float, float] = (0.0, 0.0, 0.0)
    inertial_pose: Transform = _field(default_factory=Transform.identity)  # in the link frame
    collisions: list[Shape] = _field(default_factory=list)
    visuals: list[Shape] = _field(default_factory=list)
    vision_part: str = ""  # how other robots' vision names this link (head, lfoot, ...)
    frp: str = ""  # foot pressure sensor name (lf, rf, lf1, rf1)
    imu: bool = False  # gyro + accelerometer on this link
    camera_fov: float | None = None  # rad, horizontal and vertical
    looks: list[MonitorLook] = _field(default_factory=list)  # empty: monitors draw the shapes


@dataclass(slots=True)
class JointSpec:
    name: str  # perceptor name (hj1, ...)
    kind: str  # revolute, fixed
    parent: str
    child: str
    pose: Transform  # in the model frame
    axis: tuple[float, float, float] = (0.0, 0.0, 1.0)  # in the model frame
    lower: float = -1e9
    upper: float = 1e9
    effort: float = 0.0
    velocity: float = 0.0
    effector: str = ""  # effector name (he1, ...)
    damping: float = 0.0  # N m s / rad, the model's passive joint properties
    armature: float = 0.0  # kg m^2
    frictionloss: float = 0.0  # N m


@dataclass(slots=True)
class ModelSpec:
    name: str
    pose: Transform = _field(default_factory=Transform.identity)  # in the world
    static: bool = False
    is_ball: bool = False
    links: list[LinkSpec] = _field(default_factory=list)
    joints: list[JointSpec] = _field(default_factory=list)
    joint_order: tuple[str, ...] = ()  # perception order when the model defines one (MJCF sensors)
    mjcf: Path | None = None  # an MJCF robot the MuJoCo engine attaches verbatim (rcsssmj's)
    mjcf_joints: dict[str, str] = _field(default_factory=dict)  # joint name here -> name in the MJCF
    spawn_height: float = 0.0  # the root body's height in the MJCF (rcsssmj drops robots from it)

    def link(self, name: str) -> LinkSpec:
        for link in self.links:
            if link.name == name:
                return link
        raise KeyError(name)

    def root_link(self) -> LinkSpec:
        children = {j.child for j in self.joints}
        roots = [link for link in self.links if link.name not in children]
        if len(roots) != 1:
            raise ValueError(f"model {self.name!r} must have exactly one root link, has {len(roots)}")
        return roots[0]


@dataclass(slots=True)
class WorldSpec:
    name: str
    timestep: float = 0.005
    gravity: tuple[float, float, float] = (0.0, 0.0, -9.81)
    air_density: float = 0.0  # kg/m^3 (rcsssmj's world: 1.2)
    air_viscosity: float = 0.0  # Pa s (rcsssmj's world: 2e-5)
    ball_friction: tuple[float, float, float] = (0.8, 0.02, 0.0005)  # sliding, torsional, rolling
    ball_solref: tuple[float, float] = (0.005, 1.0)  # MuJoCo solref (negative: stiffness, damping)
    # Every other contact's softness (MuJoCo solref: time constant s, damping ratio). The
    # SimSpark field's 0.02: FC Portugal's walk falls 4-5 times a minute there, 10-12 at
    # 0.01 and 0.025 (rcssserver3d: ODE soft contacts, none); see docs/fidelity.md.
    contact_solref: tuple[float, float] = (0.01, 1.0)
    # MuJoCo's friction cone. The SimSpark field's is elliptic: with its robots' high friction it
    # holds planted feet as rcssserver3d's unbounded friction does (the pyramid lets them twist
    # and lift: FC Portugal's walk start then throws the robot; docs/fidelity.md, S8).
    contact_cone: str = "pyramidal"
    # rcssserver3d's force-dependent slip of robot contacts ((m/s)/N; 0 = Coulomb friction only);
    # needs the elliptic cone, whose friction rows the engine can soften one by one.
    contact_slip: float = 0.0
    # rcssserver3d's ball DragController, applied once per cycle: F = -linear v, T = -angular w
    # (its ball.rsg: 0.01 and 0.00005). Rolling, the speed falls by a constant factor per cycle.
    ball_drag: tuple[float, float] = (0.0, 0.0)  # linear N s/m, angular N m s
    # rcssserver3d's ball bounce (ODE contact bounce): restitution of a contact whose bodies
    # approach faster than the threshold (m/s); slower contacts do not bounce, so a ball at
    # rest lies still. (0, 0): no bounce.
    ball_bounce: tuple[float, float] = (0.0, 0.0)
    field: FieldSpec = _field(default_factory=FieldSpec)
    models: list[ModelSpec] = _field(default_factory=list)
