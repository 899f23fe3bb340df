"""Minimal legacy agents (SimSpark and rcsssmj dialects) over real TCP.

They do what existing agents (FC Portugal, UT Austin Villa, magmaOffenburg) do on the
wire - scene/init/beam, then one reply per perception - and nothing more. Tests, benchmarks
and demos use them to drive the server exactly as existing agents would."""
from __future__ import annotations

import re
import socket
import struct
from dataclasses import dataclass, field
from typing import Final

NAO_EFFECTORS: Final = ("he1", "he2", "lae1", "lae2", "lae3", "lae4", "rae1", "rae2", "rae3",
                        "rae4", "lle1", "lle2", "lle3", "lle4", "lle5", "lle6", "rle1", "rle2",
                        "rle3", "rle4", "rle5", "rle6")
_TIME = re.compile(rb"\(time \(now ([-0-9.]+)\)\)")
_PLAY_MODE = re.compile(rb"\(pm ([A-Za-z_]+)\)")
_UNUM = re.compile(rb"\(unum (\d+)\) \(team (left|right)\)")


class LegacyClient:
    """A framed TCP connection (4-byte big-endian length prefix)."""

    def __init__(self, host: str, port: int, timeout: float = 10.0) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._buf = bytearray()

    def send(self, payload: bytes | str) -> None:
        data = payload.encode() if isinstance(payload, str) else payload
        self.sock.sendall(struct.pack(">I", len(data)) + data)

    def receive(self) -> bytes:
        """The next whole message; raises ConnectionError when the server closes."""
        while True:
            if len(self._buf) >= 4:
                (size,) = struct.unpack_from(">I", self._buf)
                if len(self._buf) >= 4 + size:
                    msg = bytes(self._buf[4:4 + size])
                    del self._buf[:4 + size]
                    return msg
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self._buf += chunk

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


@dataclass
class PerceptionLog:
    """What an agent saw: times, play modes, the side/unum announcement."""

    times: list[float] = field(default_factory=list)
    play_modes: list[str] = field(default_factory=list)
    joined: tuple[int, str] | None = None
    last: bytes = b""

    def record(self, msg: bytes) -> None:
        self.last = msg
        m = _TIME.search(msg)
        if m:
            self.times.append(float(m.group(1)))
        m = _PLAY_MODE.search(msg)
        if m:
            self.play_modes.append(m.group(1).decode())
        m = _UNUM.search(msg)
        if m and self.joined is None:
            self.joined = (int(m.group(1)), m.group(2).decode())


class SimSparkAgent(LegacyClient):
    """`(scene rsg/agent/nao/nao_hetero.rsg T)`, wait for a perception, `(init ...)`."""

    def __init__(self, host: str, port: int, team: str, unum: int = 0, robot_type: int = 0,
                 timeout: float = 10.0) -> None:
        super().__init__(host, port, timeout)
        self.team, self.unum, self.robot_type = team, unum, robot_type
        self.log = PerceptionLog()

    def join(self) -> bytes:
        self.send(f"(scene rsg/agent/nao/nao_hetero.rsg {self.robot_type})")
        first = self.receive()  # real clients wait for one perception before init
        self.log.record(first)
        self.send(f"(init (unum {self.unum})(teamname {self.team}))(syn)")
        return first

    def act(self, speeds: dict[str, float] | None = None, extra: str = "") -> bytes:
        """Receive one perception and answer with joint speeds + (syn)."""
        msg = self.receive()
        self.log.record(msg)
        body = "".join(f"({n} {v:.4f})" for n, v in (speeds or {}).items())
        self.send(f"{body}{extra}(syn)")
        return msg


class RcsssmjAgent(LegacyClient):
    """`(init <model> <team> <unum>)`, then PD commands for every motor each cycle."""

    def __init__(self, host: str, port: int, team: str, unum: int, model: str = "nao",
                 timeout: float = 10.0) -> None:
        super().__init__(host, port, timeout)
        self.team, self.unum, self.model = team, unum, model
        self.log = PerceptionLog()

    def join(self) -> None:
        self.send(f"(init {self.model} {self.team} {self.unum})")

    def act(self, targets: dict[str, tuple[float, float, float, float, float]] | None = None,
            extra: str = "", syn: bool = True) -> bytes:
        msg = self.receive()
        self.log.record(msg)
        body = "".join(f"({n} {q} {dq} {kp} {kd} {tau})"
                       for n, (q, dq, kp, kd, tau) in (targets or {}).items())
        self.send(f"{body}{extra}{'(syn)' if syn else ''}")
        return msg
