"""A gRPC client of the core API for the tests: generated stubs on a real channel."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from soccersim_api.v1 import soccersim_pb2_grpc as rpc


@dataclass
class Stubs:
    channel: grpc.Channel
    sim: Any
    entities: Any
    game: Any
    streams: Any
    cluster: Any


def stubs_for(address: str, channel: grpc.Channel | None = None) -> Stubs:
    ch = channel or grpc.insecure_channel(address)
    return Stubs(ch, rpc.SimulationStub(ch), rpc.EntitiesStub(ch), rpc.GameStub(ch), rpc.StreamsStub(ch),
                 rpc.ClusterStub(ch))


def code_of(call: Any, *args: Any, **kwargs: Any) -> tuple[grpc.StatusCode, str]:
    """The status a call ends with (OK when it answers)."""
    try:
        call(*args, timeout=20, **kwargs)
    except grpc.RpcError as exc:
        return exc.code(), exc.details() or ""
    return grpc.StatusCode.OK, ""


@pytest.fixture
def grpc_clients() -> Iterator[list[Stubs]]:
    """Stubs made in a test are closed at its end (append them here)."""
    made: list[Stubs] = []
    try:
        yield made
    finally:
        for s in made:
            s.channel.close()
