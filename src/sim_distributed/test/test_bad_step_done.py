"""Bad data from a node is that node's fault: a StepDone whose snapshot cannot be read
(b'SNP1' + 40 x 0xff, once fatal to the master) or that comes from a node nobody expects is
logged and dropped; a good answer for the same step is still taken."""
from __future__ import annotations

import logging

import pytest
from sim_distributed.barrier import NodeRecord, NodeRoster, StepBarrier
from sim_distributed.master import DistributedMaster
from sim_physics.snapshot import Snapshot

from sim_master.ros.convert import snapshot_to_packed_msg
from sim_msgs.msg import Snapshot as SnapshotMsg
from sim_msgs.msg import StepDone


def _master() -> DistributedMaster:
    master = DistributedMaster.__new__(DistributedMaster)  # the answer handling only, no ROS graph
    master.step, master.expected = 41, {"A", "B"}
    master.roster = NodeRoster(master.expected, 0.5, {"A": NodeRecord("A", last_seen=0.0)})
    master.barrier = StepBarrier(master.expected)
    master.barrier.begin(42, {"A", "B"}, now=0.0)
    return master


def test_unreadable_and_unexpected_answers_are_dropped(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    master = _master()
    forged = SnapshotMsg(packed=list(b"SNP1" + b"\xff" * 40))
    master._on_done(StepDone(node_id="A", step=42, delta=forged, snapshot_hash="x"))
    master._on_done(StepDone(node_id="Z", step=42, delta=forged, snapshot_hash="x"))
    assert master.barrier.deltas == {} and "unreadable delta" in caplog.text and "unknown node" in caplog.text
    good = snapshot_to_packed_msg(Snapshot(42, 0.84, False, {}))
    master._on_done(StepDone(node_id="A", step=42, delta=good, snapshot_hash="h"))
    assert set(master.barrier.deltas) == {"A"} and master.barrier.deltas["A"].step == 42
    assert master.nodes["A"].last_seen > 0
