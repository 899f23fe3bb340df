"""No message from any client stops the match: while a SimSpark and an rcsssmj agent play in
sync mode, attackers send what once killed the server (non-finite and huge numbers that
overflowed the parser, 1500-deep parentheses that overflowed repr, a refused init followed
by motor commands for the robot it never got, loopback monitor commands with the same)
over real sockets; after each one both good agents keep getting perceptions, cycle after
cycle, and the score was not touched."""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sim_bridge.clients import LegacyClient, RcsssmjAgent, SimSparkAgent

DEEP = "(" * 1500 + ")" * 1500
AGENT_ATTACKS = {
    "simspark": [
        "(scene rsg/agent/nao/nao_hetero.rsg inf)",
        "(scene rsg/agent/nao/nao_hetero.rsg nan)",
        "(scene rsg/agent/nao/nao_hetero.rsg 0)(init (unum 1e400)(teamname X))",
        "(scene rsg/agent/nao/nao_hetero.rsg 0)(init (unum 3)(teamname X))(beam 1e400 0 0)(he1 inf)",
        DEEP,
        f"(scene {DEEP})",
        f"(scene rsg/agent/nao/nao_hetero.rsg 0)(say {DEEP})",
        f"(scene rsg/agent/nao/nao_hetero.rsg 0)(init (unum 4)(teamname {DEEP}))",
    ],
    "rcsssmj": [
        "(init nao X inf)",
        "(init nao X 1e400)",
        "(init nao A 12)(he1 0 0 1 0 0)",
        "(init T1 A 99)(he1 0 0 1 0 0)(beam 1 2 3)",
        "(init nao B 3)(he1 nan 0 1 0 0)(he2 1e400 0 1 0 0)(beam inf 0 0)",
        "(init T1 C 7)(he1 1e300 0 1e300 0 0)(he2 0 1e300 0 1e300 1e300)(beam 1e300 -1e300 1e300)",
        DEEP,
        f"(init {DEEP} A 5)",
    ],
}
MONITOR_ATTACKS = [
    "(score (left 1e400)(right 0))",
    "(score (left nan)(right 0))",
    "(agent (unum 1e400)(team T)(pos 0 0 0))",
    "(playMode " + "(" * 1200 + ")" * 1200 + ")",
    "(ball (pos inf 0 0))",
    "(ball (pos 1e300 0 0)(vel 1e300 0 0))",
    "(agent (unum 1)(team Left)(pos 1e300 1e300 0))",
    "(time 1e400)",
    DEEP,
]


def _play(simspark: SimSparkAgent, rcsssmj: RcsssmjAgent, cycles: int) -> tuple[float, float]:
    for _ in range(cycles):
        simspark.act()
        rcsssmj.act()
    return simspark.log.times[-1], rcsssmj.log.times[-1] if rcsssmj.log.times else 0.0


@pytest.mark.timeout(180)
def test_hostile_messages_on_every_port_leave_the_match_running(running_server: Callable[..., Any],
                                                                tmp_path: Path) -> None:
    log = tmp_path / "attacked.mcap"
    with running_server(simspark_monitor_port=0, rcsssmj_monitor_port=0, sync_timeout=2.0,
                                log_path=str(log)) as server:
        host = "127.0.0.1"
        simspark = SimSparkAgent(host, server.agent_servers["simspark"].port, "Good", 1)
        simspark.join()
        rcsssmj = RcsssmjAgent(host, server.agent_servers["rcsssmj"].port, "Good", 2, model="T1")
        rcsssmj.join()
        last = _play(simspark, rcsssmj, 3)
        attacks = [(server.agent_servers[dialect].port, payload) for dialect, payloads in AGENT_ATTACKS.items()
                   for payload in payloads]
        attacks += [(server.monitor_servers[name].port, payload)
                    for name in ("simspark", "rcsssmj") for payload in MONITOR_ATTACKS]
        for port, payload in attacks:
            attacker = LegacyClient(host, port)
            attacker.send(payload)
            now = _play(simspark, rcsssmj, 3)  # the server read the attack within these cycles
            assert now[0] > last[0] and now[1] > last[1], f"the match stalled after {payload[:60]!r}"
            last = now
            attacker.close()
        assert server.loop.referee.state.score_left == server.loop.referee.state.score_right == 0
        assert len(server.loop.engine.robot_ids()) >= 2  # both good agents still have their robots
        physics = getattr(server.loop.engine, "_engine", server.loop.engine)  # auto: the league engine's current one
        warnings = getattr(getattr(physics, "data", None), "warning", [])  # MuJoCo's guards reset or zero the world
        assert all(warnings[i].number == 0 for i in range(len(warnings))), "a hostile number reached MuJoCo"
        assert physics.faults.faults == 0, "a hostile number made a physics step fail"
        cycles = server.loop.stats.cycles
    # the match's log is complete: every cycle, a summary and CRCs the strict reader accepts
    from mcap.reader import make_reader

    from sim_master.store.mcap_log import ReplayLogReader

    steps = [c.step for c in ReplayLogReader(str(log)).cycles()]
    assert steps == list(range(steps[0], steps[0] + len(steps))) and len(steps) >= cycles - 1
    with open(log, "rb") as f:
        summary = make_reader(f, validate_crcs=True).get_summary()
    assert summary is not None and summary.statistics is not None and summary.statistics.message_count > 0


def test_stop_does_not_wait_out_a_silent_agent(running_server: Callable[..., Any]) -> None:
    """Sync mode with a 3 s timeout and an agent that stopped answering: the server stops
    at once, it does not sit out the timeout first."""
    import time

    with running_server(sync_timeout=3.0) as server:
        agent = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Quiet", 1)
        agent.join()
        for _ in range(10):  # past the grace cycles: from now on the server waits for it
            agent.act()
        agent.receive()  # the perception it will never answer
        cycles = -1
        while cycles != server.loop.stats.cycles:  # the loop stands still: it is waiting for the agent
            cycles = server.loop.stats.cycles
            time.sleep(0.1)
        start = time.monotonic()
    assert time.monotonic() - start < 1.0


def test_deleting_an_agents_robot_closes_its_connection(running_server: Callable[..., Any]) -> None:
    """delete_entity on a TCP agent's robot: the agent learns it (its connection is closed
    with a log line) instead of waiting for perceptions that never come."""
    with running_server() as server:
        agent = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Gone", 1)
        agent.join()
        agent.act()
        robot = next(iter(server.loop.engine.robot_ids()))
        assert server.loop.calls.call(lambda: server.loop.entities.delete_entity(robot)) is None
        with pytest.raises(ConnectionError):
            for _ in range(5):
                agent.act()
        assert robot not in server.loop.engine.robot_ids()


def test_agents_coming_and_going_do_not_rebuild_the_model(running_server: Callable[..., Any]) -> None:
    """30 `(scene ...)` connect/close cycles in a row while a good agent plays in sync mode:
    the robots are parked and reused, so the model is built at most once more, and the good
    agent is never waited out (no lagging)."""
    import threading

    with running_server(sync_timeout=5.0) as server:
        good = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Good", 1)
        good.join()
        good.act()
        builds = server.loop.engine.builds
        done = threading.Event()

        def play() -> None:
            while not done.is_set():
                good.act()

        player = threading.Thread(target=play, daemon=True)
        player.start()
        start = time.monotonic()
        for _ in range(30):
            visitor = LegacyClient("127.0.0.1", server.agent_servers["simspark"].port)
            visitor.send("(scene rsg/agent/nao/nao_hetero.rsg 0)")
            visitor.receive()  # its robot exists: it got its first perception
            visitor.close()
        elapsed = time.monotonic() - start
        done.set()
        player.join(10)
        assert server.loop.engine.builds <= builds + 1
        assert elapsed < 5.0  # 30 joins and leaves never waited out the 5 s sync timeout


def test_spawned_models_are_let_go_with_their_last_entity(running_server: Callable[..., Any]) -> None:
    """Issue 42: RSS grew 7 kB per spawn + delete pair without end: each new SDF text was a
    model registered for ever. Now a spawned model goes with its last entity."""
    sdf = ('<sdf version="1.9"><model name="box{i}"><link name="l"><inertial><mass>1</mass></inertial>'
           '<collision name="c"><geometry><box><size>0.1 0.1 0.1</size></box></geometry></collision></link>'
           '</model></sdf>')
    with running_server(simspark_port=None, rcsssmj_port=None, sync=False) as server:
        def registered() -> int:
            engines = getattr(server.loop.engine, "_engines", {"one": server.loop.engine}).values()
            return sum(1 for e in engines for key in getattr(e, "_models", {}) if key.startswith("sdf-"))

        def pair(i: int) -> None:
            out = server.loop.calls.call(lambda: server.loop.entities.spawn_entity("thing", "", False, (1.0, 1.0, 0.3),
                                                                (1.0, 0.0, 0.0, 0.0), resource_string=sdf.format(i=i)))
            assert not out.error, out
            assert server.loop.calls.call(lambda: server.loop.entities.delete_entity("thing")) is None

        pair(0)
        before = registered()
        for i in range(1, 60):
            pair(i)
        assert registered() == before
        kept = server.loop.calls.call(lambda: server.loop.entities.spawn_entity("kept", "", False, (2.0, 1.0, 0.3),
                                                                      (1.0, 0.0, 0.0, 0.0),
                                                                      resource_string=sdf.format(i=999)))
        assert not kept.error and registered() > before  # a model in use stays
