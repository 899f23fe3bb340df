"""Percepts and joint commands <-> sim_msgs messages (no Node needed).

Why in the bridge package: the bridge turns legacy agents into ROS players, so it reads the
percepts the simulation publishes and writes their commands; the simulation node writes
percepts with the same functions. Every field follows its declaration in
`sim_contracts.percept` (its ROS path and kind), so the message is written down once."""
from __future__ import annotations

from collections.abc import Callable
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
from sim_msgs.msg import GameState, HeardMessage, JointCommand, VisionObject
from sim_msgs.msg import Percept as PerceptMsg
from soccer_referee.ros.messages import seconds, stamp

__all__ = ["game_view_to_msg", "joint_command_msg", "percept_from_msg", "percept_to_msg", "seconds", "stamp"]


def _vec(v: tuple[float, float, float]) -> Vector3:
    return Vector3(x=float(v[0]), y=float(v[1]), z=float(v[2]))


def game_view_to_msg(g: GameStateView) -> GameState:
    return GameState(play_mode=g.play_mode, game_time=g.game_time, team_left=g.team_left,
                     team_right=g.team_right, score_left=g.score_left, score_right=g.score_right)


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
        setattr(owner, leaf, [float(v) for v in value])
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


def _vision_to_msg(msg: PerceptMsg, vision: Vision | None) -> None:
    msg.vision_updated = vision is not None
    if vision is None:
        return
    seen = [VisionObject(name=n, distance=o.distance, azimuth=o.azimuth, elevation=o.elevation)
            for n, o in vision.objects.items()]
    for player in vision.players:
        seen += [VisionObject(name=part, team=player.team, unum=player.unum, distance=o.distance,
                              azimuth=o.azimuth, elevation=o.elevation) for part, o in player.parts.items()]
    msg.seen = seen
    msg.line_ends = [VisionObject(name="L", distance=e.distance, azimuth=e.azimuth, elevation=e.elevation)
                     for line in vision.lines for e in line]


def _vision_from_msg(msg: PerceptMsg) -> Vision | None:
    if not msg.vision_updated:
        return None
    vision = Vision()
    players: dict[tuple[str, int], SeenPlayer] = {}
    for o in msg.seen:
        polar = Polar(o.distance, o.azimuth, o.elevation)
        if o.team:
            players.setdefault((o.team, o.unum), SeenPlayer(o.team, o.unum, {})).parts[o.name] = polar
        else:
            vision.objects[o.name] = polar
    vision.players = list(players.values())
    ends = [Polar(o.distance, o.azimuth, o.elevation) for o in msg.line_ends]
    vision.lines = list(zip(ends[0::2], ends[1::2], strict=True))
    return vision


# The fields declared `ros_kind="custom"` in sim_contracts.percept: (to msg, from msg).
_CUSTOM: dict[str, tuple[Callable[[PerceptMsg, Any], None], Callable[[PerceptMsg], Any]]] = {
    "game": (lambda msg, g: setattr(msg, "game_state", game_view_to_msg(g)),
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
    sim_contracts.percept); side and unum are the player's, the stamp the cycle's."""
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
