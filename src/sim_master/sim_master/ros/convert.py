"""Plain data <-> sim_msgs messages (no Node needed): snapshots, entities, percepts, time."""
from __future__ import annotations

from sim_physics.snapshot import EntitySnapshot, Snapshot

from sim_bridge.ros.percepts import game_view_to_msg, joint_command_msg, percept_from_msg, percept_to_msg, stamp
from sim_master.store.snapshot_records import entity_from_record as entity_from_msg
from sim_master.store.snapshot_records import seconds
from sim_master.store.snapshot_records import snapshot_from_record as snapshot_from_msg
from sim_msgs.msg import EntityState
from sim_msgs.msg import Snapshot as SnapshotMsg

__all__ = ["entity_from_msg", "entity_to_msg", "game_view_to_msg", "joint_command_msg", "percept_from_msg",
           "percept_to_msg", "seconds", "snapshot_from_msg", "snapshot_to_msg", "snapshot_to_packed_msg", "stamp"]


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


