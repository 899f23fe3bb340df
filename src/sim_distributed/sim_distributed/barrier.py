"""The lockstep barrier of a distributed run, as plain logic: who must answer a step, who
did, until when, what happens to a silent node (the policy), how the answers merge into the
world, and who may register under which id.

Why pure: the rules of the barrier are the hard part of distributed mode and deserve tests
that need no processes, DDS or Redis. `master.py` feeds this module the
answers and the clock and does the messaging; nothing here imports ROS.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from sim_physics.snapshot import Snapshot

POLICIES: Final = ("pause", "continue")
NODE_ID_LIVE: Final = "id in use"  # the refusal text a node recognises (it retries)


class StepOutcome(Enum):
    WAITING = "waiting"  # answers missing, time left
    DONE = "done"  # every waited-for node answered
    PAUSED = "paused"  # policy pause: a node is silent past the deadline; repeat the step
    CONTINUED = "continued"  # policy continue: step on with the answers there are


@dataclass(slots=True)
class NodeRecord:
    node_id: str
    last_seen: float
    playing_at: float = 0.0  # when a process under this id last said it plays


@dataclass(slots=True)
class NodeRoster:
    """The registered nodes, their heartbeats, and the one-process-per-id rule."""

    expected: set[str]
    heartbeat_s: float
    nodes: dict[str, NodeRecord] = field(default_factory=dict)

    def register(self, node_id: str, now: float) -> str | None:
        """Accept a registration (returns None) or say why not."""
        if node_id not in self.expected:
            return f"no assets are assigned to node {node_id!r}"
        record = self.nodes.get(node_id)
        if record is not None and now - record.playing_at <= 3 * self.heartbeat_s:
            # two processes under one id would both step its assets: the one already playing
            # keeps them; a restarted node is accepted once the old one's heartbeats stop
            return f"{NODE_ID_LIVE}: node {node_id!r} is playing (heard {now - record.playing_at:.1f} s ago)"
        self.nodes[node_id] = NodeRecord(node_id, now)
        return None

    def heard(self, node_id: str, now: float, *, playing: bool) -> bool:
        """A heartbeat or an answer; False for a node that is not registered."""
        record = self.nodes.get(node_id)
        if record is None:
            return False
        record.last_seen = now
        if playing:
            record.playing_at = now
        return True

    def alive(self, now: float) -> set[str]:
        return {n for n, r in self.nodes.items() if now - r.last_seen <= 3 * self.heartbeat_s}

    def complete(self) -> bool:
        return set(self.nodes) == self.expected


@dataclass(slots=True)
class StepBarrier:
    """One step at a time: begin it, feed answers, ask for the outcome, merge."""

    expected: set[str]
    policy: str = "pause"
    timeout_s: float = 1.0
    step: int = 0  # the step being waited for
    waiting: set[str] = field(default_factory=set)
    deadline: float = 0.0
    deltas: dict[str, Snapshot] = field(default_factory=dict)
    hashes: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(f"unknown barrier policy {self.policy!r} (known: {', '.join(POLICIES)})")

    def begin(self, step: int, alive: set[str], now: float) -> None:
        """Policy pause waits for every expected node; continue only for the live ones."""
        self.step = step
        self.waiting = set(self.expected) if self.policy == "pause" else alive & self.expected
        self.deadline = now + self.timeout_s
        self.deltas = {}
        self.hashes = {}

    def answer(self, node_id: str, step: int, delta: Snapshot, snapshot_hash: str = "") -> bool:
        """A node's answer; False (dropped) when it is for another step or from a stranger."""
        if step != self.step or node_id not in self.expected:
            return False
        self.deltas[node_id] = delta
        self.hashes[node_id] = snapshot_hash
        return True

    def missing(self) -> set[str]:
        return self.waiting - self.deltas.keys()

    def outcome(self, now: float) -> StepOutcome:
        if not self.missing():
            return StepOutcome.DONE
        if now <= self.deadline:
            return StepOutcome.WAITING
        return StepOutcome.PAUSED if self.policy == "pause" else StepOutcome.CONTINUED

    def merged_delta(self, dt: float) -> Snapshot:
        """The answers as one delta of the world; every entity owned by the node that sent it."""
        entities = {}
        for node_id, delta in self.deltas.items():
            for name, entity in delta.entities.items():
                entity.owner = node_id
                entities[name] = entity
        return Snapshot(self.step, self.step * dt, False, entities)
