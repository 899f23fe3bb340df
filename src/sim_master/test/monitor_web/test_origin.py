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


def test_a_name_rebound_to_this_machine_is_refused() -> None:
    """DNS rebinding (issue 42): a page of evil.example whose name now resolves to 127.0.0.1
    is same-origin to the browser, so Origin passes; the Host it names is not ours."""
    import http.client

    monitor = WebMonitor("127.0.0.1", 0, names=("soccer.lab",))
    monitor.start()
    try:
        url = f"ws://127.0.0.1:{monitor.port}/ws"
        rebound = {"Host": f"evil.example:{monitor.port}"}
        with pytest.raises(InvalidStatus) as refused:
            connect(url, origin=f"http://evil.example:{monitor.port}", additional_headers=rebound, open_timeout=5)
        assert refused.value.response.status_code == 403
        for host, status in ((f"evil.example:{monitor.port}", 403), (f"127.0.0.1:{monitor.port}", 200),
                             (f"localhost:{monitor.port}", 200), (f"soccer.lab:{monitor.port}", 200),
                             (f"[::1]:{monitor.port}", 200), ("", 403)):
            page = http.client.HTTPConnection("127.0.0.1", monitor.port, timeout=5)
            page.putrequest("GET", "/", skip_host=True)
            if host:
                page.putheader("Host", host)
            page.endheaders()
            assert page.getresponse().status == status, host
            page.close()
    finally:
        monitor.close()


def test_pages_are_capped_and_deep_json_is_answered() -> None:
    import json

    from sim_master.monitor_web.server import MAX_DEPTH, MAX_PER_HOST

    monitor = WebMonitor("127.0.0.1", 0, allow_remote_commands=True)
    monitor.start()
    url = f"ws://127.0.0.1:{monitor.port}/ws"
    pages = []
    try:
        for _ in range(MAX_PER_HOST):
            pages.append(connect(url, open_timeout=5))
        with pytest.raises(InvalidStatus) as refused:
            connect(url, open_timeout=5)
        assert refused.value.response.status_code == 503
        pages[0].send("[" * 2000 + "]" * 2000)  # no more than a command may be, but 2000 deep
        reply = json.loads(pages[0].recv(timeout=5))
        assert reply["kind"] == "error" and f"at most {MAX_DEPTH} deep" in reply["message"]
        pages.pop().close()
        deadline = 50
        while monitor.clients >= MAX_PER_HOST and deadline:
            import time

            time.sleep(0.1)
            deadline -= 1
        with connect(url, open_timeout=5):  # a place is free again
            pass
    finally:
        for page in pages:
            page.close()
        monitor.close()
