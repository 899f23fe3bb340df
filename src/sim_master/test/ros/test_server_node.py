"""The server's ROS 2 interface: pause, step N cycles, play; entity services; game state."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock

from sim_msgs.srv import InitAgent, MoveEntity, SetPlayMode
from simulation_interfaces.msg import EntityFilters, Resource, Result, SimulationState
from simulation_interfaces.srv import (
    GetEntities,
    GetEntityState,
    GetSimulationState,
    SetEntityState,
    SetSimulationState,
    SpawnEntity,
    StepSimulation,
)


class Caller:
    def __init__(self, context: rclpy.Context) -> None:
        self.node = Node("test_caller", context=context)
        self.executor = SingleThreadedExecutor(context=context)
        self.executor.add_node(self.node)
        self.clock = -1.0
        self.node.create_subscription(Clock, "/clock", self._on_clock,
                                      QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT))

    def _on_clock(self, msg: Clock) -> None:
        self.clock = msg.clock.sec + msg.clock.nanosec * 1e-9

    def call(self, srv_type, name: str, request):
        client = self.node.create_client(srv_type, name)
        assert client.wait_for_service(timeout_sec=20), name
        future = client.call_async(request)
        self.executor.spin_until_future_complete(future, timeout_sec=20)
        assert future.done(), f"{name} did not answer"
        return future.result()

    def wait_clock(self, condition, timeout: float = 10.0) -> float:
        """The newest /clock value once it satisfies condition (spinning until then)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.executor.spin_once(timeout_sec=0.02)
            if self.clock >= 0 and condition(self.clock):
                self.settle(0.05)
                return self.clock
        raise AssertionError(f"/clock never got there (last {self.clock})")

    def settle(self, seconds: float = 0.5) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.executor.spin_once(timeout_sec=0.02)


def test_pause_step_ten_cycles_play(running_server: Callable[..., Any], ros_context: rclpy.Context) -> None:
    with running_server(sync=False, realtime=True, ros=True, node_name="sim_step") as server:
        caller = Caller(ros_context)
        caller.wait_clock(lambda t: t > 0)  # subscribed: the last /clock before the pause will arrive
        paused = SimulationState(state=SimulationState.STATE_PAUSED)
        res = caller.call(
            SetSimulationState, "/sim_step/set_simulation_state", SetSimulationState.Request(state=paused)
        )
        assert res.result.result == Result.RESULT_OK
        before = caller.wait_clock(lambda t: abs(t - server.loop.engine.time) < 1e-9)
        assert before > 0 and server.loop.paused
        res = caller.call(StepSimulation, "/sim_step/step_simulation", StepSimulation.Request(steps=10))
        assert res.result.result == Result.RESULT_OK
        caller.wait_clock(lambda t: t >= before + 0.2 - 1e-9)
        caller.settle(0.3)  # and no further: paused again after exactly 10 cycles of 0.02 s
        assert round(caller.clock - before, 9) == 0.2
        state = caller.call(GetSimulationState, "/sim_step/get_simulation_state", GetSimulationState.Request())
        assert state.state.state == SimulationState.STATE_PAUSED
        playing = SimulationState(state=SimulationState.STATE_PLAYING)
        caller.call(SetSimulationState, "/sim_step/set_simulation_state", SetSimulationState.Request(state=playing))
        res = caller.call(StepSimulation, "/sim_step/step_simulation", StepSimulation.Request(steps=1))
        assert res.result.result == Result.RESULT_INCORRECT_STATE
        caller.node.destroy_node()


def test_entity_services_and_play_mode(running_server: Callable[..., Any], ros_context: rclpy.Context) -> None:
    with running_server(sync=False, realtime=True, ros=True, node_name="sim_ent") as server:
        caller = Caller(ros_context)
        joined = caller.call(
            InitAgent, "/soccer_referee/init_agent", InitAgent.Request(team="Alpha", unum=0, robot_model="nao")
        )
        assert joined.success and joined.unum == 1
        refused = caller.call(
            InitAgent, "/soccer_referee/init_agent", InitAgent.Request(team="Alpha", unum=12, robot_model="nao")
        )
        assert not refused.success and "outside 1..11" in refused.error
        spawn = SpawnEntity.Request(name="crate", entity_resource=Resource(uri="pusher"), allow_renaming=True)
        spawn.initial_pose.pose.position.x, spawn.initial_pose.pose.position.y = 3.0, 4.0
        res = caller.call(SpawnEntity, "/sim_ent/spawn_entity", spawn)
        assert res.result.result == Result.RESULT_OK and res.entity_name == "crate"
        assert caller.call(SpawnEntity, "/sim_ent/spawn_entity", spawn).entity_name == "crate_1"
        spawn.allow_renaming = False  # a taken name: NAME_NOT_UNIQUE, and every service still answers
        res = caller.call(SpawnEntity, "/sim_ent/spawn_entity", spawn)
        assert res.result.result == SpawnEntity.Response.NAME_NOT_UNIQUE
        for name in ('evil"', 'x"/><include file="/etc/passwd"/>', "a b", "simspark-2"):  # no markup reaches
            # the MJCF, and nobody squats the robot name of an agent that will join
            spawn.name = name
            assert (
                caller.call(SpawnEntity, "/sim_ent/spawn_entity", spawn).result.result
                == SpawnEntity.Response.NAME_INVALID
            )
        spawn.name, spawn.initial_pose.pose.position.x = "far", 1e308
        assert (
            caller.call(SpawnEntity, "/sim_ent/spawn_entity", spawn).result.result == SpawnEntity.Response.INVALID_POSE
        )
        names = caller.call(
            GetEntities, "/sim_ent/get_entities", GetEntities.Request(filters=EntityFilters(filter="^crate"))
        ).entities
        assert sorted(names) == ["crate", "crate_1"]
        state = caller.call(GetEntityState, "/sim_ent/get_entity_state", GetEntityState.Request(entity="ball"))
        assert state.result.result == Result.RESULT_OK and abs(state.state.pose.position.z - 0.042) < 0.01
        moved = state.state
        moved.pose.position.x, moved.pose.position.y = 5.0, -3.0
        res = caller.call(
            SetEntityState,
            "/sim_ent/set_entity_state",
            SetEntityState.Request(entity="ball", state=moved, set_pose=True),
        )
        # before kick-off the referee holds the ball on the centre spot: refused, saying so
        assert res.result.result == Result.RESULT_INCORRECT_STATE and "PlayOn" in res.result.error_message
        play_on = SetPlayMode.Request(play_mode="PlayOn")
        assert caller.call(SetPlayMode, "/soccer_referee/set_play_mode", play_on).success
        res = caller.call(
            SetEntityState,
            "/sim_ent/set_entity_state",
            SetEntityState.Request(entity="ball", state=moved, set_pose=True),
        )
        assert res.result.result == Result.RESULT_OK
        assert abs(server.loop.engine.ball_position()[0] - 5.0) < 0.1  # it moved
        player = caller.call(GetEntityState, "/sim_ent/get_entity_state", GetEntityState.Request(entity="Alpha/p1"))
        assert player.result.result == Result.RESULT_OK  # players' robots are named <team>/p<unum>
        move = MoveEntity.Request(entity="Alpha/p1", rotation=90.0)
        move.position.x, move.position.y = -4.0, 2.5
        assert caller.call(MoveEntity, "/soccer_referee/move_entity", move).success
        assert abs(server.loop.engine.robot_pose("Alpha/p1")[0][0] + 4.0) < 0.05
        move.entity = "left_1"  # not an entity name
        assert "unknown player" in caller.call(MoveEntity, "/soccer_referee/move_entity", move).error
        missing = caller.call(GetEntityState, "/sim_ent/get_entity_state", GetEntityState.Request(entity="nope"))
        assert missing.result.result == Result.RESULT_NOT_FOUND
        bad = caller.call(SetPlayMode, "/soccer_referee/set_play_mode", SetPlayMode.Request(play_mode="Halftime"))
        assert not bad.success and "unknown play mode" in bad.error
        ok = caller.call(SetPlayMode, "/soccer_referee/set_play_mode", SetPlayMode.Request(play_mode="PlayOn"))
        assert ok.success
        caller.node.destroy_node()
