"""Snapshot records (sim_msgs/Snapshot-shaped objects) back to plain snapshots.

Why here and duck-typed: the replay reader decodes MCAP records with mcap_ros2 into plain
objects that only look like the ROS messages, and the ROS layer receives real messages;
both read the same fields, so one decoder serves both and the store needs no ROS runtime.
"""
from __future__ import annotations

from typing import Any

from sim_physics.snapshot import EntitySnapshot, Snapshot


def seconds(time: Any) -> float:
    """builtin_interfaces/Time-shaped (sec, nanosec) to seconds."""
    return float(time.sec + time.nanosec * 1e-9)


def entity_from_record(msg: Any) -> EntitySnapshot:
    """sim_msgs/EntityState-shaped: the model travels in header.frame_id."""
    p, o, lin, ang = msg.pose.position, msg.pose.orientation, msg.twist.linear, msg.twist.angular
    return EntitySnapshot(
        name=msg.name, position=(p.x, p.y, p.z), orientation=(o.w, o.x, o.y, o.z),
        linear_velocity=(lin.x, lin.y, lin.z), angular_velocity=(ang.x, ang.y, ang.z),
        joint_names=tuple(msg.joint_names), joint_positions=tuple(msg.joint_positions),
        joint_velocities=tuple(msg.joint_velocities), owner=msg.owner,
        model=msg.header.frame_id if msg.header.frame_id not in ("", "world") else "")


def snapshot_from_record(msg: Any) -> Snapshot:
    """Either form: packed (data plane) or one EntityState per entity (tools, logs)."""
    if len(msg.packed):
        return Snapshot.from_bytes(msg.packed.tobytes() if hasattr(msg.packed, "tobytes") else bytes(msg.packed))
    entities = {e.name: entity_from_record(e) for e in msg.entities}
    return Snapshot(step=msg.step, time=seconds(msg.stamp), full=msg.full, entities=entities,
                    removed=tuple(msg.removed))
