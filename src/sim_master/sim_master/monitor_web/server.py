"""The browser monitor's server: static page over HTTP and the messages of `frame.py` over a
WebSocket (/ws), on one port, in its own asyncio thread. publish() never blocks the
simulation: each client gets the newest scene, timeline and frame when it is ready for them
(slow clients skip frames). Commands from the page (replay controls, referee buttons) are
queued for the owner to take on its own thread; they are accepted from loopback clients
only unless remote commands are allowed, as on the legacy monitor ports.

Limits: every request must name this server by a name it is reachable by (an IP address,
localhost, its --host, or a name it was given): a page of another site that rebinds its own
name to 127.0.0.1 is refused (DNS rebinding), as a cross-origin WebSocket is; at most
MAX_CLIENTS pages watch at once (MAX_PER_HOST from one address); a command is at most
MAX_COMMAND_BYTES of JSON nested at most MAX_DEPTH deep."""
from __future__ import annotations

import asyncio
import functools
import ipaddress
import json
import queue
import threading
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from sim_master.monitor_web.frame import WebFrame

TYPES: Final = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".css": "text/css; charset=utf-8", ".txt": "text/plain; charset=utf-8"}
MAX_COMMAND_BYTES: Final = 4096  # a page command is a few dozen bytes; more closes the socket
COMMAND_QUEUE: Final = 256  # all clients' commands waiting for the simulation thread
PER_CLIENT: Final = 16  # of those, one client's: a flooding page loses its own commands, nobody else's
MAX_CLIENTS: Final = 64  # pages watching at once (each is sent every frame)
MAX_PER_HOST: Final = 16  # of those, from one address
MAX_DEPTH: Final = 8  # a command's JSON nesting: {"cmd": ..., "args": [...]} needs 3


@dataclass(slots=True, frozen=True)
class WebCommand:
    peer: str
    command: dict[str, Any]  # {"cmd": name, ...}, parsed JSON, nothing else checked


def _asset(name: str) -> bytes | None:
    """A file of the page: `static/<name>` or `static/vendor/<name>` (three.js), nothing else."""
    parts = name.split("/")
    if not (len(parts) == 1 or (len(parts) == 2 and parts[0] == "vendor")) or any(
            p in ("", ".", "..") or p.startswith(".") for p in parts):
        return None
    try:
        return resources.files("sim_master.monitor_web").joinpath("static", *parts).read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _loopback(host: str) -> bool:
    return host.startswith("127.") or host in ("::1", "localhost")


def host_name(header: str) -> str:
    """The name in an HTTP Host header, without its port ('[::1]:80' -> '::1')."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def _machine_names() -> set[str]:
    """This machine's own name (a server on 0.0.0.0 is reached by it); no DNS is asked."""
    import socket

    try:
        name = socket.gethostname().lower()
    except OSError:
        return set()
    return {name, name.split(".")[0]} if name else set()


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _too_deep(text: str | bytes, limit: int) -> bool:
    """JSON nested beyond `limit` (brackets outside strings), without parsing it."""
    depth, in_string, escaped = 0, False, False
    for ch in text.decode("utf-8", "replace") if isinstance(text, bytes) else text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


class WebMonitor:
    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, allow_remote_commands: bool = False,
                 live: bool = False, names: tuple[str, ...] = ()) -> None:
        """live: frames are made only while a page watches (a live match), so the last one goes
        stale when the last page leaves and is forgotten then: the next page gets the match as
        it is now, not where the previous page left it (a replay keeps its current frame)."""
        self.host, self.port = host, port
        # the names a page may reach this server by, besides IP addresses (see the module's doc)
        self.names = {"localhost", host.lower(), *(n.lower() for n in names), *_machine_names()}
        self.live = live
        self.allow_remote_commands = allow_remote_commands
        self._commands: queue.Queue[WebCommand] = queue.Queue(COMMAND_QUEUE)
        self._pending: dict[str, int] = {}  # peer -> its commands in the queue
        self._pending_lock = threading.Lock()
        self._scene: dict[str, Any] | None = None
        self.clients = 0  # connected pages (read by the simulation thread: frames only when > 0)
        self.wants_frame = False  # a page connected since the last frame was published
        self._timeline: str | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="web-monitor", daemon=True)
        self._ready = threading.Event()
        self._failure: OSError | None = None
        self._latest: str | None = None
        self._notices: dict[str, list[str]] = {}  # errors for one connected client (event loop only)
        self._peers: set[str] = set()  # connected clients (event loop only)
        self._per_host: dict[str, int] = {}  # connected clients by address (event loop only)
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
        self.wants_frame = False
        text = frame.to_json()
        self._loop.call_soon_threadsafe(self._set_latest, text)

    def set_scene(self, scene: dict[str, Any]) -> None:
        """What the page needs before frames (see frame.py); sent again to every client."""
        self._loop.call_soon_threadsafe(self._set_channel, "_scene", dict(scene))

    def tell(self, peer: str, message: str) -> None:
        """An error for one client only (e.g. its command refused by the referee), by the `peer`
        of its WebCommand; any thread."""
        self._loop.call_soon_threadsafe(self._add_notice, peer, message[:300])

    def _add_notice(self, peer: str, message: str) -> None:
        if peer not in self._peers:  # it left: nobody to tell
            return
        notices = self._notices.setdefault(peer, [])
        if len(notices) < 20:  # a client that never reads them holds 20 at most
            notices.append(message)
        self._version += 1
        if self._changed is not None:
            asyncio.ensure_future(self._notify())

    def set_timeline(self, timeline: dict[str, Any]) -> None:
        self._loop.call_soon_threadsafe(self._set_channel, "_timeline", json.dumps(timeline, separators=(",", ":")))

    def take_commands(self) -> list[WebCommand]:
        """The commands clients sent since the last call (owner's thread)."""
        out: list[WebCommand] = []
        while True:
            try:
                item = self._commands.get_nowait()
            except queue.Empty:
                return out
            with self._pending_lock:
                left = self._pending.get(item.peer, 1) - 1
                if left > 0:
                    self._pending[item.peer] = left
                else:
                    self._pending.pop(item.peer, None)
            out.append(item)

    def commands_allowed(self, peer_host: str) -> bool:
        return self.allow_remote_commands or _loopback(peer_host)

    def close(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(5)

    def _set_channel(self, name: str, value: object) -> None:
        setattr(self, name, value)
        self._version += 1
        if self._changed is not None:
            asyncio.ensure_future(self._notify())

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
        async with serve(self._client, self.host, self.port, process_request=self._http,
                         max_size=MAX_COMMAND_BYTES) as server:
            self.port = server.sockets[0].getsockname()[1]
            self._ready.set()
            await self._stop.wait()

    def host_allowed(self, header: str | None) -> bool:
        """A Host this server answers to: an address, or one of its names (not a name some
        other site rebound to this machine's address)."""
        if header is None:
            return False
        name = host_name(header)
        return _is_address(name) or name in self.names or name.endswith(".localhost")

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        hosts = request.headers.get_all("Host")
        if len(hosts) != 1 or not self.host_allowed(hosts[0]):
            return connection.respond(403, "this server is not reachable by that name (Host refused)\n")
        if request.path == "/ws":
            if self.clients >= MAX_CLIENTS:
                return connection.respond(503, f"{MAX_CLIENTS} pages watch already\n")
            peer = str(connection.remote_address[0]) if connection.remote_address else ""
            if self._per_host.get(peer, 0) >= MAX_PER_HOST:
                return connection.respond(503, f"{MAX_PER_HOST} pages from {peer} watch already\n")
            # A page from another site must not read the match through the visitor's browser:
            # browsers send Origin; a cross-origin one is refused (tools send none).
            origin = request.headers.get("Origin")
            if origin is not None and urlsplit(origin).netloc != request.headers.get("Host", ""):
                return connection.respond(403, "cross-origin WebSocket refused\n")
            return None
        name = "index.html" if request.path in ("/", "") else request.path.lstrip("/").split("?")[0]
        body = _asset(name)
        if body is None:
            return connection.respond(404, "not found\n")
        kind = TYPES.get(name[name.rfind("."):], "application/octet-stream")
        return Response(200, "OK", Headers([("Content-Type", kind), ("Content-Length", str(len(body))),
                                            ("Cache-Control", "no-store")]), body)

    def _newer_than(self, seen: int) -> bool:
        return self._version != seen

    async def _client(self, connection: ServerConnection) -> None:
        assert self._changed is not None
        peer_host = str(connection.remote_address[0]) if connection.remote_address else ""
        allowed = self.commands_allowed(peer_host)
        reader = asyncio.ensure_future(self._read_commands(connection, peer_host, allowed))
        writer = asyncio.current_task()

        def reader_ended(_done: object) -> None:
            if writer is not None:  # a page that leaves while nothing changes is let go at once
                writer.cancel()

        reader.add_done_callback(reader_ended)
        if self.clients >= MAX_CLIENTS or self._per_host.get(peer_host, 0) >= MAX_PER_HOST:
            reader.remove_done_callback(reader_ended)  # handshakes at once passed the check: the cap holds
            reader.cancel()
            await connection.close(1013, "too many pages watch already")
            return
        peer = f"{peer_host}:{connection.remote_address[1] if connection.remote_address else 0}"
        seen, sent_scene, sent_timeline, sent_frame = -1, None, None, None
        self._peers.add(peer)
        self._per_host[peer_host] = self._per_host.get(peer_host, 0) + 1
        self.clients += 1
        self.wants_frame = True
        try:
            while True:
                async with self._changed:
                    await self._changed.wait_for(functools.partial(self._newer_than, seen))
                seen = self._version
                scene, timeline, latest = self._scene, self._timeline, self._latest
                if scene is not None and scene is not sent_scene:
                    await connection.send(json.dumps({**scene, "commands": allowed}, separators=(",", ":")))
                    sent_scene = scene
                # the frame before the timeline: a page told "paused" has every frame shown before the pause
                if latest is not None and latest is not sent_frame:
                    await connection.send(latest)
                    sent_frame = latest
                if timeline is not None and timeline is not sent_timeline:
                    await connection.send(timeline)
                    sent_timeline = timeline
                for notice in self._notices.pop(peer, []):
                    await connection.send(json.dumps({"kind": "error", "message": notice}))
        except (ConnectionClosed, asyncio.CancelledError):
            return
        finally:
            self._peers.discard(peer)
            self._notices.pop(peer, None)
            left = self._per_host.get(peer_host, 1) - 1
            if left > 0:
                self._per_host[peer_host] = left
            else:
                self._per_host.pop(peer_host, None)
            self.clients -= 1
            if self.live and self.clients == 0:
                self._latest = None
            reader.remove_done_callback(reader_ended)
            reader.cancel()

    async def _read_commands(self, connection: ServerConnection, peer_host: str, allowed: bool) -> None:
        """One fault boundary per client: whatever it sends, only it gets an error back."""
        peer = f"{peer_host}:{connection.remote_address[1] if connection.remote_address else 0}"
        try:
            async for message in connection:
                error = self._accept(message, peer, allowed)
                if error:
                    await connection.send(json.dumps({"kind": "error", "message": error}))
        except ConnectionClosed:
            return

    def _accept(self, message: str | bytes, peer: str, allowed: bool) -> str | None:
        if _too_deep(message, MAX_DEPTH):
            return f"commands are JSON nested at most {MAX_DEPTH} deep"
        try:
            command = json.loads(message)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return "commands are JSON objects like {\"cmd\": \"pause\"}"
        if not isinstance(command, dict) or not isinstance(command.get("cmd"), str):
            return "commands are JSON objects like {\"cmd\": \"pause\"}"
        if not allowed:
            return f"commands are accepted from this machine only ({peer} is remote)"
        with self._pending_lock:
            if self._pending.get(peer, 0) >= PER_CLIENT:
                return "too many commands at once; this one was dropped"
            try:
                self._commands.put_nowait(WebCommand(peer, command))
            except queue.Full:
                return "too many commands at once; this one was dropped"
            self._pending[peer] = self._pending.get(peer, 0) + 1
        return None
