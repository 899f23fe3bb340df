"""Percepts and joint commands <-> sim_msgs messages (no Node needed).

Why in the bridge package: the bridge turns legacy agents into ROS players, so it reads the
percepts the simulation publishes and writes their commands; the simulation node writes
percepts with the same functions. Every field follows its declaration in
`sim_contracts.percept` (its ROS path and kind), so the message is written down once."""
from __future__ import annotations

import struct
from array import array
from collections.abc import Callable, Sequence
from typing import Any

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Vector3

from sim_contracts.commands import JointTargets, JointVelocities
from sim_contracts.percept import (
    ForceResistance,
    GameStateView,
    Heard,
    Percept,
    Polar,
    SeenPlayer,
    Vision,
    percept_fields,
)
from sim_msgs.msg import ForceResistance as ForceResistanceMsg
from sim_msgs.msg import GameState, HeardMessage, JointCommand, VisionObjects
from sim_msgs.msg import Percept as PerceptMsg
from soccer_referee.ros.messages import seconds, stamp

__all__ = ["PERCEPT_TYPES", "game_view_to_msg", "joint_command_cdr", "joint_command_msg", "percept_from_msg",
           "percept_to_msg", "seconds", "stamp"]


def _vec(v: tuple[float, float, float]) -> Vector3:
    return Vector3(x=float(v[0]), y=float(v[1]), z=float(v[2]))


def game_view_to_msg(g: GameStateView) -> GameState:
    return GameState(play_mode=g.play_mode, game_time=g.game_time, team_left=g.team_left,
                     team_right=g.team_right, score_left=g.score_left, score_right=g.score_right)


def _game_into(out: GameState, g: GameStateView) -> None:
    out.play_mode, out.game_time, out.team_left, out.team_right = g.play_mode, g.game_time, g.team_left, g.team_right
    out.score_left, out.score_right = g.score_left, g.score_right


def _attr_path(root: Any, path: str) -> tuple[Any, str]:
    *parents, leaf = path.split(".")
    for name in parents:
        root = getattr(root, name)
    return root, leaf


def _set_generic(msg: PerceptMsg, path: str, kind: str, value: Any) -> None:
    owner, leaf = _attr_path(msg, path)
    if kind == "stamp":
        setattr(owner, leaf, stamp(value))
    elif kind == "vec3":
        target = getattr(owner, leaf)
        target.x, target.y, target.z = (float(v) for v in value)
    elif kind == "quat_wxyz":
        target = getattr(owner, leaf)
        target.w, target.x, target.y, target.z = (float(v) for v in value)
    elif kind == "floats":
        setattr(owner, leaf, array("d", value))  # the message's own type: no check per element
    elif kind == "strings":
        setattr(owner, leaf, [str(v) for v in value])
    else:  # pragma: no cover - percept.ROS_KINDS and this function change together
        raise ValueError(f"unknown ros_kind {kind!r}")


def _get_generic(msg: PerceptMsg, path: str, kind: str) -> Any:
    owner, leaf = _attr_path(msg, path)
    value = getattr(owner, leaf)
    if kind == "stamp":
        return seconds(value)
    if kind == "vec3":
        return (value.x, value.y, value.z)
    if kind == "quat_wxyz":
        return (value.w, value.x, value.y, value.z)
    return list(value)


def _objects_msg(names: list[str], teams: list[str], unums: list[int], polars: list[Polar]) -> VisionObjects:
    columns = list(zip(*polars, strict=True)) if polars else [(), (), ()]
    out = VisionObjects()
    out.name, out.team, out.unum = names, teams, array("B", unums)
    out.distance, out.azimuth, out.elevation = (array("f", c) for c in columns)
    return out


TRUTH_FIELDS = {"mypos": "my_pos", "myorien": "my_orien", "ballpos": "ball_pos"}  # Vision.truth -> msg


def _vision_to_msg(msg: PerceptMsg, vision: Vision | None) -> None:
    msg.vision_updated = vision is not None
    truth = vision.truth if vision is not None else {}
    for name, field_name in TRUTH_FIELDS.items():
        setattr(msg, field_name, array("d", truth.get(name, ())))
    if vision is None:
        return  # seen and line_ends stay empty
    names, polars = list(vision.objects), list(vision.objects.values())
    teams, unums = [""] * len(names), [0] * len(names)
    for player in vision.players:
        names += player.parts
        polars += player.parts.values()
        teams += [player.team] * len(player.parts)
        unums += [player.unum] * len(player.parts)
    msg.seen = _objects_msg(names, teams, unums, polars)
    ends = [e for line in vision.lines for e in line]
    msg.line_ends = _objects_msg(["L"] * len(ends), [""] * len(ends), [0] * len(ends), ends)


def _vision_from_msg(msg: PerceptMsg) -> Vision | None:
    if not msg.vision_updated:
        return None
    vision = Vision()
    players: dict[tuple[str, int], SeenPlayer] = {}
    seen = msg.seen
    for name, team, unum, *polar in zip(seen.name, seen.team, seen.unum, seen.distance, seen.azimuth,
                                        seen.elevation, strict=True):
        if team:
            players.setdefault((team, unum), SeenPlayer(team, unum, {})).parts[name] = Polar(*polar)
        else:
            vision.objects[name] = Polar(*polar)
    vision.players = list(players.values())
    ends = [Polar(*e) for e in zip(msg.line_ends.distance, msg.line_ends.azimuth, msg.line_ends.elevation,
                                   strict=True)]
    vision.lines = list(zip(ends[0::2], ends[1::2], strict=True))
    vision.truth = {name: tuple(getattr(msg, field_name)) for name, field_name in TRUTH_FIELDS.items()
                    if len(getattr(msg, field_name))}
    return vision


# The fields declared `ros_kind="custom"` in sim_contracts.percept: (to msg, from msg).
_CUSTOM: dict[str, tuple[Callable[[PerceptMsg, Any], None], Callable[[PerceptMsg], Any]]] = {
    "game": (lambda msg, g: _game_into(msg.game_state, g),
             lambda msg: GameStateView(
                 play_mode=msg.game_state.play_mode, game_time=msg.game_state.game_time,
                 score_left=msg.game_state.score_left, score_right=msg.game_state.score_right,
                 team_left=msg.game_state.team_left, team_right=msg.game_state.team_right,
                 unum=msg.unum, side=msg.side)),
    "foot_resistance": (
        lambda msg, frp: setattr(msg, "foot_resistance", [
            ForceResistanceMsg(name=f.name, center=_vec(f.center), force=_vec(f.force)) for f in frp]),
        lambda msg: [ForceResistance(f.name, (f.center.x, f.center.y, f.center.z), (f.force.x, f.force.y, f.force.z))
                     for f in msg.foot_resistance]),
    "vision": (_vision_to_msg, _vision_from_msg),
    "heard": (lambda msg, heard: setattr(msg, "heard", [
        HeardMessage(time=h.time, from_self=h.from_self, from_teammate=h.from_teammate, direction=h.direction,
                     message=h.message, team=h.team) for h in heard]),
              lambda msg: [Heard(h.time, h.direction, h.message, h.from_self, h.from_teammate, h.team)
                           for h in msg.heard]),
}


def percept_to_msg(p: Percept, time: Time, side: str, unum: int) -> PerceptMsg:
    """Every declared field of the percept into its sim_msgs/Percept field (see
    sim_contracts.percept); side and unum are the player's, the stamp the cycle's. (ROS
    players' percepts are written as CDR by sim_hotpath.percept_cdr, held equal to this.)"""
    msg = PerceptMsg()
    for f in percept_fields():
        kind, path = f.metadata["ros_kind"], f.metadata["ros"]
        if kind == "custom":
            _CUSTOM[f.name][0](msg, getattr(p, f.name))
        else:
            _set_generic(msg, path, kind, getattr(p, f.name))
    msg.header.stamp = time
    msg.header.frame_id = "torso"
    msg.game_state.stamp = time
    msg.unum, msg.side = unum, side
    return msg


def percept_from_msg(msg: PerceptMsg) -> Percept:
    values = {f.name: (_CUSTOM[f.name][1](msg) if f.metadata["ros_kind"] == "custom"
                       else _get_generic(msg, f.metadata["ros"], f.metadata["ros_kind"]))
              for f in percept_fields()}
    return Percept(**values)


# What sim_hotpath.percept_from_cdr builds a Percept of, in its order.
PERCEPT_TYPES = (Percept, GameStateView, ForceResistance, Vision, SeenPlayer, Polar, Heard)


def joint_command_msg(command: object) -> JointCommand | None:
    """An agent's joint speeds or PD targets as a JointCommand message (None for other commands)."""
    if isinstance(command, JointVelocities):
        return JointCommand(mode=JointCommand.MODE_VELOCITY, names=list(command.speeds),
                            velocities=[float(v) for v in command.speeds.values()])
    if isinstance(command, JointTargets):
        values = list(command.targets.values())
        return JointCommand(mode=JointCommand.MODE_PD, names=list(command.targets), q=[v[0] for v in values],
                            dq=[v[1] for v in values], kp=[v[2] for v in values], kd=[v[3] for v in values],
                            tau=[v[4] for v in values])
    return None


def joint_command_cdr(command: object, synchronize: bool) -> bytes | None:
    """joint_command_msg(command) with its `synchronize` flag, serialized as rmw_fastrtps writes
    it (XCDR1 little endian: what rclpy's serialize_message gives, held equal by
    test_joint_command_cdr.py), for Publisher.publish: every bridged agent's every cycle, where
    building the message and converting it cost more than the bridge's other work for it."""
    if isinstance(command, JointVelocities):
        names = list(command.speeds)
        columns: list[Sequence[float]] = [list(command.speeds.values()), (), (), (), (), ()]
        mode = JointCommand.MODE_VELOCITY
    elif isinstance(command, JointTargets):
        names = list(command.targets)
        values = list(command.targets.values())
        columns = [(), *([v[k] for v in values] for k in range(5))]
        mode = JointCommand.MODE_PD
    else:
        return None
    out = bytearray(b"\x00\x01\x00\x00")
    out.append(mode)
    _cdr_align(out, 4)
    out += struct.pack("<I", len(names))
    for name in names:
        text = name.encode()
        _cdr_align(out, 4)
        out += struct.pack("<I", len(text) + 1)
        out += text
        out.append(0)
    for column in columns:
        _cdr_align(out, 4)
        out += struct.pack("<I", len(column))
        if column:
            _cdr_align(out, 8)
            out += struct.pack(f"<{len(column)}d", *column)
    out.append(1 if synchronize else 0)
    return bytes(out)


def _cdr_align(out: bytearray, size: int) -> None:
    """Pad to `size` from the end of the 4-byte encapsulation header."""
    out += bytes(-(len(out) - 4) % size)
