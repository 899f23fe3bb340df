"""Snapshots and percepts survive the trip through sim_msgs (and its CDR bytes)."""
from __future__ import annotations

from rclpy.serialization import deserialize_message, serialize_message
from sim_physics.engine.mujoco.engine import MujocoEngine

from sim_master.ros.convert import percept_from_msg, percept_to_msg, snapshot_from_msg, snapshot_to_msg, stamp
from sim_msgs.msg import Percept as PerceptMsg
from sim_msgs.msg import Snapshot as SnapshotMsg


def test_snapshot_round_trip_through_cdr() -> None:
    engine = MujocoEngine(vision_noise=False)
    engine.add_robot("left_1", "nao", -3.0, 0.0, 0.0)
    for _ in range(5):
        engine.step()
    snap = engine.snapshot()
    back = snapshot_from_msg(deserialize_message(serialize_message(snapshot_to_msg(snap)), SnapshotMsg))
    assert back.digest() == snap.digest() and back.entities["left_1"].model == "nao0"
    assert back.time == snap.time and back.step == snap.step


def test_percept_round_trip_through_cdr() -> None:
    engine = MujocoEngine(vision_noise=False)
    engine.add_robot("a", "nao", -2.0, 0.0, 0.0)
    engine.add_robot("b", "nao", 1.0, 0.5, 180.0)
    engine.set_label("b", "Beta", 3)
    for _ in range(10):
        engine.step()
    p = engine.percept("a", vision=True)
    msg = deserialize_message(serialize_message(percept_to_msg(p, stamp(p.time), "left", 2)), PerceptMsg)
    back = percept_from_msg(msg)
    assert back.vision is not None and p.vision is not None
    assert set(back.vision.objects) == set(p.vision.objects)
    assert back.vision.players[0].parts.keys() == p.vision.players[0].parts.keys()
    assert len(back.vision.lines) == len(p.vision.lines)
    assert back.joint_names == p.joint_names and back.foot_resistance[0].name == "lf"
    assert (msg.side, msg.unum) == ("left", 2)
    # where the player stands, for ROS-native players (rcsssmj sends it as pos and quat)
    assert back.torso_position == p.torso_position and abs(back.torso_position[0] + 2.0) < 0.05
    assert back.torso_quaternion == p.torso_quaternion
    turned = engine.percept("b", vision=False)
    back = percept_from_msg(percept_to_msg(turned, stamp(turned.time), "right", 3))
    assert abs(back.torso_position[0] - 1.0) < 0.05 and abs(abs(back.torso_quaternion[3]) - 1.0) < 0.01  # facing -x
