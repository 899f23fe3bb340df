"""What every executable of ours does at its command line, whatever package it is in: `--help`
prints its own usage and starts nothing, and SIGINT and SIGTERM stop it (also when it was
started in the background, where a shell leaves SIGINT ignored). The ROS nodes take their
settings as ROS parameters, so their usage lists those, from the one table they declare.

Why here: `bridge_node` (sim_bridge) and `referee_node` (soccer_referee) are in packages that
do not import each other; this is the one place their command-line rules are written."""
from __future__ import annotations

import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


def as_kind(name: str, kind: type, value: object) -> object:
    """A parameter's value as its declared type: an integer is taken for a float, as a user
    means it (`-p tf_rate:=20`, which ROS reads as an integer); a bool is no number. ValueError
    with one line when it cannot be. The one rule every node of ours applies to parameters."""
    if isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool)):
        return value
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    raise ValueError(f"{name} must be {'a number' if kind is float else f'a {kind.__name__}'}, not {value!r}")


@dataclass(frozen=True, slots=True)
class NodeParameter:
    name: str
    default: Any
    description: str

    def convert(self, value: object) -> Any:
        """The value as the default's type (as_kind)."""
        return as_kind(self.name, type(self.default), value)


def declared_values(node: Any, parameters: Sequence[NodeParameter]) -> dict[str, Any]:
    """Every parameter declared on the rclpy `node` (any type accepted, then converted to
    its default's type: ValueError names the first that is not)."""
    from rcl_interfaces.msg import ParameterDescriptor

    return {p.name: p.convert(node.declare_parameter(
        p.name, p.default, ParameterDescriptor(description=p.description, dynamic_typing=True)).value)
        for p in parameters}


def wants_help(argv: Sequence[str]) -> bool:
    """-h or --help among the executable's own arguments (not after --ros-args)."""
    own = list(argv[: argv.index("--ros-args")] if "--ros-args" in argv else argv)
    return any(arg in ("-h", "--help") for arg in own)


def usage(prog: str, description: str, parameters: Sequence[NodeParameter]) -> str:
    width = max((len(p.name) for p in parameters), default=0)
    lines = [f"usage: {prog} [--ros-args -p NAME:=VALUE ... | --params-file FILE]", "", description, "",
             "parameters:"]
    lines += [f"  {p.name:<{width}}  {p.description} (default: {p.default!r})" for p in parameters]
    return "\n".join(lines)


def stop_on_signals(stop: Callable[[], None]) -> None:
    """SIGINT and SIGTERM call `stop` (which should make the main loop end)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop())
