"""The checked-in protoc output is that of the proto (regenerate: python -m soccersim_api.generate)."""
from __future__ import annotations

from soccersim_api import generate


def test_generated_modules_are_those_of_the_proto() -> None:
    assert generate.stale() == [], "run: python -m soccersim_api.generate"


def test_the_proto_package_is_versioned() -> None:
    from soccersim_api.v1 import soccersim_pb2 as pb

    assert pb.DESCRIPTOR.package == "soccersim.v1"
    assert {s.name for s in pb.DESCRIPTOR.services_by_name.values()} == \
        {"Simulation", "Entities", "Game", "Streams", "Cluster"}
