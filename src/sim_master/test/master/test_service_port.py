"""The text service port drives the referee and the simulation of a running server."""
from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from typing import Any


def test_text_requests_and_answers(running_server: Callable[..., Any]) -> None:
    with running_server(sync=False, realtime=True, service_port=0) as server:
        assert server.service_port is not None
        with socket.create_connection(("127.0.0.1", server.service_port.port), timeout=5) as s:
            f = s.makefile("rw")

            def ask(line: str) -> str:
                f.write(line + "\n")
                f.flush()
                return f.readline().strip()

            assert ask("r1 referee set_play_mode PlayOn") == "r1 SUCCESS"
            state = ask("r2 referee game_state")
            assert state.startswith("r2 SUCCESS ") and json.loads(state[11:])["play_mode"] == "PlayOn"
            assert ask("r3 referee set_play_mode Nonsense").startswith("r3 FAILED unknown play mode")
            assert ask("r4 simulation pause") == "r4 SUCCESS paused"
            t = ask("r5 simulation time")
            assert ask("r6 simulation step 10") == "r6 SUCCESS stepping 10"
            start = float(t.split()[-1])
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and float(ask("r7 simulation time").split()[-1]) < start + 0.2 - 1e-9:
                pass  # each request is answered between cycles: this polls the clock, not a timer
            time.sleep(0.2)  # and it stays there: paused again after exactly 10 cycles
            assert round(float(ask("r7 simulation time").split()[-1]) - start, 2) == 0.2
            assert ask("r8 weather forecast").startswith("r8 UNKNOWN")
            assert ask("garbage").startswith("garbage FAILED")
            assert ask("r9 referee set_score 2 x").startswith("r9 FAILED usage")
            for n, bad in enumerate(("simulation step -5", "simulation step 0", "simulation step 1e400",
                                     "simulation step 18446744073709551615", "simulation step 2.5",
                                     "referee set_score 1e400 0", "referee move_ball inf 0 0")):
                assert ask(f"b{n} {bad}").startswith(f"b{n} FAILED usage"), bad  # refused, server alive
            assert ask("r10 simulation state") == "r10 SUCCESS paused"
            # pause always wins: a long pending step ends when paused again
            assert ask("r11 simulation step 1000000") == "r11 SUCCESS stepping 1000000"
            assert ask("r12 simulation pause") == "r12 SUCCESS paused"
            t3 = ask("r13 simulation time")
            time.sleep(0.2)
            assert ask("r14 simulation time").split()[-1] == t3.split()[-1]
