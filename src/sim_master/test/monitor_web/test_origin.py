"""The web monitor's WebSocket refuses pages of other sites (a cross-origin Origin header),
and serves its own page and tools that send no Origin."""
from __future__ import annotations

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from sim_master.monitor_web.server import WebMonitor


def test_cross_origin_websocket_is_refused() -> None:
    monitor = WebMonitor("127.0.0.1", 0)
    monitor.start()
    try:
        url = f"ws://127.0.0.1:{monitor.port}/ws"
        with pytest.raises(InvalidStatus) as refused:
            connect(url, origin="http://evil.example", open_timeout=5)
        assert refused.value.response.status_code == 403
        with connect(url, origin=f"http://127.0.0.1:{monitor.port}", open_timeout=5):
            pass
        with connect(url, open_timeout=5):
            pass
    finally:
        monitor.close()
