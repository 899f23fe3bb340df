"""What one agent perceives in one cycle, as plain data.

The engine fills the sensor part, the master adds the game state, and each dialect
encodes the same object for its wire format (SimSpark, rcsssmj) or for sim_msgs/Percept.
Units are the wire units (degrees, deg/s, m/s^2, m, N) so encoders only format.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

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


@dataclass(slots=True)
class Percept:
    """Everything one agent gets in one cycle."""

    time: float  # simulation time, s
    game: GameStateView
    gyro: Vec3  # deg/s, torso frame
    accel: Vec3  # m/s^2, torso frame, includes gravity (upright at rest ~ (0, 0, 9.81))
    joint_names: list[str]  # perceptor names in the dialect's order (hj1, ... / q_hj1, ...)
    joint_angles: list[float]  # deg
    joint_velocities: list[float]  # deg/s
    foot_resistance: list[ForceResistance] = field(default_factory=list)  # only touching feet
    torso_position: Vec3 = (0.0, 0.0, 0.0)  # global, m (rcsssmj `pos`)
    torso_quaternion: tuple[float, float, float, float] = (1.0, 0.0, 0.0, 0.0)  # global w x y z
    vision: Vision | None = None  # None on cycles without vision
    heard: list[Heard] = field(default_factory=list)
