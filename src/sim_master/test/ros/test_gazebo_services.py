"""A script written for gazebo_ros drives the server: it knows nothing but rclpy, gazebo_msgs
and std_srvs, and calls the services by gazebo_ros's names (server side: the in-process
test fixture, in the root namespace as Gazebo runs)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from std_srvs.srv import Empty

from gazebo_msgs.msg import EntityState
from gazebo_msgs.srv import DeleteEntity, GetEntityState, GetModelList, SetEntityState, SpawnEntity

BOX = """<sdf version="1.6"><model name="box"><link name="link">
<inertial><mass>1.0</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
<collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision>
</link></model></sdf>"""


def test_a_gazebo_ros_script(running_server: Callable[..., Any], ros_caller: Any) -> None:
    with running_server(sync=False, realtime=True, ros=True, node_name="gazebo") as server:
        spawn = SpawnEntity.Request(name="box1", xml=BOX)
        spawn.initial_pose.position.x, spawn.initial_pose.position.y, spawn.initial_pose.position.z = 2.0, 1.0, 0.3
        reply = ros_caller.call(SpawnEntity, "/spawn_entity", spawn)
        assert reply.success, reply.status_message
        urdf = SpawnEntity.Request(name="r", xml="<robot name='r'><link name='a'/></robot>")
        refused = ros_caller.call(SpawnEntity, "/spawn_entity", urdf)
        assert not refused.success and "URDF" in refused.status_message
        models = ros_caller.call(GetModelList, "/get_model_list")
        assert models.success and {"ball", "box1"} <= set(models.model_names)

        state = ros_caller.call(GetEntityState, "/get_entity_state", GetEntityState.Request(name="box1"))
        assert state.success and abs(state.state.pose.position.x - 2.0) < 1e-6
        moved = EntityState(name="box1", reference_frame="world")
        moved.pose.position.x, moved.pose.position.y, moved.pose.position.z = -3.0, -1.0, 0.1
        assert ros_caller.call(SetEntityState, "/set_entity_state", SetEntityState.Request(state=moved)).success
        state = ros_caller.call(GetEntityState, "/get_entity_state", GetEntityState.Request(name="box1"))
        assert abs(state.state.pose.position.x + 3.0) < 0.01
        missing = ros_caller.call(GetEntityState, "/get_entity_state", GetEntityState.Request(name="nope"))
        assert not missing.success

        ros_caller.call(Empty, "/pause_physics")
        assert server.loop.paused
        frozen = server.loop.engine.time
        ros_caller.call(GetModelList, "/get_model_list")  # a round trip later, time has not moved
        assert server.loop.engine.time == frozen
        ros_caller.call(Empty, "/unpause_physics")
        assert not server.loop.paused

        ros_caller.call(Empty, "/reset_simulation")  # spawned entities go, the game restarts
        assert "box1" not in ros_caller.call(GetModelList, "/get_model_list").model_names
        assert server.loop.referee.state.play_mode.value == "BeforeKickOff"
        assert ros_caller.call(SpawnEntity, "/spawn_entity", spawn).success
        deleted = ros_caller.call(DeleteEntity, "/delete_entity", DeleteEntity.Request(name="box1"))
        assert deleted.success
        again = ros_caller.call(DeleteEntity, "/delete_entity", DeleteEntity.Request(name="box1"))
        assert not again.success and "box1" in again.status_message
