"""A single-mode server whose loop runs in a thread of the caller's process.

Why: tests, tools (the port fuzzer) and demos drive a real server from the same process,
with real sockets and DDS, and must stop it however they end; one context manager does
that for all of them."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sim_master.master.config import ServerConfig
from sim_master.server.single import SingleModeServer


@contextmanager
def serving(config: ServerConfig, ros_args: list[str] | None = None) -> Iterator[SingleModeServer]:
    """The server started (ports open) with its loop running; stopped and closed on exit."""
    server = SingleModeServer(config)
    server.start(ros_args)
    thread = threading.Thread(target=server.run, name="server-loop", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.request_stop()
        thread.join(10)
        server.close()
        if thread.is_alive():
            raise RuntimeError("the server loop did not stop within 10 s")
