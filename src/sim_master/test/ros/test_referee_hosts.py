"""Issue 43: the referee judges in the server's process or in its own (over DDS); both hosts
derive from `RefereeHost`, so whatever one refuses the other refuses with the same words,
before anything goes on the wire."""
from __future__ import annotations

import math
from typing import Any

import pytest

from sim_contracts.agents import BeamFrame
from soccer_referee.commands import KickOff, MoveAgent, MoveBall, RefereeCommand, SetPlayMode, SetScore, SetTime
from soccer_referee.referee import Referee
from soccer_referee.service import RefereeHost

BAD_COMMANDS: list[RefereeCommand] = [
    MoveBall((math.nan, 0.0, 0.1)),
    MoveBall((1e300, 0.0, 0.1)),
    MoveBall((0.0, 0.0, 0.1), (1e9, 0.0, 0.0)),
    MoveAgent("left", 1, math.inf, 0.0),
    MoveAgent("middle", 1, 0.0, 0.0),
    MoveAgent("left", 1, 0.0, 0.0, orientation=(0.0, 0.0, 0.0, 0.0)),
    SetPlayMode("NoSuchMode"),
    SetTime(-1.0),
    SetTime(math.nan),
    SetScore(-1, 0),
    SetScore(0, 10**9),
    KickOff("up"),
]


def test_every_host_of_the_referee_keeps_the_boundarys_public_calls() -> None:
    """A host implements only what the checked values are for: none overrides the public calls."""
    from sim_master.ros.remote_referee import RemoteReferee

    public = ("register", "unregister", "request_beam", "command", "step")
    for host in (Referee, RemoteReferee):
        assert issubclass(host, RefereeHost)
        for name in public:
            assert getattr(host, name) is getattr(RefereeHost, name), f"{host.__name__}.{name} bypasses the checks"


def test_both_hosts_refuse_the_same_requests_with_the_same_words(ros_context: Any,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    from sim_master.ros.remote_referee import RemoteReferee

    local = Referee.create("simspark")
    # a referee node that does not exist: anything that reached the wire would be answered
    # "does not answer" after seconds, not with the boundary's reason
    remote = RemoteReferee(ros_context, "nobody_judges_here", local.rules, world=Any, clock=lambda: 0.0,
                           timeout=0.1)
    remote.field = local.field
    try:
        for command in BAD_COMMANDS:
            mine, theirs = local.command(command), remote.command(command)
            assert not mine.ok and mine.error, command
            assert (theirs.ok, theirs.error) == (mine.ok, mine.error), command
        for team, unum in (("", 1), ("a b", 1), ("x" * 65, 1), ("T(", 1), ("Ok", 12), ("Ok", -1)):
            assert remote.register(team, unum) == local.register(team, unum)
            assert not local.register(team, unum).success
        for beam in (("left", 1, math.nan, 0.0, 0.0), ("up", 1, 0.0, 0.0, 0.0), ("left", 1, 0.0, math.inf, 0.0)):
            mine_beam = local.request_beam(*beam, frame=BeamFrame.TEAM)
            assert not mine_beam.success
            assert remote.request_beam(*beam, frame=BeamFrame.TEAM) == mine_beam
        for dt in (0.0, -0.02, math.nan, 5.0):
            with pytest.raises(ValueError):
                local.step(dt)
            with pytest.raises(ValueError):
                remote.step(dt)
    finally:
        remote.close()
    assert "does not answer" not in caplog.text  # nothing went on the wire


def test_referee_node_drops_a_world_it_cannot_step(ros_context: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A referee_world with a dt no cycle has (0, NaN, an hour) is said and dropped; before,
    the referee's check raised out of the subscription and ended referee_node."""
    from rclpy.node import Node

    from sim_msgs.msg import RefereeWorld
    from soccer_referee.ros.judge import Judge

    node = Node("judge_dt_test", context=ros_context)
    try:
        judge = Judge(node, Referee.create("simspark"), "soccersim")
        judge._senders.allows = lambda info: True  # type: ignore[method-assign]  # as from the link
        for cycle, dt in enumerate((0.0, math.nan, 3600.0), start=1):
            judge._on_world(RefereeWorld(cycle=cycle, dt=dt), None)
        assert judge.cycle == 0  # none judged
        judge._on_world(RefereeWorld(cycle=1, dt=0.02), None)
        assert judge.cycle == 1  # a good one is
    finally:
        node.destroy_node()
