"""A minimal Redis connection that sends commands now and reads their replies later.

The master writes every step; with redis-py a step costs a blocking round trip plus about
150 us of Python. Here the step's commands go out in one send, and their replies are read
at the next step, long after they arrived (RESP2, the subset replies of SET/DEL/XADD use)."""
from __future__ import annotations

import socket
from collections.abc import Sequence
from urllib.parse import urlparse

Arg = bytes | str | int


class RedisReplyError(RuntimeError):
    """Redis answered a command with an error."""


def encode(command: Sequence[Arg]) -> bytes:
    parts = [b"*%d\r\n" % len(command)]
    for arg in command:
        raw = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(raw), raw))
    return b"".join(parts)


class PipelinedConnection:
    def __init__(self, url: str, timeout_s: float = 5.0) -> None:
        parsed = urlparse(url)
        self._sock = socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 6379), timeout_s)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._file = self._sock.makefile("rb")
        self._pending = 0
        db = (parsed.path or "/0").strip("/") or "0"
        if db != "0":
            self.send([("SELECT", db)])
            self.drain()

    def send(self, commands: Sequence[Sequence[Arg]]) -> None:
        self._sock.sendall(b"".join(encode(c) for c in commands))
        self._pending += len(commands)

    def drain(self) -> None:
        """Read every outstanding reply; the first error reply is raised."""
        error: RedisReplyError | None = None
        while self._pending:
            self._pending -= 1
            try:
                self._read_reply()
            except RedisReplyError as exc:
                error = error or exc
        if error is not None:
            raise error

    def _read_reply(self) -> object:
        line = self._file.readline()
        if not line.endswith(b"\r\n"):
            raise ConnectionError("Redis closed the connection")
        kind, body = line[:1], line[1:-2]
        if kind == b"+":
            return body
        if kind == b"-":
            raise RedisReplyError(body.decode(errors="replace"))
        if kind == b":":
            return int(body)
        if kind == b"$":
            n = int(body)
            return None if n < 0 else self._file.read(n + 2)[:-2]
        if kind == b"*":
            return [self._read_reply() for _ in range(max(0, int(body)))]
        raise ConnectionError(f"not a Redis reply: {line[:40]!r}")

    def close(self) -> None:
        self._file.close()
        self._sock.close()
