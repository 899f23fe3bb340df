"""Entity listings made off the simulation's thread: the loop only reads its state (a
capture, 0.01 ms once the cycle's arrays are read) and what each entity is (its tags); the
vectors are cut, filtered and written here, on the API's thread.

Why: a listing of 22 Naos built on the loop's thread cost about 1 ms (snapshot objects, then
messages); a tool polling the list must not slow the match."""
from __future__ import annotations

from dataclasses import dataclass

from sim_physics.snapshot import EntityVector, StateCapture

from sim_master.api.errors import ApiError
from sim_master.api.wire import SnapshotWriter
from sim_master.master import entity_query
from soccersim_api.v1 import soccersim_pb2 as pb

UNKNOWN = entity_query.Described(entity_query.ROBOT, (), "")


@dataclass(frozen=True, slots=True)
class WorldRead:
    """What the loop's thread read: the state, and each entity's category, tags, description."""

    capture: StateCapture
    described: dict[str, entity_query.Described]


class WorldViews:
    """Listings and single entities from a WorldRead (the API's thread only: its writer
    remembers each entity's encoded names)."""

    def __init__(self) -> None:
        self.writer = SnapshotWriter()

    def _entity(self, read: WorldRead, vector: EntityVector) -> pb.Entity:
        d = read.described.get(vector[0], UNKNOWN)
        return pb.Entity(state=pb.EntityState.FromString(self.writer.entity(vector)),
                         info=pb.EntityInfo(category=d.category, tags=d.tags, description=d.description))

    def listing(self, read: WorldRead, query: entity_query.EntityQuery, pattern: object) -> pb.ListEntitiesResponse:
        chosen = [v for v in read.capture.entities
                  if entity_query.picks(query, pattern, v[0], (float(v[3][0]), float(v[3][1]), float(v[3][2])),
                                        lambda n: read.described.get(n, UNKNOWN))]
        return pb.ListEntitiesResponse(step=read.capture.step, stamp=read.capture.time,
                                       entities=[self._entity(read, v) for v in chosen])

    def one(self, read: WorldRead, name: str) -> pb.Entity:
        found = next((v for v in read.capture.entities if v[0] == name), None)
        if found is None:
            raise ApiError("NOT_FOUND", f"no entity named {name[:80]!r}")
        return self._entity(read, found)
