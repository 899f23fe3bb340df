"""Our contracts as soccersim.v1 messages (pure functions, no gRPC, no ROS).

Why one module: the snapshot, the game state and the events reach API clients only through
these, as they reach ROS through ros/convert.py and soccer_referee/ros/messages.py; the
field names are sim_msgs' (test_proto_contract.py)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sim_physics.snapshot import EntitySnapshot, Snapshot

from soccer_referee.events import GameEvent
from soccer_referee.game_state import GameStateSnapshot
from soccersim_api.v1 import soccersim_pb2 as pb


def entity_state(e: EntitySnapshot) -> pb.EntityState:
    p, q, v, w = e.position, e.orientation, e.linear_velocity, e.angular_velocity
    return pb.EntityState(
        name=e.name, owner=e.owner, model=e.model,
        pose=pb.Pose(position=pb.Vector3(x=p[0], y=p[1], z=p[2]),
                     orientation=pb.Quaternion(w=q[0], x=q[1], y=q[2], z=q[3])),
        twist=pb.Twist(linear=pb.Vector3(x=v[0], y=v[1], z=v[2]), angular=pb.Vector3(x=w[0], y=w[1], z=w[2])),
        joint_names=e.joint_names, joint_positions=e.joint_positions, joint_velocities=e.joint_velocities)


def snapshot(s: Snapshot, names: Iterable[str] | None = None) -> pb.Snapshot:
    """`names`: only these entities (in this order); all by default."""
    chosen = s.entities.values() if names is None else (s.entities[n] for n in names if n in s.entities)
    return pb.Snapshot(step=s.step, stamp=s.time, full=s.full, entities=[entity_state(e) for e in chosen],
                       removed=s.removed)


def snapshot_from(msg: pb.Snapshot) -> Snapshot:
    """A stream's message back to our Snapshot (clients and tests)."""
    out: dict[str, EntitySnapshot] = {}
    for e in msg.entities:
        p, q, v, w = e.pose.position, e.pose.orientation, e.twist.linear, e.twist.angular
        out[e.name] = EntitySnapshot(e.name, (p.x, p.y, p.z), (q.w, q.x, q.y, q.z), (v.x, v.y, v.z), (w.x, w.y, w.z),
                                     tuple(e.joint_names), tuple(e.joint_positions), tuple(e.joint_velocities),
                                     e.owner, e.model)
    return Snapshot(msg.step, msg.stamp, msg.full, out, tuple(msg.removed))


def game_state(s: GameStateSnapshot, stamp: float) -> pb.GameState:
    touch = s.last_touch
    return pb.GameState(stamp=stamp, play_mode=s.play_mode.value, play_mode_index=s.play_mode.monitor_index,
                        game_time=s.game_time, half=s.half, team_left=s.team_left, team_right=s.team_right,
                        score_left=s.score_left, score_right=s.score_right,
                        last_touch_team=touch[0] if touch else "", last_touch_unum=touch[1] if touch else 0)


def game_event(e: GameEvent, stamp: float) -> pb.GameEvent:
    return pb.GameEvent(stamp=stamp, game_time=e.time, kind=e.kind, team=e.team, unum=e.unum, detail=e.detail)


def _shape(d: dict[str, Any]) -> pb.Shape:
    return pb.Shape(kind=d.get("kind", ""), points=[pb.Vector3(x=p[0], y=p[1], z=p[2]) for p in d.get("points", ())],
                    size=float(d.get("size", 0.0)), width=float(d.get("width", 0.0)),
                    color=[int(c) for c in d.get("color", ())], text=d.get("text", "") or "")


def drawing_board(board: dict[str, Any], version: int) -> pb.DrawingBoard:
    """The drawing feed's board (DrawingBoard.to_dict()'s shape: what the browser draws)."""
    return pb.DrawingBoard(
        version=max(version, 0),
        sets=[pb.DrawingSet(name=name, shapes=[_shape(s) for s in shapes])
              for name, shapes in board.get("sets", {}).items()],
        agents=[pb.AgentText(side=a["side"], unum=a["unum"], text=a.get("text") or "",
                             color=[int(c) for c in a.get("color", ())]) for a in board.get("agents", ())])
