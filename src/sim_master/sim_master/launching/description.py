"""What a launch file asks for, after substitutions: processes to start."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class NodeAction:
    """One <node>: an executable of a package, with ROS arguments."""

    package: str
    executable: str
    name: str = ""
    namespace: str = ""
    arguments: list[str] = field(default_factory=list)
    parameters: dict[str, str] = field(default_factory=dict)
    remappings: list[tuple[str, str]] = field(default_factory=list)
    shutdown_on_exit: bool = False  # on_exit="shutdown"
    env: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.name or self.executable


@dataclass(slots=True)
class LaunchDescription:
    nodes: list[NodeAction] = field(default_factory=list)
