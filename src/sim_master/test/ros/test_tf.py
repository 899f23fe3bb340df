"""ROS viewers can draw the match: /tf carries every robot's links and the ball (live and in
the replay log), and each model's robot_description is URDF that a URDF parser reads."""
from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sim_physics.world.sdf_loader import available_models
from std_msgs.msg import String
from urdf_parser_py.urdf import URDF

from sim_master.ros.frames import robot_description
from sim_master.store.mcap_log import ReplayLogReader
from sim_msgs.srv import InitAgent, MoveEntity
from tf2_msgs.msg import TFMessage


def _alone() -> tuple[list[str], str]:
    """A namespace of the test's own: servers of earlier tests in this process leave their DDS
    participants (and names) behind, which a root-namespace name could reach."""
    ns = "/tf_" + uuid.uuid4().hex[:8]
    return ["--ros-args", "-r", f"__ns:={ns}"], ns


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
    args, ns = _alone()
    with running_server(args, sync=False, realtime=True, ros=True, node_name="sim_tf", log_path=str(log)) as server:
        node = ros_caller.node
        seen: list[TFMessage] = []
        node.create_subscription(TFMessage, f"{ns}/tf", seen.append, 10)
        descriptions: list[String] = []
        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        node.create_subscription(String, f"{ns}/robot_description/nao0", descriptions.append, latched)
        for team, unum in (("Alpha", 1), ("Beta", 1)):
            assert ros_caller.call(InitAgent, f"{ns}/soccer_referee/init_agent",
                        InitAgent.Request(team=team, unum=unum, robot_model="nao0")).success

        ros_caller.spin_until(
            lambda: seen and {"Alpha/p1", "Beta/p1"} <= set(torsos(seen[-1])) and descriptions, "frames"
        )
        first = torsos(seen[-1])
        assert any(t.child_frame_id == "ball" for t in seen[-1].transforms)
        assert URDF.from_xml_string(descriptions[-1].data).get_root() == "torso"
        joined_at = server.loop.engine.time  # the log draws every 0.4 s of sim time: let it draw them first
        ros_caller.spin_until(lambda: server.loop.engine.time > joined_at + 0.5, "0.5 s more of the match")
        move = MoveEntity.Request(entity="Beta/p1", rotation=0.0)
        move.position.x, move.position.y = 4.0, -3.0
        assert ros_caller.call(MoveEntity, f"{ns}/soccer_referee/move_entity", move).success
        ros_caller.spin_until(lambda: abs(torsos(seen[-1])["Beta/p1"][0] - 4.0) < 0.1, "the moved robot on /tf")
        assert abs(torsos(seen[-1])["Beta/p1"][1] + 3.0) < 0.1 and first["Beta/p1"] != torsos(seen[-1])["Beta/p1"]
        moved_at = server.loop.engine.time  # the log draws every 0.4 s of sim time: let it draw the move
        ros_caller.spin_until(lambda: server.loop.engine.time > moved_at + 0.5, "0.5 s more of the match")
    logged = [msg for topic, _, msg in ReplayLogReader(str(log)).messages() if topic == "/tf"]
    positions = [torsos(m).get("Beta/p1") for m in logged]
    assert positions and positions[-1] is not None and abs(positions[-1][0] - 4.0) < 0.1
    assert any(p is not None and abs(p[0] - 4.0) > 1.0 for p in positions)  # it moved in the log too


def test_each_robot_is_a_tree_its_description_names(running_server: Callable[..., Any], ros_caller: Any) -> None:
    """/tf and /tf_static hold every robot's tree as robot_state_publisher makes it from the
    URDF at <entity>/robot_description: each link's frame `<entity>/<link>` with its URDF
    parent (the root under `world`); tf_rate is a parameter that changes live, in range."""
    from rcl_interfaces.msg import Parameter as ParameterMsg
    from rcl_interfaces.msg import ParameterType, ParameterValue
    from rcl_interfaces.srv import SetParameters

    args, ns = _alone()
    with running_server(args, sync=False, realtime=True, ros=True, node_name="sim_tree"):
        node = ros_caller.node
        moving: dict[str, str] = {}
        fixed: dict[str, str] = {}
        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        node.create_subscription(TFMessage, f"{ns}/tf", lambda m: moving.update(
            {t.child_frame_id: t.header.frame_id for t in m.transforms}), 10)
        node.create_subscription(TFMessage, f"{ns}/tf_static", lambda m: fixed.update(
            {t.child_frame_id: t.header.frame_id for t in m.transforms}), latched)
        descriptions: list[String] = []
        node.create_subscription(String, f"{ns}/Alpha/p1/robot_description", descriptions.append, latched)
        assert ros_caller.call(InitAgent, f"{ns}/soccer_referee/init_agent",
                               InitAgent.Request(team="Alpha", unum=1, robot_model="nao4")).success
        ros_caller.spin_until(lambda: descriptions and "Alpha/p1/torso" in moving, "the robot's description and tree")
        urdf = URDF.from_xml_string(descriptions[-1].data)
        expected = {f"Alpha/p1/{j.child}": f"Alpha/p1/{j.parent}" for j in urdf.joints}
        expected[f"Alpha/p1/{urdf.get_root()}"] = "world"
        ros_caller.spin_until(lambda: expected.items() <= {**moving, **fixed}.items(), "every frame of the URDF")
        assert {c for c, _ in expected.items() if c in fixed} == \
            {f"Alpha/p1/{j.child}" for j in urdf.joints if j.type == "fixed"}  # fixed joints are static
        assert "ball" in moving and moving["ball"] == "world"

        def set_rate(value: float) -> Any:
            param = ParameterMsg(name="tf_rate", value=ParameterValue(type=ParameterType.PARAMETER_DOUBLE,
                                                                      double_value=value))
            return ros_caller.call(SetParameters, f"{ns}/sim_tree/set_parameters",
                                   SetParameters.Request(parameters=[param])).results[0]

        refused = set_rate(500.0)
        assert not refused.successful and "tf_rate" in refused.reason
        assert set_rate(2.0).successful


def test_the_match_as_markers_live_and_in_the_log(running_server: Callable[..., Any], ros_caller: Any,
                                                   tmp_path: Path) -> None:
    """/markers (visualization_msgs/MarkerArray) draws the field, the ball and each robot in
    its team's colour with its number, for RViz and Foxglove; the replay log has it too."""
    from visualization_msgs.msg import Marker, MarkerArray

    log = tmp_path / "markers.mcap"
    args, ns = _alone()
    with running_server(args, sync=False, realtime=True, ros=True, node_name="sim_markers",
                        log_path=str(log)) as server:
        got: list[MarkerArray] = []
        ros_caller.node.create_subscription(MarkerArray, f"{ns}/markers", got.append, 10)
        for team, unum in (("Alpha", 4), ("Beta", 9)):
            assert ros_caller.call(InitAgent, f"{ns}/soccer_referee/init_agent",
                                   InitAgent.Request(team=team, unum=unum, robot_model="nao0")).success
        ros_caller.spin_until(lambda: got and sum(m.ns == "numbers" for m in got[-1].markers) == 2, "two robots")
        markers = got[-1].markers
        assert markers[0].action == Marker.DELETEALL  # each message whole
        numbers = {m.text for m in markers if m.ns == "numbers"}
        columns = {m.text: m for m in markers if m.ns == "robots"}
        assert numbers == {"4", "9"}
        assert columns["Alpha/p4"].color.b > columns["Alpha/p4"].color.r  # left: blue
        assert columns["Beta/p9"].color.r > columns["Beta/p9"].color.b  # right: red
        lines = next(m for m in markers if m.ns == "field" and m.type == Marker.LINE_LIST)
        assert len(lines.points) >= 20
        assert any(m.ns == "ball" and m.type == Marker.SPHERE for m in markers)
        seen_at = server.loop.engine.time  # the log draws every 0.4 s of sim time: let it draw these robots
        ros_caller.spin_until(lambda: server.loop.engine.time > seen_at + 0.5, "0.5 s more of the match")
    logged = [msg for topic, _, msg in ReplayLogReader(str(log)).messages() if topic == "/markers"]
    assert logged and any(sum(m.ns == "numbers" for m in msg.markers) == 2 for msg in logged)
