"""What an agent transport reports to the loop: connects, commands, leaves, errors, lag.

Why here: the legacy TCP ports, the ROS player topics and in-process players all feed the
same loop; the loop reads these events and never the transport that made them."""
from __future__ import annotations

from dataclasses import dataclass

from sim_contracts.commands import Command


@dataclass(frozen=True, slots=True)
class PlayerRules:
    """A dialect's rules for its players, which the loop applies without knowing the dialect:
    written once, on the dialect object (sim_bridge.dialects) or on the in-process source that
    makes the players (ROS-native players, local brains)."""

    dialect: str  # whose vision (names, noise), beam rules and init spots: simspark or rcsssmj
    robot_from_scene: bool  # SimSpark: `scene` makes the robot and `init` joins it; else `init` does both
    close_refused: bool  # rcsssmj closes the connection of an agent whose init is refused
    field_lines: bool  # perceptions carry the field lines the robot sees
    perceives_before_joining: bool  # percepts flow from the robot's creation (TCP), not from joining


SIMSPARK_RULES = PlayerRules("simspark", robot_from_scene=True, close_refused=False, field_lines=True,
                             perceives_before_joining=True)
RCSSSMJ_RULES = PlayerRules("rcsssmj", robot_from_scene=False, close_refused=True, field_lines=False,
                            perceives_before_joining=True)
# ROS-native players perceive as SimSpark's agents (field lines included) or as rcsssmj's,
# once joined; local brains (the demo teams) read no field lines.
IN_PROCESS_RULES = {
    "simspark": PlayerRules("simspark", False, False, True, False),
    "rcsssmj": PlayerRules("rcsssmj", False, False, False, False),
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
