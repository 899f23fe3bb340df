"""The server's settings as ROS parameters: declared on its node with descriptions and
ranges (read-only: they shape the match when it starts; `dynamic` ones may change live),
set by `--ros-args -p name:=value`,
a YAML `--params-file`, or launch `<param>`, and mapped onto the `soccersim server` flags.

Why derived from ServerConfig: the settings are written down once (`master/config.py`);
every field but `ros` and `node_name` is a parameter of the same name. A field whose value
may be "none" (a disabled port, no log) has a parameter value that stands for it (-1 or "").
Parameters given to the node win over the command-line flags.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import rclpy
from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor, SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter

from sim_contracts.node_cli import as_kind
from sim_master.master.config import ServerConfig
from sim_master.master.ground_truth import GROUND_TRUTH


@dataclass(frozen=True, slots=True)
class Setting:
    name: str
    kind: type
    description: str
    none: Any = None  # the parameter value that means None in ServerConfig
    low: float | None = None
    high: float | None = None
    dynamic: bool = False  # may change while the server runs (`ros2 param set`), within its range
    items: tuple[str, ...] = ()  # a comma-separated list of these (a tuple in ServerConfig)


PORT = "TCP port; 0 picks a free one, -1 disables it"
SETTINGS: Final = (
    Setting("sync", bool, "lock-step: each cycle waits for every agent's (syn)"),
    Setting("realtime", bool, "pace cycles to 20 ms (sync mode ignores it)"),
    Setting("host", str, "bind address of every port"),
    Setting("simspark_port", int, f"SimSpark agents' {PORT}", -1, -1, 65535),
    Setting("simspark_monitor_port", int, f"SimSpark monitors' {PORT}", -1, -1, 65535),
    Setting("rcsssmj_port", int, f"rcsssmj agents' {PORT}", -1, -1, 65535),
    Setting("rcsssmj_monitor_port", int, f"rcsssmj monitors' {PORT}", -1, -1, 65535),
    Setting("service_port", int, f"text service port: {PORT}", -1, -1, 65535),
    Setting("web_port", int, f"browser monitor: {PORT}", -1, -1, 65535),
    Setting("grpc_port", int, f"the core API over gRPC (soccersim.v1): {PORT}", -1, -1, 65535),
    Setting("grpc_host", str, "bind address of the gRPC API (another than loopback needs TLS and a token, or "
            "grpc_insecure)"),
    Setting("grpc_tls_cert", str, "the gRPC API's TLS certificate (PEM file); empty: none", ""),
    Setting("grpc_tls_key", str, "the gRPC API's TLS key (PEM file); empty: none", ""),
    Setting("grpc_insecure", bool, "serve the gRPC API off loopback without TLS and token"),
    Setting("draw_port", int, "agents' debug drawings (RoboViz's protocol) for the browser monitor: UDP port; "
            "0 picks a free one, -1 disables it", -1, -1, 65535),
    Setting("world", str, "world name in worlds/ or an .sdf file"),
    Setting("engine", str, "physics engine: auto (default: ODE for SimSpark robots, MuJoCo for rcsssmj robots), "
            "mujoco, ode or gazebo"),
    Setting("physics_threads", int, "ODE's islands on this many threads (the same results on any number); "
            "0: one per core, up to 4", None, 0, 16),
    Setting("overlap_step", bool, "sync mode: perceive the agent ports' players while ODE steps (false: after "
            "each step, the same percepts, slower)"),
    Setting("rules", str, "rule book: simspark (as rcssserver3d), rcssserver3d, "
            "simspark-swap (ends change at half time), fifa, ssim"),
    Setting("log_path", str, "replay log (MCAP) to write; empty: none", ""),
    Setting("log_players", bool, "the replay log also holds every player's percepts and joint commands",
            dynamic=True),
    Setting("seed", int, "seed of sensor and beam noise; -1: from the clock", -1, -1, 2**31 - 1),
    Setting("sync_timeout", float, "sync mode: seconds a cycle waits for a silent agent", None, 0.001, 3600.0,
            dynamic=True),
    Setting("allow_remote_monitor_commands", bool, "accept monitor commands from non-loopback addresses"),
    Setting("max_cycles", int, "stop after this many cycles; 0: never", 0, 0, 2**31 - 1),
    Setting("vision_noise", bool, "SimSpark's vision noise"),
    Setting("beam_noise", bool, "SimSpark's beam noise (+-0.05 m, +-10 deg, as rcssserver3d)"),
    Setting("kickoff_after", float, "kick off by itself after this long in BeforeKickOff (s); -1: never",
            -1.0, -1.0, 3600.0),
    Setting("wait_for_teams", bool, "hold the simulation until both teams have joined"),
    Setting("referee", str, "internal: the referee judges in this process; external: a referee_node in its "
            "own process judges over DDS"),
    Setting("half_time", float, "half length in s of game time; 0: the rule book's", 0.0, 0.0, 86400.0),
    Setting("ground_truth", str, "ground truth in each vision: comma-separated of mypos, myorien, ballpos",
            items=GROUND_TRUTH),
    Setting("tf_rate", float, "/tf messages per second of sim time", None, 0.5, 50.0, dynamic=True),
)
# the gRPC token is a secret: a parameter is readable by every participant of the domain
NOT_PARAMETERS: Final = ("ros", "node_name", "grpc_token")
ROS_OWN: Final = ("use_sim_time", "start_type_description_service")  # every rclpy node declares these


class ParameterError(ValueError):
    """A parameter value the server cannot use (one line for the user)."""


def parameter_values(config: ServerConfig) -> dict[str, Any]:
    """The config as parameter values (None as each setting's stand-in)."""
    values = {}
    for s in SETTINGS:
        value = getattr(config, s.name)
        values[s.name] = s.none if value is None else ",".join(value) if s.items else s.kind(value)
    return values


def apply(config: ServerConfig, overrides: dict[str, Any]) -> ServerConfig:
    """The config with these parameter values; unknown names and bad values are refused."""
    settings = {s.name: s for s in SETTINGS}
    changes: dict[str, Any] = {}
    for name, value in overrides.items():
        s = settings.get(name)
        if s is None:
            raise ParameterError(f"unknown parameter {name!r} (known: {', '.join(settings)})")
        try:
            value = as_kind(f"parameter {name}", s.kind, value)
        except ValueError as exc:
            raise ParameterError(str(exc)) from None
        if isinstance(value, int | float) and s.low is not None and s.high is not None \
                and not s.low <= value <= s.high:
            raise ParameterError(f"parameter {name}: {value!r} outside {s.low:g}..{s.high:g}")
        if s.items:
            listed = tuple(item.strip() for item in str(value).split(",") if item.strip())
            unknown = [item for item in listed if item not in s.items]
            if unknown:
                raise ParameterError(f"parameter {name}: {unknown[0]!r} is none of {', '.join(s.items)}")
            value = listed
        changes[name] = None if s.none is not None and value == s.none else value
    return dataclasses.replace(config, **changes)


def read_overrides(ros_args: list[str], node_name: str) -> dict[str, Any]:
    """The parameter values --ros-args gives the server's node (-p, --params-file), read
    before the server is built, in a context of their own."""
    context = rclpy.Context()
    try:
        rclpy.init(args=["soccersim", *ros_args], context=context)
    except Exception as exc:  # noqa: BLE001 - rcl's errors (a broken --params-file) are one line for the user
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        raise ParameterError(f"--ros-args not understood: {lines[0] if lines else type(exc).__name__}"[:300]) from None
    try:
        node = Node(node_name, context=context, automatically_declare_parameters_from_overrides=True,
                    start_parameter_services=False, enable_rosout=False)
        try:
            declared = node.get_parameters_by_prefix("")
            return {name: p.value for name, p in declared.items() if name not in ROS_OWN}
        finally:
            node.destroy_node()
    finally:
        rclpy.shutdown(context=context)


def declare(node: Node, config: ServerConfig, on_change: Callable[[str, Any], None] | None = None) -> None:
    """Every setting as a parameter with its description and range; read-only but for the
    dynamic ones, whose new values are checked (type, range) and handed to `on_change`."""
    values = parameter_values(config)
    settings = {s.name: s for s in SETTINGS}

    def check(params: list[Parameter]) -> SetParametersResult:
        for p in params:
            s = settings.get(p.name)
            if s is None or not s.dynamic:
                continue
            try:
                apply(config, {p.name: p.value})
            except ParameterError as exc:
                return SetParametersResult(successful=False, reason=str(exc))
        for p in params:
            if p.name in settings and settings[p.name].dynamic and on_change is not None:
                on_change(p.name, p.value)
        return SetParametersResult(successful=True)

    node.add_on_set_parameters_callback(check)
    _integers_as_floats(node)
    for s in SETTINGS:
        descriptor = ParameterDescriptor(description=s.description, read_only=not s.dynamic)
        if s.kind is int and s.low is not None and s.high is not None:
            descriptor.integer_range = [IntegerRange(from_value=int(s.low), to_value=int(s.high), step=1)]
        elif s.kind is float and s.low is not None and s.high is not None:
            descriptor.floating_point_range = [FloatingPointRange(from_value=float(s.low), to_value=float(s.high))]
        if not node.has_parameter(s.name):
            node.declare_parameter(s.name, values[s.name], descriptor)


def _integers_as_floats(node: Node) -> None:
    """`-p tf_rate:=20` is an integer to ROS, and rclpy refuses an integer for a parameter
    declared as a float; a user means 20.0. The node's overrides of our float settings are
    made floats before they are declared (rclpy keeps them in `_parameter_overrides`, read
    at declaration; it has no public setter)."""
    overrides: dict[str, Parameter] = getattr(node, "_parameter_overrides", {})
    for s in SETTINGS:
        given = overrides.get(s.name)
        if s.kind is float and given is not None and given.type_ == Parameter.Type.INTEGER:
            overrides[s.name] = Parameter(s.name, Parameter.Type.DOUBLE, as_kind(s.name, float, given.value))
