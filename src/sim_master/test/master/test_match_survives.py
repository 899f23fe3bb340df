"""Matches finish: what ended or corrupted a match on 3bd4ab5, each over a real server and
real sockets (issue 26). A command is never lost because another agent joins; a physics
fault is rolled back and play goes on; a hostile request costs only its own answer."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from sim_bridge.clients import RcsssmjAgent

_spec = importlib.util.spec_from_file_location("server_fixture", Path(__file__).parent / "server_fixture.py")
fixture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixture)


def test_a_beam_is_kept_when_another_agent_joins_in_its_cycle() -> None:
    """The beam waits a cycle (rcssservermj's effector delay); the init of another agent in
    that cycle rebuilt the MuJoCo model and copied the old pose over the beam."""
    with fixture.running_server(sync_timeout=5.0) as server:
        port = fixture.port(server, "rcsssmj")
        first = RcsssmjAgent("127.0.0.1", port, "Walkers", 1, model="T1")
        first.join()
        for _ in range(3):
            first.act()
        joiner = RcsssmjAgent("127.0.0.1", port, "Walkers", 2, model="T1")
        first.act(extra="(beam -3.5 2.25 0)")  # waits one cycle before it acts
        first.receive()  # that cycle is over: the server now waits for the next answer
        joiner.join()  # so this init is taken in the cycle the beam acts in
        first.send("(syn)")
        for _ in range(10):
            first.act()
            joiner.act()
        (x, y, _), _ = server.engine.robot_pose("Walkers/p1")
        first.close()
        joiner.close()
    assert abs(x + 3.5) < 0.05 and abs(y - 2.25) < 0.05, f"the beam was lost: robot at ({x:.2f}, {y:.2f})"
