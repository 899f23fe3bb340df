"""Whose serialization the per-cycle player messages use: sim_hotpath's CDR code or rclpy's.

sim_hotpath writes and reads sim_msgs/Percept and JointCommand bytes itself (rclpy's conversion
was most of a player's cost to the server, issues 28 and 44), walking field tables generated from
the messages when it was built (`sim_hotpath/generate_tables.py`). That is right only for the
encoding it was written for (Fast DDS's XCDR1, little endian) and the messages it was built
against. So every node that uses it asks `cdr_path()` once at start: the middleware, the installed
messages' type hashes against the ones built in, and a full sample through both serializers.
When any differs the node uses rclpy's messages instead, and says why in one log line.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from ament_index_python import get_package_share_directory
from builtin_interfaces.msg import Time
from rclpy.serialization import deserialize_message, serialize_message
from rclpy.utilities import get_rmw_implementation_identifier

import sim_hotpath
from sim_bridge.ros.percepts import (
    PERCEPT_TYPES,
    joint_command_cdr,
    joint_command_msg,
    percept_from_msg,
    percept_to_msg,
    stamp,
)
from sim_contracts.percept import ForceResistance, GameStateView, Heard, Percept, Polar, SeenPlayer, Vision
from sim_msgs.msg import JointCommand
from sim_msgs.msg import Percept as PerceptMsg

__all__ = ["CDR_MIDDLEWARES", "CdrPath", "cdr_path", "installed_type_hash", "refusal", "warning"]

# The middlewares whose serialized messages are the XCDR1 little-endian bytes sim_hotpath writes.
CDR_MIDDLEWARES: Final = ("rmw_fastrtps_cpp", "rmw_fastrtps_dynamic_cpp")
# The messages whose bytes sim_hotpath handles, with the type hash it was built against.
BUILT_FOR: Final = {"Percept": sim_hotpath.PERCEPT_TYPE_HASH, "JointCommand": sim_hotpath.JOINT_COMMAND_TYPE_HASH}

JointCommandFields = tuple[int, list[str], list[float], list[float], list[float], list[float], list[float],
                           list[float], bool]


def installed_type_hash(message: str) -> str:
    """The RIHS01 type hash of the installed sim_msgs/msg/<message> (its type description)."""
    try:
        path = Path(get_package_share_directory("sim_msgs")) / "msg" / f"{message}.json"
        entries = json.loads(path.read_text(encoding="utf-8")).get("type_hashes", [])
        for entry in entries:
            if entry.get("type_name") == f"sim_msgs/msg/{message}":
                return str(entry["hash_string"])
    except (LookupError, OSError, ValueError, AttributeError, TypeError, KeyError):
        pass  # no readable type description: "unknown", which no build matches (rclpy's path)
    return "unknown"


def refusal(middleware: str | None = None) -> str | None:
    """Why sim_hotpath's bytes do not fit the middleware and messages running now; None if they do."""
    middleware = middleware or get_rmw_implementation_identifier()
    if middleware not in CDR_MIDDLEWARES:
        return f"the middleware is {middleware}, sim_hotpath's CDR is written for {', '.join(CDR_MIDDLEWARES)}"
    for message, built in BUILT_FOR.items():
        installed = installed_type_hash(message)
        if installed != built:
            return f"sim_msgs/{message} is {installed}, sim_hotpath was built for {built}"
    return None


def _sample() -> Percept:
    """A percept with every field set (the start-up round trip's)."""
    return Percept(
        time=12.5, game=GameStateView("PlayOn", 30.25, 1, 2, "Alpha", "Beta", unum=3, side="left"),
        gyro=(1.0, -2.0, 3.5), accel=(0.25, 0.5, 9.75), joint_names=["hj1", "hj2"], joint_angles=[1.5, -2.5],
        joint_velocities=[3.0, -4.0], foot_resistance=[ForceResistance("lf", (0.0, 0.5, -0.25), (1.0, 2.0, 30.0))],
        torso_position=(-1.0, 2.0, 0.5), torso_quaternion=(0.5, -0.5, 0.5, -0.5),
        vision=Vision({"F1L": Polar(1.5, -2.5, 0.25)}, [SeenPlayer("Beta", 4, {"head": Polar(2.0, 1.0, 0.5)})],
                      [(Polar(1.0, 2.0, 3.0), Polar(4.0, 5.0, 6.0))], {"mypos": (1.0, 2.0, 0.5)}),
        heard=[Heard(12.0, -30.5, "hi", False, True, "Alpha")])


def _round_trips() -> str | None:
    """Why the compiled writers and readers disagree with rclpy on a full sample (None: they agree)."""
    from sim_contracts.commands import JointTargets

    sample = _sample()
    msg = percept_to_msg(sample, stamp(sample.time), "left", 3)
    try:
        if repr(sim_hotpath.percept_from_cdr(serialize_message(msg), PERCEPT_TYPES)) != repr(percept_from_msg(msg)):
            return "the compiled percept reader reads rclpy's bytes otherwise"
        written = sim_hotpath.percept_cdr(sample, msg.header.stamp.sec, msg.header.stamp.nanosec, "left", 3)
        if deserialize_message(written, PerceptMsg) != msg:
            return "rclpy reads the compiled percept writer's bytes otherwise"
        command = JointTargets({"hj1": (0.5, 0.0, 20.0, 0.1, 0.0), "hj2": (-0.5, 0.1, 25.0, 0.2, 1.0)})
        expected = joint_command_msg(command)
        assert expected is not None
        expected.synchronize = True
        data = joint_command_cdr(command, True)
        if data is None or deserialize_message(data, JointCommand) != expected:
            return "rclpy reads the joint command writer's bytes otherwise"
        if sim_hotpath.joint_command_from_cdr(serialize_message(expected)) != _joint_command_fields(expected):
            return "the compiled joint command reader reads rclpy's bytes otherwise"
    except (ValueError, TypeError) as exc:
        return f"the compiled CDR code failed on a sample: {exc}"
    return None


def _joint_command_fields(msg: JointCommand) -> JointCommandFields:
    """A JointCommand message as joint_command_from_cdr's tuple."""
    return (msg.mode, list(msg.names), list(msg.velocities), list(msg.q), list(msg.dq), list(msg.kp),
            list(msg.kd), list(msg.tau), bool(msg.synchronize))


@dataclass(frozen=True)
class CdrPath:
    """The serializers a node uses for the players' messages. `raw` says whether subscriptions
    take bytes (read by sim_hotpath) or messages (read by rclpy); the functions take whichever."""

    raw: bool
    why_not: str | None = None

    def percept_out(self, percept: Percept, t: Time, side: str, unum: int) -> bytes | PerceptMsg:
        """What a percept publisher publishes: the bytes, or the message."""
        if self.raw:
            return sim_hotpath.percept_cdr(percept, t.sec, t.nanosec, side, unum)
        return percept_to_msg(percept, t, side, unum)

    def percept_in(self, data: bytes | PerceptMsg) -> Percept:
        """A percept subscription's message (bytes when raw) as the Percept; ValueError for bytes
        that are not one."""
        if isinstance(data, bytes | bytearray | memoryview):
            return sim_hotpath.percept_from_cdr(bytes(data), PERCEPT_TYPES)
        return percept_from_msg(data)

    def joint_command_out(self, command: object, synchronize: bool) -> bytes | JointCommand | None:
        """What a joint command publisher publishes for an agent's command (None: not a joint command)."""
        if self.raw:
            return joint_command_cdr(command, synchronize)
        msg = joint_command_msg(command)
        if msg is not None:
            msg.synchronize = synchronize
        return msg

    def joint_command_in(self, data: bytes | JointCommand) -> JointCommandFields:
        """A joint command subscription's message as its fields; ValueError for broken bytes."""
        if isinstance(data, bytes | bytearray | memoryview):
            return sim_hotpath.joint_command_from_cdr(bytes(data))
        return _joint_command_fields(data)


@cache
def cdr_path() -> CdrPath:
    """The serializers for this process, checked once (see the module's docstring); `why_not`
    says why rclpy's are used, for the node to log (`warning`)."""
    why_not = refusal() or _round_trips()
    return CdrPath(raw=why_not is None, why_not=why_not)


def warning(path: CdrPath) -> str | None:
    """The one log line a node writes when it uses rclpy's serialization."""
    if path.why_not is None:
        return None
    return f"player messages go through rclpy's serialization (slower): {path.why_not}"
