"""The lockstep barrier's rules without processes: who is waited for, what each policy does
with a silent node, how answers merge and own their entities, and one process per node id."""
from __future__ import annotations

import pytest
from sim_distributed.barrier import NODE_ID_LIVE, NodeRoster, StepBarrier, StepOutcome
from sim_physics.snapshot import EntitySnapshot, Snapshot


def _delta(step: int, *names: str, x: float = 1.0) -> Snapshot:
    return Snapshot(step, step * 0.02, False, {n: EntitySnapshot(name=n, position=(x, 0.0, 0.0)) for n in names})


def test_a_step_is_done_when_every_node_answered_and_answers_merge_with_owners() -> None:
    barrier = StepBarrier({"A", "B"}, "pause", timeout_s=1.0)
    barrier.begin(7, alive={"A", "B"}, now=100.0)
    assert barrier.outcome(100.1) is StepOutcome.WAITING
    assert barrier.answer("A", 7, _delta(7, "a1", "a2"), "hA")
    assert not barrier.answer("B", 6, _delta(6, "b1"))  # an old step's answer is dropped
    assert not barrier.answer("Z", 7, _delta(7, "z1"))  # a stranger is dropped
    assert barrier.outcome(100.2) is StepOutcome.WAITING and barrier.missing() == {"B"}
    assert barrier.answer("B", 7, _delta(7, "b1", x=2.0), "hB")
    assert barrier.outcome(100.3) is StepOutcome.DONE
    merged = barrier.merged_delta(0.02)
    assert merged.step == 7 and merged.time == pytest.approx(0.14) and not merged.full
    assert {n: e.owner for n, e in merged.entities.items()} == {"a1": "A", "a2": "A", "b1": "B"}
    assert barrier.hashes == {"A": "hA", "B": "hB"}


def test_pause_repeats_a_step_with_a_silent_node_continue_steps_on() -> None:
    pause = StepBarrier({"A", "B"}, "pause", timeout_s=0.5)
    pause.begin(3, alive={"A"}, now=0.0)  # pause waits for every node, alive or not
    pause.answer("A", 3, _delta(3, "a1"))
    assert pause.outcome(0.4) is StepOutcome.WAITING and pause.outcome(0.6) is StepOutcome.PAUSED
    go_on = StepBarrier({"A", "B"}, "continue", timeout_s=0.5)
    go_on.begin(3, alive={"A", "B"}, now=0.0)
    go_on.answer("A", 3, _delta(3, "a1"))
    assert go_on.outcome(0.6) is StepOutcome.CONTINUED
    assert set(go_on.merged_delta(0.02).entities) == {"a1"}  # B's assets stay where they were
    go_on.begin(4, alive={"A"}, now=1.0)  # a node known dead is not waited for at all
    go_on.answer("A", 4, _delta(4, "a1"))
    assert go_on.outcome(1.0) is StepOutcome.DONE


def test_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown barrier policy"):
        StepBarrier({"A"}, "wait forever")


def test_one_process_per_node_id() -> None:
    roster = NodeRoster({"A", "B"}, heartbeat_s=0.5)
    assert roster.register("C", 0.0) == "no assets are assigned to node 'C'"
    assert roster.register("A", 0.0) is None and not roster.complete()
    assert roster.heard("A", 1.0, playing=True)
    twin = roster.register("A", 2.0)  # heard playing 1 s ago: a second process under A is refused
    assert twin is not None and twin.startswith(NODE_ID_LIVE)
    assert roster.register("A", 2.6) is None  # its heartbeats stopped 1.6 s (> 3 beats) ago: a restart
    assert not roster.heard("B", 2.7, playing=False)  # not registered: nothing to update
    assert roster.register("B", 2.7) is None and roster.complete()
    assert roster.alive(3.0) == {"A", "B"} and roster.alive(4.3) == set()
