"""A monitor's trainer commands are a few at a time (issue 42: a flood of them took the good
agents from 50 to 9 perceptions/s): each monitor may give COMMANDS_PER_S a second, its socket
waits in TCP once they are spent, and what is over its budget in one read is dropped and said."""
from __future__ import annotations

import socket
import struct
import time

from sim_bridge.monitor_server import COMMANDS_PER_S, MonitorServer


def test_a_flood_of_trainer_commands_is_held_to_the_monitors_budget() -> None:
    server = MonitorServer("simspark", "127.0.0.1", 0)
    server.start()
    try:
        flood = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        command = b"(ball (pos 1 1 0.1))"
        flood.sendall((struct.pack(">I", len(command)) + command) * 5000)
        taken = 0
        started = time.monotonic()
        while time.monotonic() - started < 1.0:
            taken += len(server.poll())
            time.sleep(0.005)
        elapsed = time.monotonic() - started
        assert COMMANDS_PER_S * 0.5 <= taken <= COMMANDS_PER_S * (1 + elapsed) + 5, taken
        flood.close()
    finally:
        server.close()
