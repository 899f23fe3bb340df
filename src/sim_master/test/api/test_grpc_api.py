"""The core API over gRPC, driven by a real grpcio client through the generated stubs: every
call's success and its error codes, health and reflection, tokens, and the server's
refusals of an unsafe setup."""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from sim_bridge.clients import SimSparkAgent
from sim_master.api.server import Security, SetupError
from soccersim_api.v1 import soccersim_pb2 as pb

from .conftest import Stubs, code_of, stubs_for

OK = grpc.StatusCode.OK
CRATE = """<?xml version="1.0"?>
<sdf version="1.9"><model name="crate"><link name="body">
<inertial><mass>2.0</mass><inertia><ixx>0.03</ixx><iyy>0.03</iyy><izz>0.03</izz></inertia></inertial>
<collision name="box"><geometry><box><size>0.3 0.3 0.3</size></box></geometry></collision>
</link></model></sdf>"""


def _api(server: Any, made: list[Stubs]) -> Stubs:
    s = stubs_for(server.api.server.address)
    made.append(s)
    return s


def test_simulation_control(running_server: Callable[..., Any], grpc_clients: list[Stubs]) -> None:
    with running_server(sync=False, realtime=True, grpc_port=0) as server:
        api = _api(server, grpc_clients)
        state = api.sim.GetState(pb.GetStateRequest(), timeout=20)
        assert state.mode == "single" and state.state == pb.SimulationState.STATE_PLAYING
        assert state.real_time_factor == 1.0 and not state.sync
        assert code_of(api.sim.Step, pb.StepRequest(cycles=5))[0] == grpc.StatusCode.FAILED_PRECONDITION
        paused = api.sim.Pause(pb.PauseRequest(), timeout=20)
        assert paused.state == pb.SimulationState.STATE_PAUSED
        stepped = api.sim.Step(pb.StepRequest(cycles=7), timeout=20)
        assert stepped.cycle == paused.cycle + 7  # exactly the cycles asked for, then held
        assert api.sim.GetState(pb.GetStateRequest(), timeout=20).cycle == stepped.cycle
        for bad in (0, 1_000_001):
            assert code_of(api.sim.Step, pb.StepRequest(cycles=bad))[0] == grpc.StatusCode.INVALID_ARGUMENT
        assert code_of(api.sim.Step, pb.StepRequest(cycles=1, timeout_s=-1))[0] == grpc.StatusCode.INVALID_ARGUMENT
        for bad in (0.0, 11.0, math.nan, math.inf):
            code, _ = code_of(api.sim.SetSpeed, pb.SetSpeedRequest(real_time_factor=bad))
            assert code == grpc.StatusCode.INVALID_ARGUMENT, bad
        assert api.sim.SetSpeed(pb.SetSpeedRequest(real_time_factor=4.0), timeout=20).real_time_factor == 4.0
        assert server.loop.control.speed == 4.0
        resumed = api.sim.Resume(pb.ResumeRequest(), timeout=20)
        assert resumed.state == pb.SimulationState.STATE_PLAYING
        assert api.sim.Reset(pb.ResetRequest(), timeout=20).state == pb.SimulationState.STATE_PLAYING
        assert code_of(api.cluster.ListNodes, pb.ListNodesRequest())[0] == grpc.StatusCode.UNIMPLEMENTED


def test_speed_is_refused_in_sync_mode(running_server: Callable[..., Any], grpc_clients: list[Stubs]) -> None:
    with running_server(grpc_port=0) as server:  # sync mode
        api = _api(server, grpc_clients)
        code, why = code_of(api.sim.SetSpeed, pb.SetSpeedRequest(real_time_factor=2.0))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "sync mode" in why
        assert api.sim.GetState(pb.GetStateRequest(), timeout=20).sync


def test_entities(running_server: Callable[..., Any], grpc_clients: list[Stubs]) -> None:
    with running_server(sync=False, realtime=True, grpc_port=0) as server:
        api = _api(server, grpc_clients)
        e = api.entities
        crate = e.Spawn(pb.SpawnEntityRequest(name="crate1", sdf=CRATE, pose=pb.Pose(
            position=pb.Vector3(x=1.0, y=2.0, z=0.5))), timeout=20)
        assert crate.state.name == "crate1" and crate.info.category == "robot" and "spawned" in crate.info.tags
        assert abs(crate.state.pose.position.x - 1.0) < 0.05
        listed = e.List(pb.ListEntitiesRequest(), timeout=20)
        assert {x.state.name for x in listed.entities} >= {"ball", "crate1"}
        assert [x.state.name for x in e.List(pb.ListEntitiesRequest(filter="^ball$"), timeout=20).entities] == ["ball"]
        assert [x.state.name for x in e.List(pb.ListEntitiesRequest(tags=["spawned"]), timeout=20).entities] == \
            ["crate1"]
        assert [x.state.name for x in e.List(pb.ListEntitiesRequest(category="dynamic_object"),
                                             timeout=20).entities] == ["ball"]
        near = e.List(pb.ListEntitiesRequest(bounds=pb.Box(min=pb.Vector3(x=0.5, y=1.5, z=-1),
                                                           max=pb.Vector3(x=1.5, y=2.5, z=2))), timeout=20)
        assert [x.state.name for x in near.entities] == ["crate1"]
        for bad in (pb.ListEntitiesRequest(filter="(unclosed"), pb.ListEntitiesRequest(filter="a" * 1025),
                    pb.ListEntitiesRequest(category="vehicle")):
            assert code_of(e.List, bad)[0] == grpc.StatusCode.INVALID_ARGUMENT
        # a pattern that backtracks for ever in Python's re answers at once under RE2
        assert code_of(e.List, pb.ListEntitiesRequest(filter="^(a+)+$"))[0] == OK

        assert e.Get(pb.GetEntityRequest(name="ball"), timeout=20).info.tags == ["ball"]
        assert code_of(e.Get, pb.GetEntityRequest(name="nobody"))[0] == grpc.StatusCode.NOT_FOUND
        assert code_of(e.Get, pb.GetEntityRequest(name="x" * 5000))[0] == grpc.StatusCode.INVALID_ARGUMENT

        moved = e.SetState(pb.SetEntityStateRequest(name="crate1", pose=pb.Pose(
            position=pb.Vector3(x=-3.0, y=1.0, z=0.2), orientation=pb.Quaternion(w=2.0))), timeout=20)
        assert abs(moved.state.pose.position.x + 3.0) < 1e-6 and abs(moved.state.pose.orientation.w - 1.0) < 1e-9
        for bad, code in (
                (pb.SetEntityStateRequest(name="nobody"), grpc.StatusCode.NOT_FOUND),
                (pb.SetEntityStateRequest(name="crate1", pose=pb.Pose(position=pb.Vector3(x=math.nan),
                                                                      orientation=pb.Quaternion(w=1))),
                 grpc.StatusCode.INVALID_ARGUMENT),
                (pb.SetEntityStateRequest(name="crate1", pose=pb.Pose(position=pb.Vector3(x=1e6),
                                                                      orientation=pb.Quaternion(w=1))),
                 grpc.StatusCode.INVALID_ARGUMENT),
                (pb.SetEntityStateRequest(name="crate1", pose=pb.Pose(position=pb.Vector3(x=1.0))),
                 grpc.StatusCode.INVALID_ARGUMENT),  # no orientation: not a quaternion
                (pb.SetEntityStateRequest(name="crate1", twist=pb.Twist(linear=pb.Vector3(x=1e9))),
                 grpc.StatusCode.INVALID_ARGUMENT),
                # the referee holds the ball on the centre spot before kick-off
                (pb.SetEntityStateRequest(name="ball", pose=pb.Pose(position=pb.Vector3(x=1.0, z=0.1),
                                                                    orientation=pb.Quaternion(w=1))),
                 grpc.StatusCode.FAILED_PRECONDITION)):
            assert code_of(e.SetState, bad)[0] == code, bad

        for bad, code in (
                (pb.SpawnEntityRequest(name="crate1", sdf=CRATE), grpc.StatusCode.ALREADY_EXISTS),
                (pb.SpawnEntityRequest(name="bad name!", sdf=CRATE), grpc.StatusCode.INVALID_ARGUMENT),
                (pb.SpawnEntityRequest(name="simspark-3", sdf=CRATE), grpc.StatusCode.INVALID_ARGUMENT),
                (pb.SpawnEntityRequest(name="c2", uri="model://no_such_model"), grpc.StatusCode.NOT_FOUND),
                (pb.SpawnEntityRequest(name="c2"), grpc.StatusCode.NOT_FOUND),
                (pb.SpawnEntityRequest(name="c2", sdf="<sdf><model"), grpc.StatusCode.INVALID_ARGUMENT),
                (pb.SpawnEntityRequest(name="c2", sdf=CRATE, pose=pb.Pose(position=pb.Vector3(x=math.inf))),
                 grpc.StatusCode.INVALID_ARGUMENT),
                (pb.SpawnEntityRequest(name="c2", uri="/etc/passwd"), grpc.StatusCode.INVALID_ARGUMENT)):
            assert code_of(e.Spawn, bad)[0] == code, bad
        renamed = e.Spawn(pb.SpawnEntityRequest(name="crate1", sdf=CRATE, allow_renaming=True), timeout=20)
        assert renamed.state.name == "crate1_1"

        assert code_of(e.Delete, pb.DeleteEntityRequest(name="crate1"))[0] == OK
        assert code_of(e.Delete, pb.DeleteEntityRequest(name="crate1"))[0] == grpc.StatusCode.NOT_FOUND
        assert code_of(e.Delete, pb.DeleteEntityRequest(name="ball"))[0] == grpc.StatusCode.FAILED_PRECONDITION
        api.sim.Reset(pb.ResetRequest(spawned=True), timeout=20)  # the renamed crate goes with the spawned
        assert "crate1_1" not in {x.state.name for x in e.List(pb.ListEntitiesRequest(), timeout=20).entities}


def test_game(running_server: Callable[..., Any], grpc_clients: list[Stubs]) -> None:
    with running_server(sync=False, realtime=True, grpc_port=0) as server:
        api = _api(server, grpc_clients)
        g = api.game
        agent = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Alpha", 7)
        try:
            agent.join()
            players = g.ListPlayers(pb.ListPlayersRequest(), timeout=20).players
            while not players or not players[0].team:  # joined at its first cycle
                agent.act()
                players = g.ListPlayers(pb.ListPlayersRequest(), timeout=20).players
            assert [(p.team, p.unum, p.side, p.entity) for p in players] == [("Alpha", 7, "left", players[0].entity)]
            state = g.GetState(pb.GetGameStateRequest(), timeout=20)
            assert state.play_mode == "BeforeKickOff" and state.team_left == "Alpha"

            moved = g.MovePlayer(pb.MovePlayerRequest(team="Alpha", unum=7, x=-4.0, y=1.0, rotation_deg=90),
                                 timeout=20)
            assert moved.team_left == "Alpha"
            (x, y, _), _ = server.loop.engine.robot_pose(players[0].entity)
            assert abs(x + 4.0) < 0.2 and abs(y - 1.0) < 0.2
            for bad, code in (
                    (pb.MovePlayerRequest(team="Alpha", unum=8), grpc.StatusCode.NOT_FOUND),
                    (pb.MovePlayerRequest(team="Nobody", unum=7), grpc.StatusCode.NOT_FOUND),
                    (pb.MovePlayerRequest(team="Alpha", unum=7, x=math.nan), grpc.StatusCode.INVALID_ARGUMENT),
                    (pb.MovePlayerRequest(team="Alpha", unum=7, x=500.0), grpc.StatusCode.INVALID_ARGUMENT)):
                assert code_of(g.MovePlayer, bad)[0] == code, bad

            assert g.SetPlayMode(pb.SetPlayModeRequest(play_mode="PlayOn"), timeout=20).play_mode == "PlayOn"
            assert code_of(g.SetPlayMode, pb.SetPlayModeRequest(play_mode="Halftime!"))[0] == \
                grpc.StatusCode.INVALID_ARGUMENT
            ball = g.MoveBall(pb.MoveBallRequest(position=pb.Vector3(x=2.0, y=1.0, z=0.042)), timeout=20)
            assert ball.play_mode == "PlayOn"
            assert abs(server.loop.engine.ball_position()[0] - 2.0) < 0.05
            for bad in (pb.MoveBallRequest(position=pb.Vector3(x=math.nan)),
                        pb.MoveBallRequest(position=pb.Vector3(x=300.0)),
                        pb.MoveBallRequest(position=pb.Vector3(z=0.1), velocity=pb.Vector3(x=1e6))):
                assert code_of(g.MoveBall, bad)[0] == grpc.StatusCode.INVALID_ARGUMENT, bad
            assert code_of(g.DropBall, pb.DropBallRequest())[0] == OK
            assert g.SetScore(pb.SetScoreRequest(left=2, right=1), timeout=20).score_left == 2
            assert code_of(g.SetScore, pb.SetScoreRequest(left=10**6))[0] == grpc.StatusCode.INVALID_ARGUMENT
            assert code_of(g.KickOff, pb.KickOffRequest(side="middle"))[0] == grpc.StatusCode.INVALID_ARGUMENT
            g.SetPlayMode(pb.SetPlayModeRequest(play_mode="BeforeKickOff"), timeout=20)
            assert g.KickOff(pb.KickOffRequest(side="left"), timeout=20).play_mode == "KickOff_Left"
        finally:
            agent.close()


def test_health_and_reflection(running_server: Callable[..., Any], grpc_clients: list[Stubs]) -> None:
    with running_server(grpc_port=0) as server:
        api = _api(server, grpc_clients)
        health = health_pb2_grpc.HealthStub(api.channel)
        for service in ("", "soccersim.v1.Simulation", "soccersim.v1.Streams"):
            answer = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=20)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
        reflect = reflection_pb2_grpc.ServerReflectionStub(api.channel)
        answers = reflect.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]),
                                               timeout=20)
        names = {s.name for a in answers for s in a.list_services_response.service}
        assert {"soccersim.v1.Simulation", "soccersim.v1.Entities", "soccersim.v1.Game", "soccersim.v1.Streams",
                "grpc.health.v1.Health"} <= names


def test_a_token_is_asked_of_every_call_but_health(running_server: Callable[..., Any],
                                                    grpc_clients: list[Stubs]) -> None:
    with running_server(grpc_port=0, grpc_token="s3cret") as server:
        api = _api(server, grpc_clients)
        code, why = code_of(api.sim.GetState, pb.GetStateRequest())
        assert code == grpc.StatusCode.UNAUTHENTICATED and "token" in why
        assert code_of(api.sim.GetState, pb.GetStateRequest(), metadata=[("authorization", "Bearer nope")])[0] == \
            grpc.StatusCode.UNAUTHENTICATED
        assert code_of(api.sim.Pause, pb.PauseRequest(), metadata=[("authorization", "Bearer s3cret")])[0] == OK
        stream = api.streams.Snapshots(pb.SnapshotsRequest())
        with pytest.raises(grpc.RpcError) as refused:
            next(stream)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        health = health_pb2_grpc.HealthStub(api.channel)
        assert health.Check(health_pb2.HealthCheckRequest(), timeout=20).status == \
            health_pb2.HealthCheckResponse.SERVING


def test_unsafe_setups_are_refused() -> None:
    with pytest.raises(SetupError, match="TLS"):
        Security().check("0.0.0.0")
    with pytest.raises(SetupError, match="TLS"):
        Security(token="t").check("192.168.1.5")
    with pytest.raises(SetupError, match="go together"):
        Security(cert=b"x").check("127.0.0.1")
    Security(insecure=True).check("0.0.0.0")
    Security(token="t", cert=b"c", key=b"k").check("0.0.0.0")
    Security().check("127.0.0.1")
    Security().check("::1")
    Security().check("localhost")
