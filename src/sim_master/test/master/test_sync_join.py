"""Sync mode as rcssserver3d: an agent that answers its first perception with an init and no
(syn) (FC Portugal's handshake) gets its next perception at once instead of stalling the
match for the sync timeout; a slow joiner is never left cycles behind; with nobody
connected the clock runs in real time, not flat out."""
from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from sim_bridge.clients import LegacyClient

NOW = re.compile(rb"\(time \(now ([0-9.]+)\)\)")


def _now(msg: bytes) -> float:
    found = NOW.search(msg)
    assert found, msg[:200]
    return float(found.group(1))


def test_init_without_syn_does_not_stall_and_the_agent_is_in_lock_step(running_server: Callable[..., Any]) -> None:
    with running_server(sync_timeout=5.0) as server:
        agent = LegacyClient("127.0.0.1", server.agent_servers["simspark"].port)
        agent.send("(scene rsg/agent/nao/nao_hetero.rsg 0)")
        agent.receive()
        time.sleep(0.3)  # a slow agent: the server ran many cycles meanwhile
        t0 = time.monotonic()
        agent.send("(init (unum 3)(teamname Slow))")  # no (syn), as FC Portugal
        reply = agent.receive()
        assert time.monotonic() - t0 < 2.0, "the init without (syn) stalled the match"
        assert b"(unum 3)" in reply
        times = []
        for _ in range(10):  # from now on one perception per (syn): nothing queued behind
            agent.send("(syn)")
            times.append(_now(agent.receive()))
        steps = [round(b - a, 2) for a, b in zip(times, times[1:])]
        assert steps == [0.02] * 9, steps
        agent.close()


def test_sync_mode_with_nobody_connected_runs_in_real_time(running_server: Callable[..., Any]) -> None:
    with running_server() as server:
        start_cycles, start = server.loop.stats.cycles, time.monotonic()
        time.sleep(0.5)
        cycles = server.loop.stats.cycles - start_cycles
        rate = cycles / (time.monotonic() - start)
    assert rate < 80, f"{rate:.0f} cycles/s with nobody connected (real time is 50)"
