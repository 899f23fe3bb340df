"""The browser monitor's server: static page over HTTP and frames over a WebSocket (/ws),
on one port, in its own asyncio thread. publish() never blocks the simulation: each client
gets the newest frame when it is ready for one (slow clients skip frames)."""
from __future__ import annotations

import asyncio
import functools
import threading
from importlib import resources
from typing import Final
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from sim_master.monitor_web.frame import WebFrame

TYPES: Final = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".css": "text/css; charset=utf-8"}


def _asset(name: str) -> bytes | None:
    try:
        return resources.files("sim_master.monitor_web").joinpath("static", name).read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None


class WebMonitor:
    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host, self.port = host, port
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="web-monitor", daemon=True)
        self._ready = threading.Event()
        self._failure: OSError | None = None
        self._latest: str | None = None
        self._version = 0
        self._changed: asyncio.Condition | None = None
        self._server = None
        self._stop: asyncio.Event | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def start(self) -> None:
        """Listening when it returns; OSError when the port cannot be had (e.g. busy)."""
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("web monitor did not start")
        if self._failure is not None:
            raise self._failure

    def publish(self, frame: WebFrame) -> None:
        text = frame.to_json()
        self._loop.call_soon_threadsafe(self._set_latest, text)

    def close(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(5)

    def _set_latest(self, text: str) -> None:
        self._latest = text
        self._version += 1
        if self._changed is not None:
            asyncio.ensure_future(self._notify())

    async def _notify(self) -> None:
        assert self._changed is not None
        async with self._changed:
            self._changed.notify_all()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._main())
        except OSError as exc:  # the port: start() reports it
            self._failure = exc
            self._ready.set()

    async def _main(self) -> None:
        self._changed = asyncio.Condition()
        self._stop = asyncio.Event()
        async with serve(self._client, self.host, self.port, process_request=self._http) as server:
            self.port = server.sockets[0].getsockname()[1]
            self._ready.set()
            await self._stop.wait()

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.path == "/ws":
            # A page from another site must not read the match through the visitor's browser:
            # browsers send Origin; a cross-origin one is refused (tools send none).
            origin = request.headers.get("Origin")
            if origin is not None and urlsplit(origin).netloc != request.headers.get("Host", ""):
                return connection.respond(403, "cross-origin WebSocket refused\n")
            return None
        name = "index.html" if request.path in ("/", "") else request.path.lstrip("/").split("?")[0]
        body = _asset(name) if "/" not in name and ".." not in name else None
        if body is None:
            return connection.respond(404, "not found\n")
        kind = TYPES.get(name[name.rfind("."):], "application/octet-stream")
        return Response(200, "OK", Headers([("Content-Type", kind), ("Content-Length", str(len(body))),
                                            ("Cache-Control", "no-store")]), body)

    def _newer_than(self, seen: int) -> bool:
        return self._version != seen and self._latest is not None

    async def _client(self, connection: ServerConnection) -> None:
        assert self._changed is not None
        seen = -1
        try:
            while True:
                async with self._changed:
                    await self._changed.wait_for(functools.partial(self._newer_than, seen))
                seen = self._version
                latest = self._latest
                if latest is not None:  # the wait above ensures it; the check tells the type checker
                    await connection.send(latest)
        except ConnectionClosed:
            return
