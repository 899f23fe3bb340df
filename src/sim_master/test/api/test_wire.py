"""The hand-written snapshot encoder (api/wire.py) reads back, through protobuf's own parser,
as exactly the message protobuf builds from the same state (convert.snapshot)."""
from __future__ import annotations

import math

import numpy as np
from sim_physics.engine.factory import physics_engine
from sim_physics.snapshot import EntitySnapshot, Snapshot

from sim_master.api import convert
from sim_master.api.wire import SnapshotWriter, varint, vector_of
from soccersim_api.v1 import soccersim_pb2 as pb


def test_a_real_world_encodes_as_protobuf_builds_it() -> None:
    engine = physics_engine("auto", "simspark_field", vision_noise=False)
    engine.add_robot("Alpha/p1", "nao0", -3.0, 1.0, 30.0)
    engine.add_robot("crate", "pusher", 2.0, -1.0, 0.0)
    for _ in range(3):
        engine.step()
    capture = engine.capture()
    writer = SnapshotWriter()
    ours = pb.Snapshot.FromString(writer.snapshot(capture.step, capture.time, True, capture.entities,
                                                  removed=("gone", "also/gone")))
    theirs = convert.snapshot(capture.snapshot())
    theirs.removed.extend(["gone", "also/gone"])
    assert ours == theirs
    assert len(ours.entities) == 3 and len(ours.entities[1].joint_names) >= 22
    again = pb.Snapshot.FromString(writer.snapshot(capture.step, capture.time, False, capture.entities[:1]))
    assert not again.full and [e.name for e in again.entities] == [capture.entities[0][0]]


def test_owners_odd_numbers_and_an_entity_without_joints() -> None:
    e = EntitySnapshot("left_1", (1e300, -0.0, 5e-324), (0.5, 0.5, -0.5, 0.5), (math.pi, 0, -1), (0, 0, 2),
                       ("j1", "é"), (0.25, -1e-12), (3.0, 4.0), owner="A", model="pusher")
    ball = EntitySnapshot("ball", (0, 0, 0.042), model="ball")
    writer = SnapshotWriter()
    data = writer.snapshot(2 ** 40, 123.46, False, [vector_of(e), vector_of(ball)], owners={"left_1": "A"})
    ours = pb.Snapshot.FromString(data)
    assert ours == convert.snapshot(Snapshot(2 ** 40, 123.46, False, {"left_1": e, "ball": ball}))


def test_varint() -> None:
    for n in (0, 1, 127, 128, 300, 2 ** 32, 2 ** 63):
        value, shift = 0, 0
        for i, byte in enumerate(varint(n)):
            value |= (byte & 0x7F) << shift
            shift += 7
            assert (byte & 0x80 == 0) == (i == len(varint(n)) - 1)
        assert value == n
    assert np.frombuffer(b"\x00" * 8, dtype="<f8")[0] == 0.0
