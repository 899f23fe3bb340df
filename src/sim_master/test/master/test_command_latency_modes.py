"""A prompt agent's command acts as many cycles after its perception in real time as in sync
mode: the second perception after the one it answers is the first to show it, as on
rcssserver3d (the fidelity traces' command latency 2) and rcssservermj (a reply to P_k acts in
step k+1).

Both references send a cycle's perception at its start and read answers at the next start;
ours sends it at the end of the cycle, so in real time an agent that answers within
milliseconds is read while the loop waits for the next tick. That read was taken as due in the
very next step, a cycle early: FC Portugal then fell 8 times in 60 s without reaching the
ball, and magmaOffenburg 24 times in 120 s (with the fix: a goal and 4 falls, and 0 falls)."""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from sim_bridge.clients import SimSparkAgent

HEAD_YAW = re.compile(rb"\(HJ \(n hj1\) \(ax ([-0-9.e]+)\)\)")
NOW = re.compile(rb"\(time \(now ([0-9.]+)\)\)")
CYCLE = 0.02


def _reading(msg: bytes) -> tuple[float, float]:
    """(server time, head yaw in degrees) of a perception."""
    now, yaw = NOW.search(msg), HEAD_YAW.search(msg)
    assert now is not None and yaw is not None, msg[:200]
    return float(now.group(1)), float(yaw.group(1))


@pytest.mark.parametrize("sync", [True, False], ids=["sync", "real-time"])
def test_a_command_shows_two_perceptions_later_in_either_mode(
        running_server: Callable[..., Any], sync: bool) -> None:
    with running_server(sync=sync, realtime=not sync) as server:
        agent = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Lat", 3)
        agent.join()
        for _ in range(30):  # beamed, dropped, standing still
            agent.act()
        latencies = []
        for _ in range(3):
            start, yaw0 = _reading(agent.act({"he1": 3.0}))  # answered at once, as a prompt agent
            moved_at = None
            for _ in range(10):
                now, yaw = _reading(agent.act())  # the speed persists; nothing else sent
                if abs(yaw - yaw0) > 0.5:
                    moved_at = now
                    break
            assert moved_at is not None, "the head never turned"
            latencies.append(round((moved_at - start) / CYCLE))
            for _ in range(5):  # stop and settle before the next probe
                agent.act({"he1": 0.0})
            for _ in range(5):
                agent.act()
        agent.close()
    assert latencies == [2, 2, 2], latencies
