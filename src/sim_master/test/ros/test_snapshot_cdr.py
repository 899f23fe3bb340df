"""The replay log's snapshot bytes (ros/snapshot_cdr.py, from the entities' state vectors) are
the Snapshot message rclpy serializes from `convert.snapshot_to_msg`: every field alike, for
full snapshots and deltas with entities gone, on two engines' robots (rclpy's bytes carry
unset padding, and a few more at the end, so the raw bytes are not compared)."""
from __future__ import annotations

from rclpy.serialization import deserialize_message, serialize_message
from sim_physics.engine.factory import physics_engine

from sim_master.ros.convert import snapshot_to_msg
from sim_master.ros.snapshot_cdr import snapshot_cdr
from sim_msgs.msg import Snapshot as SnapshotMsg


def test_snapshot_bytes_are_rclpys_serialization_of_the_message() -> None:
    for physics, models in (("ode", ("nao0", "nao4", "pusher")), ("mujoco", ("nao2", "T1"))):
        engine = physics_engine(physics, "simspark_field", vision_noise=False)
        for i, model in enumerate(models):
            engine.add_robot(f"Alpha/p{i + 1}", model, -3.0 + 2 * i, 1.0, 45.0 * i)
        memory: dict = {}
        for cycle in range(6):
            if cycle == 3:
                engine.remove_robot("Alpha/p1")
            engine.step()
            capture = engine.capture()
            full = cycle % 2 == 0
            changed, removed = (capture.entities, ()) if full else capture.changes(memory)
            ours = snapshot_cdr(capture.step, capture.time, full, changed, removed)
            snap = capture.snapshot() if full else capture.delta({})  # the same entities as messages
            if not full:
                snap.entities = {n: e for n, e in snap.entities.items() if n in {c[0] for c in changed}}
                snap.removed = removed
            theirs = serialize_message(snapshot_to_msg(snap))
            assert deserialize_message(ours, SnapshotMsg) == deserialize_message(theirs, SnapshotMsg), (physics, cycle)
