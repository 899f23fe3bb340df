"""The robot models are read ahead one per cycle, never in the polls between cycles (a
real-time server polls many times a cycle: reading there blocked it for several models)."""
from __future__ import annotations

from sim_master.master.config import ServerConfig
from sim_master.server.single import PRELOADED_MODELS, ModelsReadAhead, SingleModeServer


def test_one_model_per_cycle_and_none_between_cycles() -> None:
    config = ServerConfig(sync=False, realtime=True, simspark_port=None, rcsssmj_port=None,
                          simspark_monitor_port=None, rcsssmj_monitor_port=None, service_port=None, ros=False,
                          web_port=None, draw_port=None, vision_noise=False, engine="ode")
    server = SingleModeServer(config)
    try:
        server.start()
        reader = next(a for a in server.loop.adapters if isinstance(a, ModelsReadAhead))
        unread = lambda: len(reader._unread)
        assert unread() == len(PRELOADED_MODELS)
        for _ in range(5):  # what a real-time loop does between two ticks
            server.loop._poll_services()
        assert unread() == len(PRELOADED_MODELS)
        server.loop.cycle()
        assert unread() == len(PRELOADED_MODELS) - 1
        server.loop.control.pause()
        server.loop.cycle()  # paused: nothing stepped, but the cycle began
        assert unread() == len(PRELOADED_MODELS) - 2
    finally:
        server.close()
