"""ROS viewers can draw the match: /tf carries every robot's links and the ball (live and in
the replay log), and each model's robot_description is URDF that a URDF parser reads."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from urdf_parser_py.urdf import URDF

from sim_master.ros.frames import robot_description
from sim_master.store.mcap_log import ReplayLogReader
from sim_master.world.sdf_loader import available_models
from sim_msgs.srv import InitAgent, MoveEntity
from tf2_msgs.msg import TFMessage


def torsos(msg: Any) -> dict[str, tuple[float, float]]:
    return {t.child_frame_id.removesuffix("/torso"): (t.transform.translation.x, t.transform.translation.y)
            for t in msg.transforms if t.child_frame_id.endswith("/torso")}


def test_every_model_description_is_urdf() -> None:
    for model in available_models():
        urdf = URDF.from_xml_string(robot_description(model))
        assert urdf.get_root() and len(urdf.links) == len(urdf.joints) + 1, model


def test_tf_shows_every_robot_move_live_and_in_the_log(running_server: Callable[..., Any],
                                                       ros_caller: Any, tmp_path: Path) -> None:
    log = tmp_path / "tf.mcap"
    with running_server(sync=False, realtime=True, ros=True, node_name="sim_tf", log_path=str(log)):
        node = ros_caller.node
        seen: list[TFMessage] = []
        node.create_subscription(TFMessage, "/tf", seen.append, 10)
        descriptions: list[String] = []
        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        node.create_subscription(String, "/robot_description/nao0", descriptions.append, latched)
        for team, unum in (("Alpha", 1), ("Beta", 1)):
            assert ros_caller.call(InitAgent, "/soccer_referee/init_agent",
                        InitAgent.Request(team=team, unum=unum, robot_model="nao0")).success

        ros_caller.spin_until(
            lambda: seen and {"Alpha/p1", "Beta/p1"} <= set(torsos(seen[-1])) and descriptions, "frames"
        )
        first = torsos(seen[-1])
        assert any(t.child_frame_id == "ball" for t in seen[-1].transforms)
        assert URDF.from_xml_string(descriptions[-1].data).get_root() == "torso"
        move = MoveEntity.Request(entity="Beta/p1", rotation=0.0)
        move.position.x, move.position.y = 4.0, -3.0
        assert ros_caller.call(MoveEntity, "/soccer_referee/move_entity", move).success
        ros_caller.spin_until(lambda: abs(torsos(seen[-1])["Beta/p1"][0] - 4.0) < 0.1, "the moved robot on /tf")
        assert abs(torsos(seen[-1])["Beta/p1"][1] + 3.0) < 0.1 and first["Beta/p1"] != torsos(seen[-1])["Beta/p1"]
    logged = [msg for topic, _, msg in ReplayLogReader(str(log)).messages() if topic == "/tf"]
    positions = [torsos(m).get("Beta/p1") for m in logged]
    assert positions and positions[-1] is not None and abs(positions[-1][0] - 4.0) < 0.1
    assert any(p is not None and abs(p[0] - 4.0) > 1.0 for p in positions)  # it moved in the log too
