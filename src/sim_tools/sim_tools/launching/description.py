"""What a launch file asks for, after substitutions: processes to start."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class NodeAction:
    """One <node> (an executable of a package, with ROS arguments) or <executable> (a
    command line as it is: `command` set, no ROS arguments added)."""

    package: str
    executable: str
    command: list[str] = field(default_factory=list)  # <executable cmd=...>
    name: str = ""
    namespace: str = ""
    arguments: list[str] = field(default_factory=list)
    parameters: dict[str, str] = field(default_factory=dict)
    remappings: list[tuple[str, str]] = field(default_factory=list)
    shutdown_on_exit: bool = False  # on_exit="shutdown"
    env: dict[str, str] = field(default_factory=dict)
    params_files: list[str] = field(default_factory=list)  # <param from="file.yaml"/>
    respawn: bool = False  # started again when it exits (unless the launch is ending)
    respawn_delay: float = 0.0  # s before it is started again

    @property
    def label(self) -> str:
        return self.name or self.executable


@dataclass(slots=True)
class LaunchDescription:
    nodes: list[NodeAction] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)  # <set_env>: for every process started
