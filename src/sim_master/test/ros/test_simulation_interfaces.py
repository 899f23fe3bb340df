"""A generic client of the ROS simulation standard drives the server: it knows nothing but
rclpy and simulation_interfaces (the server side is the in-process test fixture).

Features, spawning from SDF text (and refusals with the standard's codes), entity lists,
info and state, setting a state, stepping by service and by action, reset, delete."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from geometry_msgs.msg import Vector3
from rclpy.action import ActionClient

from simulation_interfaces.action import SimulateSteps
from simulation_interfaces.msg import (
    Bounds,
    EntityCategory,
    EntityFilters,
    Resource,
    Result,
    SimulationState,
    SimulatorFeatures,
    TagsFilter,
)
from simulation_interfaces.srv import (
    DeleteEntity,
    GetEntities,
    GetEntitiesStates,
    GetEntityInfo,
    GetEntityState,
    GetSimulatorFeatures,
    GetSpawnables,
    ResetSimulation,
    SetEntityState,
    SetSimulationState,
    SpawnEntity,
    StepSimulation,
)

CRATE = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="crate">
    <link name="body">
      <inertial><mass>2.0</mass><inertia><ixx>0.03</ixx><iyy>0.03</iyy><izz>0.03</izz></inertia></inertial>
      <collision name="box"><geometry><box><size>0.3 0.3 0.3</size></box></geometry></collision>
    </link>
  </model>
</sdf>"""


def test_a_generic_simulation_interfaces_client(running_server: Callable[..., Any], ros_caller: Any) -> None:
    with running_server(sync=False, realtime=True, ros=True, node_name="sim_std") as server:
        c = ros_caller
        features = c.call(GetSimulatorFeatures, "/sim_std/get_simulator_features").features
        assert {
            SimulatorFeatures.SPAWNING,
            SimulatorFeatures.SPAWNING_RESOURCE_STRING,
            SimulatorFeatures.STEP_SIMULATION_ACTION,
            SimulatorFeatures.ENTITY_STATE_SETTING,
        } <= set(features.features)
        assert SimulatorFeatures.WORLD_LOADING not in features.features and list(features.spawn_formats) == ["sdf"]
        spawnables = c.call(GetSpawnables, "/sim_std/get_spawnables").spawnables
        assert "model://nao0" in [s.entity_resource.uri for s in spawnables]

        spawn = SpawnEntity.Request(name="crate", entity_resource=Resource(resource_string=CRATE))
        spawn.initial_pose.pose.position.x, spawn.initial_pose.pose.position.y = 3.0, -2.0
        spawn.initial_pose.pose.position.z = 0.5
        res = c.call(SpawnEntity, "/sim_std/spawn_entity", spawn)
        assert res.result.result == Result.RESULT_OK and res.entity_name == "crate"
        assert c.call(SpawnEntity, "/sim_std/spawn_entity", spawn).result.result == SpawnEntity.Response.NAME_NOT_UNIQUE
        broken = SpawnEntity.Request(name="broken", entity_resource=Resource(resource_string="<sdf><model"))
        assert (
            c.call(SpawnEntity, "/sim_std/spawn_entity", broken).result.result
            == SpawnEntity.Response.RESOURCE_PARSE_ERROR
        )
        outside = SpawnEntity.Request(name="stolen", entity_resource=Resource(uri="/etc/passwd.sdf"))
        assert c.call(SpawnEntity, "/sim_std/spawn_entity", outside).result.result == SpawnEntity.Response.NO_RESOURCE
        urdf = SpawnEntity.Request(name="u", entity_resource=Resource(uri="robot.urdf"))
        assert (
            c.call(SpawnEntity, "/sim_std/spawn_entity", urdf).result.result == SpawnEntity.Response.UNSUPPORTED_FORMAT
        )
        by_name = SpawnEntity.Request(name="pushy", entity_resource=Resource(uri="model://pusher"))
        by_name.initial_pose.pose.position.x = -5.0
        assert c.call(SpawnEntity, "/sim_std/spawn_entity", by_name).entity_name == "pushy"

        everything = c.call(GetEntities, "/sim_std/get_entities").entities
        assert {"ball", "crate", "pushy"} <= set(everything)
        spawned = EntityFilters(tags=TagsFilter(tags=["spawned"]))
        assert sorted(c.call(GetEntities, "/sim_std/get_entities", GetEntities.Request(filters=spawned)).entities) == [
            "crate", "pushy"]
        near_centre = EntityFilters(bounds=Bounds(type=Bounds.TYPE_SPHERE, points=[Vector3(), Vector3(x=1.0)]))
        assert c.call(GetEntities, "/sim_std/get_entities", GetEntities.Request(filters=near_centre)).entities == [
            "ball"
        ]
        states = c.call(GetEntitiesStates, "/sim_std/get_entities_states",
                        GetEntitiesStates.Request(filters=EntityFilters(filter="^(ball|crate)$")))
        assert sorted(states.entities) == ["ball", "crate"] and len(states.states) == 2
        info = c.call(GetEntityInfo, "/sim_std/get_entity_info", GetEntityInfo.Request(entity="ball")).info
        assert info.category.category == EntityCategory.CATEGORY_DYNAMIC_OBJECT and "ball" in info.tags

        state = c.call(GetEntityState, "/sim_std/get_entity_state", GetEntityState.Request(entity="crate"))
        assert state.result.result == Result.RESULT_OK and abs(state.state.pose.position.x - 3.0) < 1e-6
        moved = state.state
        moved.pose.position.x, moved.pose.position.y, moved.pose.position.z = -1.0, 4.0, 0.15
        reply = c.call(SetEntityState, "/sim_std/set_entity_state",
                       SetEntityState.Request(entity="crate", state=moved, set_pose=True))
        assert reply.result.result == Result.RESULT_OK

        paused = SetSimulationState.Request(state=SimulationState(state=SimulationState.STATE_PAUSED))
        assert c.call(SetSimulationState, "/sim_std/set_simulation_state", paused).result.result == Result.RESULT_OK
        t0 = server.loop.engine.time
        assert c.call(StepSimulation, "/sim_std/step_simulation", StepSimulation.Request(steps=5)).result.result == 1
        assert round(server.loop.engine.time - t0, 9) == 0.1
        crate = c.call(GetEntityState, "/sim_std/get_entity_state", GetEntityState.Request(entity="crate")).state
        assert abs(crate.pose.position.x + 1.0) < 0.01 and abs(crate.pose.position.y - 4.0) < 0.01

        action = ActionClient(c.node, SimulateSteps, "/sim_std/simulate_steps")
        assert action.wait_for_server(timeout_sec=20)
        feedback: list[int] = []
        sent = action.send_goal_async(SimulateSteps.Goal(steps=25),
                                      feedback_callback=lambda f: feedback.append(f.feedback.completed_steps))
        c.executor.spin_until_future_complete(sent, timeout_sec=30)
        done = sent.result().get_result_async()
        c.executor.spin_until_future_complete(done, timeout_sec=60)
        assert done.result().result.result.result == Result.RESULT_OK
        assert round(server.loop.engine.time - t0, 9) == 0.6 and feedback and feedback[-1] <= 25

        scope = ResetSimulation.Request
        reset = c.call(ResetSimulation, "/sim_std/reset_simulation", ResetSimulation.Request(scope=scope.SCOPE_TIME))
        assert reset.result.result == Result.RESULT_FEATURE_UNSUPPORTED  # time never runs backwards
        reset = c.call(ResetSimulation, "/sim_std/reset_simulation", ResetSimulation.Request(scope=scope.SCOPE_SPAWNED))
        assert reset.result.result == Result.RESULT_OK
        assert "crate" not in c.call(GetEntities, "/sim_std/get_entities").entities

        again = c.call(SpawnEntity, "/sim_std/spawn_entity", spawn)
        assert again.entity_name == "crate"
        assert c.call(DeleteEntity, "/sim_std/delete_entity", DeleteEntity.Request(entity="crate")).result.result == 1
        assert c.call(DeleteEntity, "/sim_std/delete_entity", DeleteEntity.Request(entity="crate")).result.result == 2
        assert c.call(DeleteEntity, "/sim_std/delete_entity", DeleteEntity.Request(entity="ball")).result.result == 4


BOX_WITHOUT_INERTIA = """<sdf version="1.9"><model name="box1"><link name="body">
  <inertial><mass>2.0</mass></inertial>
  <collision name="c"><geometry><box><size>0.3 0.2 0.1</size></box></geometry></collision>
</link></model></sdf>"""
URDF_TEXT = """<robot name="r"><link name="base"/></robot>"""


def _spawn(c: Any, name: str, *, text: str = "", uri: str = "", x: float = 2.0) -> SpawnEntity.Response:
    req = SpawnEntity.Request(name=name, entity_resource=Resource(uri=uri, resource_string=text))
    req.initial_pose.pose.position.x, req.initial_pose.pose.position.z = x, 0.3
    return c.call(SpawnEntity, "/sim_conv/spawn_entity", req)


def test_what_a_gazebo_user_expects_of_the_standard(running_server: Callable[..., Any], ros_caller: Any,
                                                    tmp_path: Any) -> None:
    """Issue 28's conventions: a mass without inertia is spawned (moments from the shape), a
    file by absolute path or file:// URI is read, URDF is an unsupported format (103), a
    delete names what is missing, the ball held before kick-off is refused with a reason,
    STOPPED reads back as STOPPED, and spawn_entities spawns several at once."""
    from sim_physics.world.sdf_loader import load_model_text

    from simulation_interfaces.msg import SpawnEntity as SpawnRequest
    from simulation_interfaces.srv import GetSimulationState, SpawnEntities

    spec = load_model_text(BOX_WITHOUT_INERTIA)
    ixx, iyy, izz = spec.links[0].inertia
    assert abs(ixx - 2.0 * (0.2**2 + 0.1**2) / 12) < 1e-9 and abs(izz - 2.0 * (0.3**2 + 0.2**2) / 12) < 1e-9
    crate = tmp_path / "crate.sdf"
    crate.write_text(CRATE)
    with running_server(sync=False, realtime=True, ros=True, node_name="sim_conv") as server:
        c = ros_caller
        assert _spawn(c, "box1", text=BOX_WITHOUT_INERTIA).result.result == Result.RESULT_OK
        assert _spawn(c, "crate_a", uri=str(crate), x=3.0).result.result == Result.RESULT_OK
        assert _spawn(c, "crate_b", uri=f"file://{crate}", x=4.0).result.result == Result.RESULT_OK
        assert _spawn(c, "gone", uri=f"file://{tmp_path}/none.sdf").result.result == SpawnEntity.Response.NO_RESOURCE
        urdf = _spawn(c, "r", text=URDF_TEXT).result
        assert urdf.result == SpawnEntity.Response.UNSUPPORTED_FORMAT and "URDF" in urdf.error_message
        missing = c.call(DeleteEntity, "/sim_conv/delete_entity", DeleteEntity.Request(entity="box9")).result
        assert missing.result == Result.RESULT_NOT_FOUND and missing.error_message == "no entity named 'box9'"

        ball = SetEntityState.Request(entity="ball", set_pose=True)
        ball.state.pose.position.x, ball.state.pose.position.z, ball.state.pose.orientation.w = 3.0, 0.1, 1.0
        held = c.call(SetEntityState, "/sim_conv/set_entity_state", ball).result
        assert held.result == Result.RESULT_INCORRECT_STATE and "kick-off" in held.error_message

        many = SpawnEntities.Request(spawn_requests=[
            SpawnRequest(name=f"b{i}", entity_resource=Resource(resource_string=BOX_WITHOUT_INERTIA))
            for i in range(3)])
        for i, one in enumerate(many.spawn_requests):
            one.initial_pose.pose.position.x, one.initial_pose.pose.position.y = -2.0, float(i)
        answer = c.call(SpawnEntities, "/sim_conv/spawn_entities", many)
        assert answer.result.result == Result.RESULT_OK
        assert [r.entity_name for r in answer.results] == ["b0", "b1", "b2"]
        assert {"box1", "crate_a", "crate_b", "b0", "b1", "b2"} <= set(server.loop.engine.snapshot().entities)

        stop = SetSimulationState.Request()
        stop.state.state = SimulationState.STATE_STOPPED
        assert c.call(SetSimulationState, "/sim_conv/set_simulation_state", stop).result.result == Result.RESULT_OK
        state = c.call(GetSimulationState, "/sim_conv/get_simulation_state").state.state
        assert state == SimulationState.STATE_STOPPED
        assert "box1" not in server.loop.engine.snapshot().entities  # STOPPED removes what was spawned
