"""What broke the reference servers must not break this one: each offender gets a log line
and is dropped or ignored while two good agents keep playing (real engine, real TCP)."""
from __future__ import annotations

import logging
import math
import socket
import struct
import time
from collections.abc import Callable
from typing import Any

import pytest

from sim_bridge.clients import LegacyClient, RcsssmjAgent, SimSparkAgent


def good_agents(server) -> tuple[SimSparkAgent, RcsssmjAgent]:
    a = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Good", 1)
    a.join()
    b = RcsssmjAgent("127.0.0.1", server.agent_servers["rcsssmj"].port, "Fine", 1)
    b.join()
    return a, b


def play(agents: tuple[SimSparkAgent, RcsssmjAgent], cycles: int) -> None:
    a, b = agents
    for _ in range(cycles):
        a.act({"he1": 0.1})
        b.act()


def raw(server, dialect: str = "simspark") -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.agent_servers[dialect].port), timeout=5)


OFFENDERS = {
    "zero_length": lambda s: raw(s).sendall(struct.pack(">I", 0)),
    "huge_length": lambda s: raw(s).sendall(struct.pack(">I", 0xFFFFFFFD)),
    "garbage": lambda s: raw(s).sendall(b"\x00\x00\x00\x10" + bytes(range(200, 216))),
    "half_message": lambda s: raw(s).sendall(struct.pack(">I", 100) + b"(scene rsg/agent/nao/nao"),
}


@pytest.mark.parametrize("offence", sorted(OFFENDERS))
def test_framing_offenders_are_dropped_and_play_goes_on(running_server: Callable[..., Any],
                                                        offence: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with running_server(sync_timeout=0.3) as server:
        agents = good_agents(server)
        play(agents, 10)
        OFFENDERS[offence](server)
        before = agents[0].log.times[-1]
        play(agents, 30)
        assert agents[0].log.times[-1] == pytest.approx(before + 30 * 0.02, abs=0.021)
        assert len(agents[1].log.times) == 40
    text = caplog.text
    if offence in ("zero_length", "huge_length"):
        assert "framing error" in text and "dropped" in text


def test_bad_effectors_unknown_joints_nan_and_unum_12(running_server: Callable[..., Any],
                                                      caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with running_server() as server:
        agents = good_agents(server)
        bad = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Good", 12)
        bad.join()
        for _ in range(20):
            bad.act(extra="(llj7 1.0)(he2 nan)(xyz 1 2 3)")
            play(agents, 1)
        play(agents, 10)
        assert len(agents[1].log.times) == 30 and bad.log.joined is None
        for e in server.loop.engine.snapshot().entities.values():  # every body and joint still finite
            assert all(math.isfinite(v) for v in (*e.position, *e.orientation, *e.joint_positions)), e.name
    text = caplog.text
    assert "uniform number 12 is outside 1..11" in text
    assert "unknown joint effector 'llj7'" in text or "llj7" in text
    assert "non-finite" in text and "unknown effector (xyz" in text
    assert text.count("llj7") == 1  # logged once per agent, not every cycle


def test_silent_agent_in_sync_mode_is_lagging_and_resumes(running_server: Callable[..., Any],
                                                          caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with running_server(sync_timeout=0.2) as server:
        agents = good_agents(server)
        silent = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Good", 2)
        silent.join()
        play(agents, 20)  # the silent one never answers: the others keep their cycle
        start = time.monotonic()
        play(agents, 20)
        assert time.monotonic() - start < 2.0  # no 0.2 s wait per cycle once it is lagging
        assert "lagging" in caplog.text
        silent.act()  # it answers again: it is waited for again
        play(agents, 5)
        assert any("answers again" in r.message for r in caplog.records)


def test_disconnect_mid_cycle_and_connection_churn(running_server: Callable[..., Any],
                                                   caplog: pytest.LogCaptureFixture) -> None:
    with running_server() as server:
        agents = good_agents(server)
        leaver = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Good", 3)
        leaver.join()
        leaver.act()
        leaver.send(b"(he1 1.0")  # not even a whole S-expression
        leaver.close()
        play(agents, 5)
        for i in range(1000):
            s = raw(server, "simspark" if i % 2 else "rcsssmj")
            s.close()
            if i % 100 == 0:
                play(agents, 1)
        play(agents, 10)
        # the churn is taken a batch per poll and per cycle (agent_server.ACCEPTS_PER_CYCLE): it
        # drains while the good agents play
        deadline = time.monotonic() + 60
        while len(server.loop.players) > 2 and time.monotonic() < deadline:
            play(agents, 1)
        assert len(server.loop.players) == 2
        assert len(server.loop.engine.robot_ids()) == 2
        # and the good agents play in lockstep again: one cycle a perception, none held back
        seen = len(agents[1].log.times)
        play(agents, 20)
        times = agents[1].log.times[seen:]
        steps = [round((b - a) / 0.02) for a, b in zip(times, times[1:], strict=False)]
        assert steps[-10:] == [1] * 10, steps


def test_slow_reader_is_dropped_not_waited_for(running_server: Callable[..., Any]) -> None:
    with running_server(sync=False, realtime=False, max_cycles=None) as server:
        server.agent_servers["simspark"].max_outbuf = 64 * 1024
        c = LegacyClient("127.0.0.1", server.agent_servers["simspark"].port)
        c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        c.send(b"(scene rsg/agent/nao/nao.rsg)")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and server.loop.players.get("simspark-1") is not None:
            time.sleep(0.05)
        assert server.loop.players.get("simspark-1") is None
        c.close()


def test_a_percept_that_fails_on_the_server_costs_that_percept_only(running_server: Callable[..., Any],
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    """A server-side fault building one player's percept (any bug, say a stale cache after a
    mid-cycle rebuild) is logged once with its traceback; the loop, the other players and
    the next cycles go on."""
    caplog.set_level(logging.INFO)
    with running_server() as server:
        agents = good_agents(server)
        victim = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Good", 2)
        victim.join()
        robot = None
        loop = server.loop
        for _ in range(50):  # its registration lands with a coming cycle (sync: the agents drive them)
            players = loop.calls.call(lambda: [(p.robot_id, p.team, p.unum) for p in loop.players.with_robots()])
            robot = next((r for r, team, unum in players if (team, unum) == ("Good", 2)), None)
            if robot is not None:
                break
            play(agents, 1)
            victim.act({"he1": 0.1})
        assert robot is not None
        real = server.loop.engine.percept
        failing = {"left": 5}

        def percept(robot_id: str, **kwargs: object):
            if robot_id == robot and failing["left"] > 0:
                failing["left"] -= 1
                raise ValueError("operands could not be broadcast together")
            return real(robot_id, **kwargs)

        server.loop.calls.call(lambda: setattr(server.loop.engine, "percept", percept))
        play(agents, 20)  # the others are served every cycle
        assert len(agents[1].log.times) >= 20
        victim.act({"he1": 0.1})  # and the victim again once the fault is gone
        play(agents, 5)
        assert server.loop.engine.time > 0.4
    assert caplog.text.count("percept of") == 1 and "ValueError" in caplog.text
