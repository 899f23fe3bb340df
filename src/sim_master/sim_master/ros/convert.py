"""Plain data <-> sim_msgs messages (no Node needed): snapshots, entities, percepts, time."""
from __future__ import annotations

import math

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Vector3

from sim_contracts.percept import ForceResistance, GameStateView, Heard, Percept, Polar, SeenPlayer, Vision
from sim_master.snapshot import EntitySnapshot, Snapshot
from sim_master.store.snapshot_records import entity_from_record as entity_from_msg
from sim_master.store.snapshot_records import seconds
from sim_master.store.snapshot_records import snapshot_from_record as snapshot_from_msg
from sim_msgs.msg import EntityState, ForceResistance as ForceResistanceMsg, GameState, HeardMessage
from sim_msgs.msg import Percept as PerceptMsg
from sim_msgs.msg import Snapshot as SnapshotMsg
from sim_msgs.msg import VisionObject


def stamp(t: float) -> Time:
    sec = math.floor(t)
    return Time(sec=int(sec), nanosec=min(999_999_999, int(round((t - sec) * 1e9))))


def entity_to_msg(e: EntitySnapshot) -> EntityState:
    msg = EntityState(name=e.name, owner=e.owner)
    p, o = msg.pose.position, msg.pose.orientation
    p.x, p.y, p.z = e.position
    o.w, o.x, o.y, o.z = e.orientation
    lin, ang = msg.twist.linear, msg.twist.angular
    lin.x, lin.y, lin.z = e.linear_velocity
    ang.x, ang.y, ang.z = e.angular_velocity
    msg.joint_names = list(e.joint_names)
    msg.joint_positions = list(e.joint_positions)
    msg.joint_velocities = list(e.joint_velocities)
    msg.header.frame_id = e.model  # the model travels in frame_id's place: world frame is implied
    return msg


def snapshot_to_msg(s: Snapshot) -> SnapshotMsg:
    return SnapshotMsg(step=s.step, stamp=stamp(s.time), full=s.full,
                       entities=[entity_to_msg(e) for e in s.entities.values()], removed=list(s.removed))


def snapshot_to_packed_msg(s: Snapshot) -> SnapshotMsg:
    """The compact form: one byte array instead of a message per entity (data plane)."""
    return SnapshotMsg(step=s.step, stamp=stamp(s.time), full=s.full, packed=s.to_bytes())


def _vec(v: tuple[float, float, float]) -> Vector3:
    return Vector3(x=float(v[0]), y=float(v[1]), z=float(v[2]))


def game_view_to_msg(g: GameStateView) -> GameState:
    return GameState(play_mode=g.play_mode, game_time=g.game_time, team_left=g.team_left,
                     team_right=g.team_right, score_left=g.score_left, score_right=g.score_right)


def percept_to_msg(p: Percept, time: Time, side: str, unum: int) -> PerceptMsg:
    msg = PerceptMsg()
    msg.header.stamp = time
    msg.header.frame_id = "torso"
    msg.game_state = game_view_to_msg(p.game)
    msg.game_state.stamp = time
    msg.unum, msg.side = unum, side
    msg.gyro, msg.accelerometer = _vec(p.gyro), _vec(p.accel)
    pose = msg.torso_pose
    pose.position.x, pose.position.y, pose.position.z = (float(v) for v in p.torso_position)
    q = pose.orientation
    q.w, q.x, q.y, q.z = (float(v) for v in p.torso_quaternion)
    msg.joint_names = list(p.joint_names)
    msg.joint_angles = [float(a) for a in p.joint_angles]
    msg.joint_velocities = [float(v) for v in p.joint_velocities]
    msg.foot_resistance = [ForceResistanceMsg(name=f.name, center=_vec(f.center), force=_vec(f.force))
                           for f in p.foot_resistance]
    msg.vision_updated = p.vision is not None
    if p.vision is not None:
        seen = [VisionObject(name=n, distance=o.distance, azimuth=o.azimuth, elevation=o.elevation)
                for n, o in p.vision.objects.items()]
        for player in p.vision.players:
            seen += [VisionObject(name=part, team=player.team, unum=player.unum, distance=o.distance,
                                  azimuth=o.azimuth, elevation=o.elevation) for part, o in player.parts.items()]
        msg.seen = seen
        msg.line_ends = [VisionObject(name="L", distance=e.distance, azimuth=e.azimuth, elevation=e.elevation)
                         for line in p.vision.lines for e in line]
    msg.heard = [HeardMessage(time=h.time, from_self=h.from_self, from_teammate=h.from_teammate,
                              direction=h.direction, message=h.message) for h in p.heard]
    return msg


def percept_from_msg(msg: PerceptMsg) -> Percept:
    g = msg.game_state
    game = GameStateView(play_mode=g.play_mode, game_time=g.game_time, score_left=g.score_left,
                         score_right=g.score_right, team_left=g.team_left, team_right=g.team_right,
                         unum=msg.unum, side=msg.side)
    vision = None
    if msg.vision_updated:
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
        vision.lines = list(zip(ends[0::2], ends[1::2]))
    return Percept(
        time=seconds(msg.header.stamp), game=game, gyro=(msg.gyro.x, msg.gyro.y, msg.gyro.z),
        accel=(msg.accelerometer.x, msg.accelerometer.y, msg.accelerometer.z),
        torso_position=(msg.torso_pose.position.x, msg.torso_pose.position.y, msg.torso_pose.position.z),
        torso_quaternion=(msg.torso_pose.orientation.w, msg.torso_pose.orientation.x,
                          msg.torso_pose.orientation.y, msg.torso_pose.orientation.z),
        joint_names=list(msg.joint_names), joint_angles=list(msg.joint_angles),
        joint_velocities=list(msg.joint_velocities),
        foot_resistance=[ForceResistance(f.name, (f.center.x, f.center.y, f.center.z),
                                         (f.force.x, f.force.y, f.force.z)) for f in msg.foot_resistance],
        vision=vision,
        heard=[Heard(h.time, h.direction, h.message, h.from_self, h.from_teammate) for h in msg.heard])
