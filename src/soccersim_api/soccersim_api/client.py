"""A typed client of soccersim's core API (soccersim.v1): one method per call, streams as
iterators, and the snapshot stream's deltas merged into whole worlds for you.

    from soccersim_api.client import SoccerSimClient

    with SoccerSimClient("127.0.0.1:50051") as sim:
        print(sim.state().cycle, sim.game().play_mode)
        for world in sim.worlds(max_rate_hz=2):
            print(world.step, world.entities["ball"].pose.position)

A call the server refuses raises CallError with the status code and the server's one line.
Needs grpcio and protobuf only."""
from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TypeVar

import grpc

from soccersim_api.v1 import soccersim_pb2 as pb
from soccersim_api.v1 import soccersim_pb2_grpc as rpc

T = TypeVar("T")


class CallError(Exception):
    """A call the server refused or could not answer: `code` (grpc.StatusCode) and `details`."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


@dataclass
class World:
    """The whole world as of `step`, kept up to date from a snapshot stream."""

    step: int = -1
    stamp: float = 0.0
    entities: dict[str, pb.EntityState] = field(default_factory=dict)

    def apply(self, msg: pb.Snapshot) -> None:
        if msg.full:
            self.entities = {}
        for name in msg.removed:
            self.entities.pop(name, None)
        for e in msg.entities:
            self.entities[e.name] = e
        self.step, self.stamp = msg.step, msg.stamp


class SoccerSimClient:
    def __init__(self, address: str = "127.0.0.1:50051", *, token: str = "", root_certificates: bytes | None = None,
                 timeout: float = 10.0, options: Sequence[tuple[str, Any]] = ()) -> None:
        """`token`: sent with every call (servers started with --grpc-token-file);
        `root_certificates`: PEM to trust for a TLS server (None: a plain channel)."""
        if root_certificates is not None:
            self.channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificates),
                                               options=list(options))
        else:
            self.channel = grpc.insecure_channel(address, options=list(options))
        self.timeout = timeout
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()
        self._sim = rpc.SimulationStub(self.channel)
        self._entities = rpc.EntitiesStub(self.channel)
        self._game = rpc.GameStub(self.channel)
        self._streams = rpc.StreamsStub(self.channel)
        self._cluster = rpc.ClusterStub(self.channel)

    def _call(self, method: Callable[..., T], request: Any, timeout: float | None = None) -> T:
        try:
            return method(request, timeout=timeout or self.timeout, metadata=self._metadata)
        except grpc.RpcError as exc:
            raise CallError(exc.code(), exc.details() or "") from None

    def _stream(self, method: Callable[..., Any], request: Any) -> Iterator[Any]:
        call = method(request, metadata=self._metadata)
        try:
            yield from call
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                raise CallError(exc.code(), exc.details() or "") from None
        finally:
            call.cancel()

    # ------------------------------------------------------------------ simulation
    def state(self) -> pb.SimulationState:
        return self._call(self._sim.GetState, pb.GetStateRequest())

    def pause(self) -> pb.SimulationState:
        return self._call(self._sim.Pause, pb.PauseRequest())

    def resume(self) -> pb.SimulationState:
        return self._call(self._sim.Resume, pb.ResumeRequest())

    def step(self, cycles: int, timeout_s: float = 120.0) -> pb.SimulationState:
        """While paused: run `cycles` cycles and return once they ran."""
        return self._call(self._sim.Step, pb.StepRequest(cycles=cycles, timeout_s=timeout_s), timeout_s + 10)

    def reset(self, *, state: bool = True, spawned: bool = True) -> pb.SimulationState:
        return self._call(self._sim.Reset, pb.ResetRequest(state=state, spawned=spawned))

    def set_speed(self, real_time_factor: float) -> pb.SimulationState:
        return self._call(self._sim.SetSpeed, pb.SetSpeedRequest(real_time_factor=real_time_factor))

    # ------------------------------------------------------------------ entities
    def entities(self, filter: str = "", *, tags: Sequence[str] = (), all_tags: bool = False,
                 category: str = "") -> list[pb.Entity]:
        """filter: an RE2 expression searched in the names."""
        return list(self._call(self._entities.List, pb.ListEntitiesRequest(
            filter=filter, tags=list(tags), all_tags=all_tags, category=category)).entities)

    def entity(self, name: str) -> pb.Entity:
        return self._call(self._entities.Get, pb.GetEntityRequest(name=name))

    def set_entity_state(self, name: str, position: tuple[float, float, float] | None = None,
                         orientation: tuple[float, float, float, float] = (1.0, 0.0, 0.0, 0.0),
                         linear: tuple[float, float, float] | None = None,
                         angular: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> pb.Entity:
        """Pose when `position` is given (orientation w, x, y, z), twist when `linear` is."""
        req = pb.SetEntityStateRequest(name=name)
        if position is not None:
            w, x, y, z = orientation
            req.pose.CopyFrom(pb.Pose(position=_vec(position), orientation=pb.Quaternion(w=w, x=x, y=y, z=z)))
        if linear is not None:
            req.twist.CopyFrom(pb.Twist(linear=_vec(linear), angular=_vec(angular)))
        return self._call(self._entities.SetState, req)

    def spawn(self, name: str, *, uri: str = "", sdf: str = "", position: tuple[float, float, float] = (0, 0, 0),
              allow_renaming: bool = False) -> pb.Entity:
        return self._call(self._entities.Spawn, pb.SpawnEntityRequest(
            name=name, uri=uri, sdf=sdf, pose=pb.Pose(position=_vec(position)), allow_renaming=allow_renaming))

    def delete(self, name: str) -> None:
        self._call(self._entities.Delete, pb.DeleteEntityRequest(name=name))

    # ------------------------------------------------------------------ game
    def game(self) -> pb.GameState:
        return self._call(self._game.GetState, pb.GetGameStateRequest())

    def set_play_mode(self, play_mode: str) -> pb.GameState:
        return self._call(self._game.SetPlayMode, pb.SetPlayModeRequest(play_mode=play_mode))

    def kick_off(self, side: str = "") -> pb.GameState:
        return self._call(self._game.KickOff, pb.KickOffRequest(side=side))

    def drop_ball(self) -> pb.GameState:
        return self._call(self._game.DropBall, pb.DropBallRequest())

    def move_ball(self, position: tuple[float, float, float],
                  velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> pb.GameState:
        return self._call(self._game.MoveBall, pb.MoveBallRequest(position=_vec(position), velocity=_vec(velocity)))

    def move_player(self, team: str, unum: int, x: float, y: float, rotation_deg: float = 0.0) -> pb.GameState:
        return self._call(self._game.MovePlayer, pb.MovePlayerRequest(team=team, unum=unum, x=x, y=y,
                                                                      rotation_deg=rotation_deg))

    def set_score(self, left: int, right: int) -> pb.GameState:
        return self._call(self._game.SetScore, pb.SetScoreRequest(left=left, right=right))

    def players(self) -> list[pb.Player]:
        return list(self._call(self._game.ListPlayers, pb.ListPlayersRequest()).players)

    # ------------------------------------------------------------------ streams
    def snapshots(self, *, every_cycles: int = 1, max_rate_hz: float = 0.0,
                  full_only: bool = False) -> Iterator[pb.Snapshot]:
        """The raw stream: the world, then what changed (or every one whole, `full_only`)."""
        return self._stream(self._streams.Snapshots, pb.SnapshotsRequest(
            every_cycles=every_cycles, max_rate_hz=max_rate_hz, full_only=full_only))

    def worlds(self, *, every_cycles: int = 1, max_rate_hz: float = 0.0) -> Generator[World, None, None]:
        """The whole world after each message (one World object, updated in place)."""
        world = World()
        for msg in self.snapshots(every_cycles=every_cycles, max_rate_hz=max_rate_hz):
            world.apply(msg)
            yield world

    def game_updates(self) -> Iterator[pb.GameUpdate]:
        """The game state now, then an update whenever the game changes (with its events)."""
        return self._stream(self._streams.GameEvents, pb.GameEventsRequest())

    def drawings(self, max_rate_hz: float = 0.0) -> Iterator[pb.DrawingBoard]:
        return self._stream(self._streams.Drawings, pb.DrawingsRequest(max_rate_hz=max_rate_hz))

    # ------------------------------------------------------------------ distributed runs
    def nodes(self) -> pb.ListNodesResponse:
        return self._call(self._cluster.ListNodes, pb.ListNodesRequest())

    # ------------------------------------------------------------------
    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> SoccerSimClient:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _vec(v: tuple[float, float, float]) -> pb.Vector3:
    return pb.Vector3(x=v[0], y=v[1], z=v[2])
