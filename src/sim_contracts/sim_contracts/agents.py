"""What an agent transport reports to the loop: connects, commands, leaves, errors, lag.

Why here: the legacy TCP ports, the ROS player topics and in-process players all feed the
same loop; the loop reads these events and never the transport that made them."""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from sim_contracts.commands import Command


@dataclass(frozen=True, slots=True)
class VisionRules:
    """What a player's camera reports and how exactly: the field's landmark set it names
    (`FieldSpec.landmark_dialects` tags the landmarks only one set shows), and whether it is
    noisy in a noisy world (SimSpark: a calibration error per robot and noise per observation;
    rcsssmj's camera is ideal)."""

    landmarks: str
    noisy: bool


SIMSPARK_VISION = VisionRules("simspark", noisy=True)
RCSSSMJ_VISION = VisionRules("rcsssmj", noisy=False)


class BeamFrame(Enum):
    """In which frame a player's beam is read (the value is what RefereeBeam's `dialect` carries)."""

    TEAM = "simspark"  # SimSpark: the team's frame, clamped to the own half (x <= 0), mirrored for the right
    ABSOLUTE_X = "rcsssmj"  # rcsssmj: the field's frame, x put into the own half by its sign, y as given

    @classmethod
    def named(cls, value: str) -> BeamFrame:
        """The frame a wire value names; SimSpark's for anything else, as the references' default."""
        try:
            return cls(value)
        except ValueError:
            return cls.TEAM


class JoinSpots(Enum):
    """Where a robot goes when its init is accepted (sim_master.master.spawn)."""

    TEAM_ROWS = "rows"  # rcssserver3d: the team's n-th robot at its n-th slot by its own goal line
    SIDE_LINE = "side_line"  # rcsssmj: beyond the upper side line, x = 2 unum + 1 into its own half


@dataclass(frozen=True, slots=True)
class PlayerRules:
    """A dialect's rules for its players, which the loop applies without knowing the dialect:
    written once, on the dialect object (sim_bridge.dialects) or on the in-process source that
    makes the players (ROS-native players, local brains). Nothing outside the dialects compares
    the name: every difference between the references is one of these values."""

    dialect: str  # the name (logs, and the `perception` a separate bridge asks init_agent for)
    robot_from_scene: bool  # SimSpark: `scene` makes the robot and `init` joins it; else `init` does both
    close_refused: bool  # rcsssmj closes the connection of an agent whose init is refused
    field_lines: bool  # perceptions carry the field lines the robot sees
    perceives_before_joining: bool  # percepts flow from the robot's creation (TCP), not from joining
    # cycles between an effector command's arrival and the step it drives: 1 on both references
    # (it first shows in the perception after next), 0 for ROS-native players and local brains
    effector_delay: int = 0
    # uniform noise added to a beam: +-m on x and y, +-deg on the angle (rcssserver3d 0.6.9+:
    # BeamNoiseXY 0.05, BeamNoiseAngle 10; rcssservermj adds none)
    beam_noise: tuple[float, float] = (0.0, 0.0)
    # `init` puts the robot in the world after the cycle's step, so its first perception shows
    # it as spawned, never stepped (rcssservermj activates an agent at the start of a cycle and
    # sends that cycle's perceptions before stepping: exact spawn pose, all speeds and ACC 0)
    joins_after_step: bool = False
    vision: VisionRules = SIMSPARK_VISION
    beam_frame: BeamFrame = BeamFrame.TEAM
    join_spots: JoinSpots = JoinSpots.TEAM_ROWS

    # How an agent gets into a team, the same wherever its connection ends (the server's loop,
    # the separate bridge): written here once.
    def init_refusal(self, *, has_robot: bool, joined: bool, joining: bool) -> str | None:
        """Why an agent's `init` is ignored now (None: it goes on to join): a second init, or
        (where `scene` makes the robot) an init before its scene."""
        if joined or joining:
            return "init again ignored (already " + ("in a team)" if joined else "joining)")
        if self.robot_from_scene and not has_robot:
            return "init before scene ignored"
        return None

    @staticmethod
    def scene_model(robot_type: int) -> str:
        """The robot model a SimSpark `scene` with this robot type asks for."""
        return f"nao{robot_type}"

    @staticmethod
    def init_model(init_model: str, scene_model: str | None) -> str:
        """The robot model an init joins with: the one it names (rcsssmj), else its scene's,
        else the standard Nao."""
        return init_model or scene_model or "nao0"


SIMSPARK_BEAM_NOISE = (0.05, 10.0)
SIMSPARK_RULES = PlayerRules("simspark", robot_from_scene=True, close_refused=False, field_lines=True,
                             perceives_before_joining=True, effector_delay=1, beam_noise=SIMSPARK_BEAM_NOISE)
RCSSSMJ_RULES = PlayerRules("rcsssmj", robot_from_scene=False, close_refused=True, field_lines=False,
                            perceives_before_joining=True, effector_delay=1, joins_after_step=True,
                            vision=RCSSSMJ_VISION, beam_frame=BeamFrame.ABSOLUTE_X,
                            join_spots=JoinSpots.SIDE_LINE)
# Players joined through init_agent, by its `perception`: "" a ROS-native player (SimSpark's
# vision with field lines, commands act at the next step); "simspark" or "rcsssmj" that
# dialect's rules in full, the reference's timing included (what the separate bridge asks for
# its agents). Local brains (the demo teams) read no field lines.
IN_PROCESS_RULES = {
    "": PlayerRules("simspark", False, False, True, False),
    "simspark": PlayerRules("simspark", False, False, True, False, effector_delay=1, beam_noise=SIMSPARK_BEAM_NOISE),
    "rcsssmj": PlayerRules("rcsssmj", False, False, False, False, effector_delay=1, vision=RCSSSMJ_VISION,
                           beam_frame=BeamFrame.ABSOLUTE_X, join_spots=JoinSpots.SIDE_LINE),
}
LOCAL_RULES = PlayerRules("simspark", False, False, False, False)


@dataclass(slots=True)
class AgentConnected:
    agent_id: str
    peer: str


@dataclass(slots=True)
class AgentCommands:
    agent_id: str
    commands: list[Command]


@dataclass(slots=True)
class AgentDisconnected:
    agent_id: str
    reason: str


@dataclass(slots=True)
class AgentError:
    agent_id: str
    message: str


@dataclass(slots=True)
class AgentLagging:
    agent_id: str


AgentEvent = AgentConnected | AgentCommands | AgentDisconnected | AgentError | AgentLagging
