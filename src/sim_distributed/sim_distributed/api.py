"""The core API over gRPC served by a distributed run's master: the merged world (entities,
the snapshot stream), control of the lockstep (pause, resume, step), and the nodes' health.

Why the same server as single mode (sim_master.api): one API, one set of limits and checks;
only the rules differ. Calls run on the master's thread between steps (`serve_control`),
so they see a world no step is writing. The world here is the nodes' to change: entity
writes and the game are UNIMPLEMENTED, and while the barrier waits for a missing node
(policy pause) stepping is UNAVAILABLE."""
from __future__ import annotations

import threading
import time
from typing import Final, Protocol

from sim_physics.snapshot import EntitySnapshot, Snapshot

from sim_contracts import names
from sim_distributed.barrier import NodeRecord
from sim_master.api import convert
from sim_master.api.errors import ApiError
from sim_master.api.single_api import check_steps, start_steps
from sim_master.master import entity_query
from sim_master.master.stepping import PausedStepping
from soccersim_api.v1 import soccersim_pb2 as pb

API_BUDGET_S: Final = 0.002  # of the master's thread per serve_control for API calls


class LockstepHost(Protocol):
    """What the API reads of the master (sim_distributed.master.DistributedMaster)."""

    world: Snapshot
    step: int
    steps_run: int
    control: PausedStepping
    waiting_for: set[str]
    expected: set[str]
    node_info: dict[str, tuple[str, str]]
    node_steps: dict[str, int]
    rejoins: list[tuple[str, int]]

    @property
    def nodes(self) -> dict[str, NodeRecord]: ...
    def alive(self) -> set[str]: ...


class DistributedApi:
    """The calls of soccersim.v1 a distributed master answers (on its thread)."""

    def __init__(self, master: LockstepHost) -> None:
        self.master = master
        self.started = time.monotonic()

    # ------------------------------------------------------------------ simulation
    def state(self) -> pb.SimulationState:
        m = self.master
        state = pb.SimulationState.STATE_WAITING if self.waiting() else \
            pb.SimulationState.STATE_PAUSED if m.control.paused else pb.SimulationState.STATE_PLAYING
        elapsed = time.monotonic() - self.started
        return pb.SimulationState(state=state, cycle=m.step, stamp=m.world.time, sync=True,
                                  cycles_per_s=m.steps_run / elapsed if elapsed > 0 else 0.0,
                                  players=0, engine="per node", mode="distributed")

    def waiting(self) -> set[str]:
        """The nodes the last step waited for in vain that are not back yet (a node that
        registered again and beats is stepped with at the next step)."""
        return self.master.waiting_for - self.master.alive() if self.master.waiting_for else set()

    def _not_waiting(self) -> None:
        missing = self.waiting()
        if missing:
            raise ApiError("UNAVAILABLE", f"the lockstep waits for node(s) {', '.join(sorted(missing))[:200]}")

    def pause(self) -> pb.SimulationState:
        self.master.control.paused = True
        return self.state()

    def resume(self) -> pb.SimulationState:
        self._not_waiting()
        self.master.control.paused = False
        return self.state()

    def check_steps(self, cycles: int) -> None:
        check_steps(cycles)

    def start_steps(self, cycles: int) -> threading.Event:
        self._not_waiting()
        return start_steps(self.master.control, cycles, "the run")

    # ------------------------------------------------------------------ entities (the merged world)
    @staticmethod
    def describe(entity: EntitySnapshot) -> entity_query.Described:
        if entity.name == names.BALL:
            return entity_query.Described(entity_query.DYNAMIC_OBJECT, ("ball",), "the ball")
        tags = tuple(t for t in (entity.model, f"node:{entity.owner}" if entity.owner else "") if t)
        return entity_query.Described(entity_query.ROBOT, tags,
                                      f"{entity.model or 'entity'} simulated by node {entity.owner or '?'}")

    def entity(self, e: EntitySnapshot) -> pb.Entity:
        d = self.describe(e)
        return pb.Entity(state=convert.entity_state(e),
                         info=pb.EntityInfo(category=d.category, tags=d.tags, description=d.description))

    def list_entities(self, query: entity_query.EntityQuery, pattern: object) -> pb.ListEntitiesResponse:
        world = self.master.world
        chosen = [e for e in world.entities.values()
                  if entity_query.picks(query, pattern, e.name, e.position,
                                        lambda n: self.describe(world.entities[n]))]
        return pb.ListEntitiesResponse(step=world.step, stamp=world.time, entities=[self.entity(e) for e in chosen])

    def get_entity(self, name: str) -> pb.Entity:
        found = self.master.world.entities.get(name[:256])
        if found is None:
            raise ApiError("NOT_FOUND", f"no entity named {name[:80]!r}")
        return self.entity(found)

    # ------------------------------------------------------------------ the nodes
    def nodes(self) -> pb.ListNodesResponse:
        m = self.master
        now = time.monotonic()
        alive = m.alive()
        out = []
        for node_id in sorted(m.expected):
            record = m.nodes.get(node_id)
            engine, host = m.node_info.get(node_id, ("", ""))
            out.append(pb.NodeHealth(
                node_id=node_id, engine=engine, host=host, registered=record is not None, alive=node_id in alive,
                heartbeat_age_s=now - record.last_seen if record is not None else 0.0,
                last_step=m.node_steps.get(node_id, 0), resyncs=sum(1 for n, _ in m.rejoins if n == node_id)))
        return pb.ListNodesResponse(step=m.step, nodes=out, missing=sorted(m.expected - set(m.nodes)))
