"""A real single-mode server (engine, referee, bridge) on free ports, in a thread."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sim_master.master.config import ServerConfig
from sim_master.server.single import SingleModeServer


@contextmanager
def running_server(ros_args: list[str] | None = None, **overrides: object) -> Iterator[SingleModeServer]:
    settings: dict[str, object] = dict(sync=True, realtime=False, simspark_port=0, rcsssmj_port=0,
                                       simspark_monitor_port=None, rcsssmj_monitor_port=None,
                                       service_port=None, ros=False, sync_timeout=0.3,
                                       vision_noise=False)
    settings.update(overrides)
    server = SingleModeServer(ServerConfig(**settings))
    server.start(ros_args)
    thread = threading.Thread(target=server.run, name="server-loop", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.request_stop()
        thread.join(10)
        server.close()
        assert not thread.is_alive(), "server loop did not stop"


def port(server: SingleModeServer, dialect: str) -> int:
    return server.agent_servers[dialect].port
