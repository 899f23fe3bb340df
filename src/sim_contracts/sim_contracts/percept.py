"""What one agent perceives in one cycle, as plain data, and where each field goes.

The engine fills the sensor part, the loop adds the game state, and each dialect
encodes the same object for its wire format (SimSpark, rcsssmj) or for sim_msgs/Percept.
Units are the wire units (degrees, deg/s, m/s^2, m, N) so encoders only format.

Every field of `Percept` is declared once, below, with `perceptor(...)`: the sim_msgs/Percept
field it travels in (and how: `ros_kind`), and the legacy dialects whose perception carries
it. The ROS conversion is driven by these declarations, and tests check every field both
ways: the ROS round trip, and that each dialect's bytes change with exactly the fields it
declares. Adding a perceptor: a field here, one in Percept.msg, and the engine filling it.
"""
from __future__ import annotations

from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any, Final, NamedTuple

Vec3 = tuple[float, float, float]


class Polar(NamedTuple):
    """A point seen from the head camera: distance (m), azimuth and elevation (deg).

    A tuple, so that the engine makes a hundred of them per vision at C speed
    (`tuple.__new__(Polar, row)`) and encoders format them without attribute lookups."""

    distance: float
    azimuth: float
    elevation: float


@dataclass(slots=True)
class SeenPlayer:
    """Visible body parts of one robot, e.g. {"head": Polar, "lfoot": Polar}."""

    team: str
    unum: int
    parts: dict[str, Polar]


@dataclass(slots=True)
class Vision:
    """One vision update: landmarks and ball by name, players, and clipped field lines."""

    objects: dict[str, Polar] = field(default_factory=dict)  # F1L, G2R, B, l_luf, ...
    players: list[SeenPlayer] = field(default_factory=list)
    lines: list[tuple[Polar, Polar]] = field(default_factory=list)
    # Ground truth rcssserver3d's vision perceptor adds when asked (SenseMyPos, SenseMyOrien,
    # SenseBallPos; off by default, `--ground-truth`): mypos (x y z, m), myorien (deg),
    # ballpos (x y z, m), in the team's frame (its own goal at -x). Encoded after the lines.
    truth: dict[str, tuple[float, ...]] = field(default_factory=dict)


@dataclass(slots=True)
class ForceResistance:
    """Foot contact: centre of pressure (m) and force (N) in the foot frame."""

    name: str  # lf, rf, lf1, rf1
    center: Vec3
    force: Vec3


@dataclass(slots=True)
class Heard:
    """A say message delivered to this agent."""

    time: float
    direction: float  # deg in the listener's frame; ignored when from_self
    message: str
    from_self: bool = False
    from_teammate: bool = True
    team: str = ""  # speaker's team name (SimSpark labels heard messages with it)


@dataclass(slots=True)
class GameStateView:
    """The referee's state as an agent sees it."""

    play_mode: str = "BeforeKickOff"
    game_time: float = 0.0
    score_left: int = 0
    score_right: int = 0
    team_left: str = ""
    team_right: str = ""
    unum: int = 0  # set only in the first GS after a successful init (SimSpark)
    side: str = ""  # "left" / "right", same rule as unum


SIMSPARK: Final = "simspark"
RCSSSMJ: Final = "rcsssmj"
DIALECTS: Final = (SIMSPARK, RCSSSMJ)

# How a field maps onto its sim_msgs/Percept field (generic kinds are converted without code
# of their own; "custom" fields have a converter in sim_master.ros.convert).
ROS_KINDS: Final = ("stamp", "vec3", "quat_wxyz", "floats", "strings", "custom")


def perceptor(*, ros: str, ros_kind: str, wire: tuple[str, ...], default: Any = MISSING,
              default_factory: Any = MISSING) -> Any:
    """A Percept field with its contract: `ros` is the dotted sim_msgs/Percept field path,
    `wire` the dialects whose perception message carries it."""
    assert ros_kind in ROS_KINDS and all(d in DIALECTS for d in wire)
    metadata = {"ros": ros, "ros_kind": ros_kind, "wire": wire}
    return field(default=default, default_factory=default_factory, metadata=metadata)


@dataclass(slots=True)
class Percept:
    """Everything one agent gets in one cycle."""

    time: float = perceptor(ros="header.stamp", ros_kind="stamp", wire=DIALECTS)  # simulation time, s
    game: GameStateView = perceptor(ros="game_state", ros_kind="custom", wire=DIALECTS)
    gyro: Vec3 = perceptor(ros="gyro", ros_kind="vec3", wire=DIALECTS)  # deg/s, torso frame
    # m/s^2, torso frame, includes gravity (upright at rest ~ (0, 0, 9.81))
    accel: Vec3 = perceptor(ros="accelerometer", ros_kind="vec3", wire=DIALECTS)
    # perceptor names in the dialect's order (hj1, ... / q_hj1, ...)
    joint_names: list[str] = perceptor(ros="joint_names", ros_kind="strings", wire=DIALECTS)
    joint_angles: list[float] = perceptor(ros="joint_angles", ros_kind="floats", wire=DIALECTS)  # deg
    # deg/s; SimSpark's HJ carries no speed
    joint_velocities: list[float] = perceptor(ros="joint_velocities", ros_kind="floats", wire=(RCSSSMJ,))
    foot_resistance: list[ForceResistance] = perceptor(  # only touching feet; rcsssmj has no FRP
        ros="foot_resistance", ros_kind="custom", wire=(SIMSPARK,), default_factory=list)
    torso_position: Vec3 = perceptor(  # global, m (rcsssmj `pos`)
        ros="torso_pose.position", ros_kind="vec3", wire=(RCSSSMJ,), default=(0.0, 0.0, 0.0))
    torso_quaternion: tuple[float, float, float, float] = perceptor(  # global w x y z (rcsssmj `quat`)
        ros="torso_pose.orientation", ros_kind="quat_wxyz", wire=(RCSSSMJ,), default=(1.0, 0.0, 0.0, 0.0))
    vision: Vision | None = perceptor(  # None on cycles without vision
        ros="seen", ros_kind="custom", wire=DIALECTS, default=None)
    heard: list[Heard] = perceptor(ros="heard", ros_kind="custom", wire=DIALECTS, default_factory=list)


def percept_fields() -> tuple[Field[Any], ...]:
    """The declared fields of a Percept, in order (each with its `ros`, `ros_kind`, `wire`)."""
    return fields(Percept)
