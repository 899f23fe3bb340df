"""A stand-in for the core API in a process of its own: the same methods bench_grpc's clients
call (Simulation.GetState, Entities.List, Game.GetState, Streams.Snapshots), answered with
canned messages of a 22-Nao match's size, and no simulation behind them.

Why: bench_grpc's control row. On a machine whose cores the match already fills, the clients'
own processes and any gRPC server at all take cycles from it; this row shows how many, so the
real API's row can be read against it (what the API itself costs is the difference).

    python bench/grpc_standin.py PORT
"""
from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from typing import Any

import grpc

from soccersim_api.v1 import soccersim_pb2 as pb

NAOS, JOINTS = 23, 22  # 22 players and the ball, each written as a Nao (the larger message)


def canned() -> dict[str, bytes]:
    joints = [f"j{k}" for k in range(JOINTS)]
    states = [pb.EntityState(name=f"team/p{i}", model="nao0", joint_names=joints,
                             joint_positions=[0.1 * k for k in range(JOINTS)],
                             joint_velocities=[0.2 * k for k in range(JOINTS)]) for i in range(NAOS)]
    return {"snapshot": pb.Snapshot(step=1, stamp=0.02, full=True, entities=states).SerializeToString(),
            "list": pb.ListEntitiesResponse(step=1, entities=[pb.Entity(state=s) for s in states]).SerializeToString(),
            "state": pb.SimulationState(cycle=1, mode="single").SerializeToString(),
            "game": pb.GameState(play_mode="PlayOn").SerializeToString()}


async def serve(port: int) -> None:
    blobs = canned()

    def same(data: bytes) -> bytes:
        return data

    def unary(blob: bytes) -> grpc.RpcMethodHandler:
        async def answer(_: bytes, __: Any) -> bytes:
            return blob
        return grpc.unary_unary_rpc_method_handler(answer, request_deserializer=same, response_serializer=same)

    async def snapshots(request: bytes, _: Any) -> AsyncIterator[bytes]:
        rate = pb.SnapshotsRequest.FromString(request).max_rate_hz
        while True:
            yield blobs["snapshot"]
            await asyncio.sleep(1.0 / rate if rate > 0 else 0.01)

    server = grpc.aio.server()
    for service, methods in {
            "Simulation": {"GetState": unary(blobs["state"])}, "Entities": {"List": unary(blobs["list"])},
            "Game": {"GetState": unary(blobs["game"])},
            "Streams": {"Snapshots": grpc.unary_stream_rpc_method_handler(snapshots, request_deserializer=same,
                                                                          response_serializer=same)}}.items():
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(f"soccersim.v1.{service}", methods),))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


if __name__ == "__main__":
    asyncio.run(serve(int(sys.argv[1])))
