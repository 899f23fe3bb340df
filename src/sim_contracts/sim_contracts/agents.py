"""What an agent transport reports to the loop: connects, commands, leaves, errors, lag.

Why here: the legacy TCP ports, the ROS player topics and in-process players all feed the
same loop; the loop reads these events and never the transport that made them."""
from __future__ import annotations

from dataclasses import dataclass

from sim_contracts.commands import Command


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
