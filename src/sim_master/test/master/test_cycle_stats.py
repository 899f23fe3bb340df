"""The loop times its phases, and the text service port reports them (bench_sync reads them)."""
from __future__ import annotations

import json
import socket
from collections.abc import Callable
from typing import Any

from sim_bridge.clients import SimSparkAgent
from sim_master.master.loop import PHASES


def test_phase_times_are_counted_and_served(running_server: Callable[..., Any]) -> None:
    with running_server(service_port=0) as server:
        agent = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Alpha", 1)
        agent.join()
        for _ in range(30):
            agent.act({"he1": 0.5})
        assert server.service_port is not None
        with socket.create_connection(("127.0.0.1", server.service_port.port), timeout=10) as s:
            f = s.makefile("rw")
            f.write("q simulation stats\n")
            f.flush()
            tag, status, body = f.readline().split(" ", 2)
    stats = json.loads(body)
    assert (tag, status) == ("q", "SUCCESS") and stats["cycles"] >= 30
    assert set(stats["phase_s"]) == set(PHASES)
    assert stats["phase_s"]["physics"] > 0 and stats["phase_s"]["perceive"] > 0 and stats["phase_s"]["vision"] > 0
