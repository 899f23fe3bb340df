"""One handler per method of soccersim.v1 (as ros_gz has one per service): each reads its
request, hands the rules' call (SingleApi's, or a distributed master's) to the simulation's
thread and answers; a mode whose `api` lacks the call leaves the method UNIMPLEMENTED.

Streams are served from the hubs (hub.py): a new stream first reads the world now (so it is
answered while paused), then follows the newest."""
from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import grpc

from sim_master.api import convert
from sim_master.api.errors import ApiError
from sim_master.api.server import STEP_TIMEOUT_S, rate_period
from sim_master.api.world_view import WorldViews
from sim_master.master import entity_query
from soccersim_api.v1 import soccersim_pb2 as pb

if TYPE_CHECKING:
    from sim_master.api.server import ApiServer

Body = Callable[[Any], Awaitable[Any]]


def table(server: ApiServer) -> dict[str, grpc.RpcMethodHandler]:
    api = server.owner.api
    on = server.on_owner
    unary: dict[str, tuple[Any, Any, str, Body]] = {}

    def add(key: str, request: Any, response: Any, needs: str, body: Body) -> None:
        unary[key] = (request, response, needs, body)

    def call(name: str, *args: Any) -> Body:
        """A request whose answer is api.<name>(*args) on the simulation's thread."""
        async def body(_: Any) -> Any:
            return await on(functools.partial(getattr(api, name), *args))
        return body

    def with_req(name: str, read: Callable[[Any], tuple[Any, ...]]) -> Body:
        async def body(req: Any) -> Any:
            return await on(functools.partial(getattr(api, name), *read(req)))
        return body

    # simulation
    add("Simulation.GetState", pb.GetStateRequest, pb.SimulationState, "state", call("state"))
    add("Simulation.Pause", pb.PauseRequest, pb.SimulationState, "pause", call("pause"))
    add("Simulation.Resume", pb.ResumeRequest, pb.SimulationState, "resume", call("resume"))

    async def step(req: pb.StepRequest) -> pb.SimulationState:
        api.check_steps(req.cycles)
        timeout = req.timeout_s or STEP_TIMEOUT_S
        if not 0 < timeout <= 3600:
            raise ApiError("INVALID_ARGUMENT", "timeout_s must be in 0..3600 s")
        done = await on(functools.partial(api.start_steps, req.cycles))
        deadline = time.monotonic() + timeout
        while not done.is_set():  # polled: no thread is held for a waiting caller
            if time.monotonic() > deadline:
                raise ApiError("DEADLINE_EXCEEDED", f"the {req.cycles} cycles did not run within {timeout:g} s")
            await asyncio.sleep(0.002)
        return await on(api.state)

    add("Simulation.Step", pb.StepRequest, pb.SimulationState, "start_steps", step)
    add("Simulation.Reset", pb.ResetRequest, pb.SimulationState, "reset",
        with_req("reset", lambda r: (r.state, r.spawned)))
    add("Simulation.SetSpeed", pb.SetSpeedRequest, pb.SimulationState, "set_speed",
        with_req("set_speed", lambda r: (r.real_time_factor,)))

    # entities
    async def list_entities(req: pb.ListEntitiesRequest) -> pb.ListEntitiesResponse:
        inside: Callable[[tuple[float, float, float]], bool] = lambda _: True
        if req.HasField("bounds"):
            lo, hi = req.bounds.min, req.bounds.max
            low, high = (min(lo.x, hi.x), min(lo.y, hi.y), min(lo.z, hi.z)), \
                (max(lo.x, hi.x), max(lo.y, hi.y), max(lo.z, hi.z))
            inside = lambda p: all(a <= v <= b for a, v, b in zip(low, p, high, strict=True))
        query = entity_query.EntityQuery(req.filter, frozenset([req.category] if req.category else []),
                                         frozenset(req.tags), req.all_tags, inside)
        try:
            pattern = query.compiled()
        except entity_query.QueryError as exc:
            raise ApiError("INVALID_ARGUMENT", str(exc)) from None
        if hasattr(api, "read_world"):  # read on the loop, listed here
            return views.listing(await on(api.read_world), query, pattern)
        return await on(functools.partial(api.list_entities, query, pattern))

    async def get_entity(req: pb.GetEntityRequest) -> pb.Entity:
        if len(req.name) > 256:
            raise ApiError("INVALID_ARGUMENT", "name longer than 256 characters")
        if hasattr(api, "read_world"):
            return views.one(await on(api.read_world), req.name)
        return await on(functools.partial(api.get_entity, req.name))

    views = WorldViews()
    add("Entities.List", pb.ListEntitiesRequest, pb.ListEntitiesResponse, "get_entity", list_entities)
    add("Entities.Get", pb.GetEntityRequest, pb.Entity, "get_entity", get_entity)
    add("Entities.SetState", pb.SetEntityStateRequest, pb.Entity, "set_entity_state",
        with_req("set_entity_state", lambda r: (r,)))
    add("Entities.Spawn", pb.SpawnEntityRequest, pb.Entity, "spawn", with_req("spawn", lambda r: (r,)))
    add("Entities.Delete", pb.DeleteEntityRequest, pb.DeleteEntityResponse, "delete",
        with_req("delete", lambda r: (r.name,)))

    # game
    add("Game.GetState", pb.GetGameStateRequest, pb.GameState, "game_state", call("game_state"))
    add("Game.SetPlayMode", pb.SetPlayModeRequest, pb.GameState, "set_play_mode",
        with_req("set_play_mode", lambda r: (r.play_mode,)))
    add("Game.KickOff", pb.KickOffRequest, pb.GameState, "kick_off", with_req("kick_off", lambda r: (r.side,)))
    add("Game.DropBall", pb.DropBallRequest, pb.GameState, "drop_ball", call("drop_ball"))
    add("Game.MoveBall", pb.MoveBallRequest, pb.GameState, "move_ball", with_req("move_ball", lambda r: (r,)))
    add("Game.MovePlayer", pb.MovePlayerRequest, pb.GameState, "move_player",
        with_req("move_player", lambda r: (r,)))
    add("Game.SetScore", pb.SetScoreRequest, pb.GameState, "set_score",
        with_req("set_score", lambda r: (r.left, r.right)))
    add("Game.ListPlayers", pb.ListPlayersRequest, pb.ListPlayersResponse, "players", call("players"))

    # cluster (a distributed master)
    add("Cluster.ListNodes", pb.ListNodesRequest, pb.ListNodesResponse, "nodes", call("nodes"))

    out: dict[str, grpc.RpcMethodHandler] = {}
    for key, (request, response, needs, body) in unary.items():
        if hasattr(api, needs):
            out[key] = server._unary(key, request, response, body)
    out["Streams.Snapshots"] = server._stream("Streams.Snapshots", pb.SnapshotsRequest,
                                              functools.partial(_snapshots, server))
    if hasattr(api, "game_state"):
        out["Streams.GameEvents"] = server._stream("Streams.GameEvents", pb.GameEventsRequest,
                                                   functools.partial(_game_updates, server))
    if server.owner.drawing is not None:
        out["Streams.Drawings"] = server._stream("Streams.Drawings", pb.DrawingsRequest,
                                                 functools.partial(_drawings, server))
    return out


async def _snapshots(server: ApiServer, req: pb.SnapshotsRequest, context: Any) -> AsyncIterator[bytes]:
    period = rate_period(req.max_rate_hz)
    every = max(1, req.every_cycles)
    hub = server.owner.snapshots
    hub.subscribers += 1
    try:
        hub.take_now(await server.on_owner(server.owner.capture))  # the world as it is: answered while paused
        have: int | None = None  # the hand-in this client has
        sent_step = -1
        while True:
            if have is not None:
                await hub.wait_for_step(sent_step + every)
            have, data = hub.since(have, full=req.full_only)
            sent_step = hub.step
            yield data
            if period:
                await asyncio.sleep(period)
    finally:
        hub.subscribers -= 1


async def _game_updates(server: ApiServer, req: pb.GameEventsRequest, context: Any) -> AsyncIterator[bytes]:
    hub = server.owner.game
    hub.subscribers += 1
    try:
        if hub.state is None:
            hub.take_now(0, await server.on_owner(server.owner.api.game_state))
        seen, update = hub.since(None)
        taken = hub.seq
        yield update.SerializeToString()
        while True:  # an update when something happened: events, or the game changed (not its clock)
            await hub.wait_beyond(taken)
            taken = hub.seq
            seen, update = hub.since(seen)
            yield update.SerializeToString()
    finally:
        hub.subscribers -= 1


async def _drawings(server: ApiServer, req: pb.DrawingsRequest, context: Any) -> AsyncIterator[bytes]:
    period = rate_period(req.max_rate_hz) or 0.05
    read = server.owner.drawing
    assert read is not None
    sent = None
    while True:
        version, board = read()
        if version != sent:
            sent = version
            yield convert.drawing_board(board, version).SerializeToString()
        await asyncio.sleep(period)
