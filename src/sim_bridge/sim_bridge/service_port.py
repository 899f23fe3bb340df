"""MORSE-style text service port (default 4000): one request per line,
`<id> <component> <service> [params...]`, answered `<id> <status> [result]` with status
SUCCESS, FAILED or UNKNOWN. For scripts and telnet, e.g. `r1 referee set_play_mode PlayOn`."""
from __future__ import annotations

import logging
import selectors
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from sim_bridge.listener import open_listener

Handler = Callable[[list[str]], str]
MAX_LINE: Final = 4096
# Clients held at once: a new one beyond it closes the one that has been quiet longest, so
# idle or abandoned connections never keep a script out or slow the others.
MAX_CLIENTS: Final = 256
ACCEPTS_PER_POLL: Final = 64  # a flood of connections is taken a batch per poll, between cycles
MAX_REPLY_QUEUE: Final = 1 << 20  # bytes of answers a client that does not read may have queued
_log = logging.getLogger("sim_bridge.service_port")


class ServiceError(Exception):
    """A handler refuses a request; the message goes back as the FAILED result."""


@dataclass(slots=True)
class _Client:
    sock: socket.socket
    peer: str
    buf: bytearray = field(default_factory=bytearray)
    out: bytearray = field(default_factory=bytearray)
    active: float = field(default_factory=time.monotonic)


class ServicePort:
    def __init__(self, host: str = "127.0.0.1", port: int = 4000) -> None:
        self.host, self.port = host, port
        self._handlers: dict[tuple[str, str], Handler] = {}
        self._selector = selectors.DefaultSelector()
        self._listener: socket.socket | None = None
        self._clients: dict[int, _Client] = {}

    def register(self, component: str, service: str, handler: Handler) -> None:
        self._handlers[(component, service)] = handler

    def services(self) -> list[str]:
        return sorted(f"{c} {s}" for c, s in self._handlers)

    def start(self) -> None:
        listener = open_listener(self.host, self.port)
        self.port = listener.getsockname()[1]
        self._listener = listener
        self._selector.register(listener, selectors.EVENT_READ, None)

    def close(self) -> None:
        for client in list(self._clients.values()):
            self._drop(client)
        if self._listener is not None:
            self._selector.unregister(self._listener)
            self._listener.close()
            self._listener = None
        self._selector.close()

    def poll(self, timeout: float = 0.0) -> None:
        """Answer every complete request line that has arrived."""
        for key, mask in self._selector.select(timeout):
            if key.data is None:
                self._accept()
                continue
            client = self._clients.get(key.fd)
            if client is not None and mask & selectors.EVENT_WRITE:
                self._flush(client)
            client = self._clients.get(key.fd)
            if client is not None and mask & selectors.EVENT_READ:
                self._read(client)

    def handle_line(self, line: str) -> str:
        parts = line.split()
        if len(parts) < 3:
            return f"{parts[0] if parts else '?'} FAILED expected '<id> <component> <service> [params]'"
        request_id, component, service, params = parts[0], parts[1], parts[2], parts[3:]
        handler = self._handlers.get((component, service))
        if handler is None:
            return f"{request_id} UNKNOWN no service '{component} {service}' (known: {'; '.join(self.services())})"
        try:
            result = handler(params)
        except ServiceError as exc:
            return f"{request_id} FAILED {exc}"
        except Exception as exc:  # noqa: BLE001 - a bad request must not stop the server
            _log.exception("service %s %s failed", component, service)
            return f"{request_id} FAILED {type(exc).__name__}: {exc}"
        return f"{request_id} SUCCESS {result}".rstrip()

    def _accept(self) -> None:
        """Every connection waiting (not one per poll: a burst must not queue behind the loop)."""
        assert self._listener is not None
        for _ in range(ACCEPTS_PER_POLL):
            try:
                sock, addr = self._listener.accept()
            except OSError:  # BlockingIOError: nobody else waits
                return
            if len(self._clients) >= MAX_CLIENTS:
                self._drop(min(self._clients.values(), key=lambda c: c.active))
            sock.setblocking(False)
            self._clients[sock.fileno()] = _Client(sock, f"{addr[0]}:{addr[1]}")
            self._selector.register(sock, selectors.EVENT_READ, sock.fileno())

    def _read(self, client: _Client) -> None:
        try:
            data = client.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._drop(client)
            return
        client.active = time.monotonic()
        client.buf += data
        *lines, rest = bytes(client.buf).split(b"\n")  # one pass over what arrived
        client.buf = bytearray(rest)
        for raw in lines:
            if len(raw) > MAX_LINE:
                _log.warning("service client %s sent a line over %d bytes: dropped", client.peer, MAX_LINE)
                self._drop(client)
                return
            reply = self.handle_line(raw.decode("utf-8", "replace").strip())
            client.out += (reply + "\n").encode()
            if len(client.out) > MAX_REPLY_QUEUE:
                _log.warning("service client %s reads none of its answers: dropped", client.peer)
                self._drop(client)
                return
        if client.out:
            self._flush(client)
        if client.sock.fileno() in self._clients and len(client.buf) > MAX_LINE:
            _log.warning("service client %s sent a line over %d bytes: dropped", client.peer, MAX_LINE)
            self._drop(client)

    def _flush(self, client: _Client) -> None:
        """Send what the socket takes now; the rest waits for it to be writable (never blocks)."""
        try:
            sent = client.sock.send(client.out)
            del client.out[:sent]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._drop(client)
            return
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if client.out else 0)
        self._selector.modify(client.sock, events, client.sock.fileno())

    def _drop(self, client: _Client) -> None:
        self._clients.pop(client.sock.fileno(), None)
        try:
            self._selector.unregister(client.sock)
        except (KeyError, ValueError):
            pass
        client.sock.close()
