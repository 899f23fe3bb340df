"""Monitor ports (SimSpark 3200, rcsssmj 60001): frames out to every monitor, commands in.

A new monitor gets a full frame first, then incremental ones. Commands are framed
S-expressions; they are accepted from loopback only unless remote commands are allowed
(a monitor port is unauthenticated). A monitor that does not read is never waited for
(rcsssmj froze on one) nor dropped: it skips frames while its backlog is full.

A monitor's commands are a trainer's: a few at a time. Each monitor may give
COMMANDS_PER_S a second (a burst of as many); its socket is not read while it has none left
(TCP holds the rest), and commands beyond what it has left in one read are dropped and said,
so a flood of trainer commands costs the loop a bounded number of referee commands."""
from __future__ import annotations

import logging
import selectors
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sim_bridge.budget import TokenBucket
from sim_bridge.framing import FrameDecoder, FramingError, encode_frame
from sim_bridge.listener import open_listener
from sim_bridge.sexp import Expr, SexpError, integer, number, parse_flat
from soccer_referee.checks import MAX_SCORE
from soccer_referee.commands import (
    DropBall,
    KickOff,
    MoveAgent,
    MoveBall,
    RefereeCommand,
    SetPlayMode,
    SetScore,
    SetTime,
)

_log = logging.getLogger("sim_bridge.monitors")
COMMANDS_PER_S = 100.0
READ_CHUNK = 4096  # a read of commands: about a hundred at most


@dataclass(frozen=True, slots=True)
class KillSim:
    pass


@dataclass(frozen=True, slots=True)
class RequestFullState:
    pass


MonitorCommand = RefereeCommand | KillSim | RequestFullState


@dataclass(slots=True)
class _Monitor:
    sock: socket.socket
    peer: str
    loopback: bool
    decoder: FrameDecoder = field(default_factory=lambda: FrameDecoder(64 * 1024))
    out: bytearray = field(default_factory=bytearray)
    needs_full: bool = True
    skipping: bool = False  # its backlog is full: frames are skipped until it reads
    commands: TokenBucket = field(default_factory=lambda: TokenBucket(COMMANDS_PER_S, time.monotonic()))
    dropped: int = 0  # commands over its budget, since it was last said
    said_at: float = 0.0


def _fields(args: list[Expr]) -> dict[str, list[Expr]]:
    return {a[0]: a[1:] for a in args if isinstance(a, list) and a and isinstance(a[0], str)}


@dataclass(frozen=True, slots=True)
class AgentMoves:
    """How a monitor's `(agent (unum n) (team t) ...)` places a robot on each reference.
    rcssserver3d: `(pos x y z)` carries it as it is (SoccerBase::MoveAgent); `(move x y z deg)`
    sets its torso level and turned by deg, where 0 faces +y (MoveAndRotateAgent; a beam's
    heading h is h - 90 there). rcsssmj: `(pos x y z)` identity orientation, `(move x y z deg)`
    turned by deg, `(move3d x y z qw qx qy qz)`; every joint zeroed."""

    heading_offset: float  # deg added to `move`'s angle to give the robot's yaw
    pos_resets_orientation: bool  # `pos` puts the robot upright at the identity orientation
    zero_joints: bool  # every joint to 0 on a move
    move3d: bool  # `move3d` (a full orientation) is a command of this port


AGENT_MOVES = {
    "simspark": AgentMoves(heading_offset=90.0, pos_resets_orientation=False, zero_joints=False, move3d=False),
    "rcsssmj": AgentMoves(heading_offset=0.0, pos_resets_orientation=True, zero_joints=True, move3d=True),
}


def _agent_move(args: list[Expr], rules: AgentMoves) -> MoveAgent:
    f = _fields(args)
    unum = integer(f["unum"][0], 0, 99)
    team = str(f["team"][0])
    if "move3d" in f:
        if not rules.move3d:
            raise ValueError("move3d is an rcsssmj monitor command")
        x, y, z, qw, qx, qy, qz = (number(v) for v in f["move3d"][:7])
        return MoveAgent(team, unum, x, y, None, z=z, orientation=(qw, qx, qy, qz), zero_joints=rules.zero_joints)
    if "move" in f:
        x, y, z, deg = (number(v) for v in f["move"][:4])
        return MoveAgent(team, unum, x, y, deg + rules.heading_offset, z=z, upright=True,
                         zero_joints=rules.zero_joints)
    x, y, z = (number(v) for v in f["pos"][:3])
    if rules.pos_resets_orientation:
        return MoveAgent(team, unum, x, y, None, z=z, orientation=(1.0, 0.0, 0.0, 0.0), zero_joints=rules.zero_joints)
    return MoveAgent(team, unum, x, y, None, z=z, zero_joints=rules.zero_joints)


def parse_monitor_command(expr: list[Expr], dialect: str = "simspark") -> MonitorCommand:
    """One monitor command of a dialect ("simspark" or "rcsssmj") -> a referee command or
    KillSim/RequestFullState."""
    name, args = expr[0], expr[1:]
    if name == "kickOff":
        side = str(args[0]).lower() if args else "none"
        side = {"l": "left", "r": "right"}.get(side, side)
        return KickOff(side if side in ("left", "right") else None)
    if name == "playMode":
        return SetPlayMode(str(args[0]))
    if name == "dropBall":
        return DropBall()
    if name == "ball":
        f = _fields(args)
        pos = [number(v) for v in f.get("pos", [])]
        vel = [number(v) for v in f.get("vel", [0, 0, 0])]
        if len(pos) != 3 or len(vel) != 3:
            raise ValueError("ball needs (pos x y z) [(vel vx vy vz)]")
        return MoveBall((pos[0], pos[1], pos[2]), (vel[0], vel[1], vel[2]))
    if name == "agent":
        return _agent_move(args, AGENT_MOVES.get(dialect, AGENT_MOVES["simspark"]))
    if name == "time":
        return SetTime(number(args[0]))
    if name == "score":
        f = _fields(args)
        return SetScore(integer(f["left"][0], 0, MAX_SCORE), integer(f["right"][0], 0, MAX_SCORE))
    if name == "killsim":
        return KillSim()
    if name == "reqfullstate":
        return RequestFullState()
    raise ValueError(f"unknown monitor command ({name} ...)")


class MonitorServer:
    def __init__(self, name: str, host: str = "127.0.0.1", port: int = 0, *,
                 allow_remote_commands: bool = False, max_outbuf: int = 1 << 20) -> None:
        self.name = name
        self.host, self.port = host, port
        self.allow_remote_commands = allow_remote_commands
        self.max_outbuf = max_outbuf
        self._selector = selectors.DefaultSelector()
        self._listener: socket.socket | None = None
        self._monitors: dict[int, _Monitor] = {}

    def start(self) -> None:
        listener = open_listener(self.host, self.port, 16)
        self.port = listener.getsockname()[1]
        self._listener = listener
        self._selector.register(listener, selectors.EVENT_READ, None)

    def close(self) -> None:
        for m in list(self._monitors.values()):
            self._drop(m, "server shutting down", log=False)
        if self._listener is not None:
            self._selector.unregister(self._listener)
            self._listener.close()
            self._listener = None
        self._selector.close()

    @property
    def count(self) -> int:
        return len(self._monitors)

    def poll(self) -> list[tuple[str, RefereeCommand | KillSim]]:
        """Accept monitors and read their commands: (peer, command) in arrival order."""
        commands: list[tuple[str, RefereeCommand | KillSim]] = []
        for key, _ in self._selector.select(0.0):
            if key.data is None:
                self._accept()
                continue
            m = self._monitors.get(key.fd)
            if m is not None:
                commands += self._read(m)
        return commands

    def broadcast(self, diff: Callable[[], bytes], full: Callable[[], bytes]) -> None:
        """Send a frame to every monitor: full to new ones (and after a structure change)."""
        if not self._monitors:
            return
        diff_payload = diff() if any(not m.needs_full for m in self._monitors.values()) else b""
        full_payload = full() if any(m.needs_full for m in self._monitors.values()) else b""
        for m in list(self._monitors.values()):
            if self._send(m, full_payload if m.needs_full else diff_payload):
                m.needs_full = False

    def request_full(self) -> None:
        for m in self._monitors.values():
            m.needs_full = True

    def _accept(self) -> None:
        assert self._listener is not None
        try:
            sock, addr = self._listener.accept()
        except OSError:
            return
        sock.setblocking(False)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        loopback = addr[0].startswith("127.") or addr[0] == "::1"
        self._monitors[sock.fileno()] = _Monitor(sock, f"{addr[0]}:{addr[1]}", loopback)
        self._selector.register(sock, selectors.EVENT_READ, sock.fileno())
        _log.info("%s monitor connected from %s", self.name, addr[0])

    def _read(self, m: _Monitor) -> list[tuple[str, RefereeCommand | KillSim]]:
        now = time.monotonic()
        if m.commands.level(now) < 1.0:  # its budget is spent: its commands wait in TCP
            return []
        try:
            data = m.sock.recv(READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return []
        except OSError:
            data = b""
        if not data:
            self._drop(m, "closed")
            return []
        try:
            frames = m.decoder.feed(data)
        except FramingError as exc:
            self._drop(m, f"framing error: {exc}")
            return []
        out: list[tuple[str, RefereeCommand | KillSim]] = []
        for frame in frames:
            if not (m.loopback or self.allow_remote_commands):
                _log.warning("%s monitor %s: commands from remote hosts are not accepted "
                             "(--allow-remote-monitor-commands)", self.name, m.peer)
                continue
            try:
                exprs = parse_flat(frame.decode("ascii", "replace"))
            except SexpError as exc:
                _log.warning("%s monitor %s: malformed command: %s", self.name, m.peer, exc)
                continue
            for expr in exprs:
                try:
                    command = parse_monitor_command(expr, self.name)
                except (ValueError, KeyError, IndexError, TypeError) as exc:
                    _log.warning("%s monitor %s: %s", self.name, m.peer, exc)
                    continue
                if isinstance(command, RequestFullState):
                    m.needs_full = True
                elif m.commands.take(1.0, now):
                    out.append((m.peer, command))
                else:
                    m.dropped += 1
        if m.dropped and now - m.said_at >= 1.0:
            _log.warning("%s monitor %s: %d commands over its %g a second dropped", self.name, m.peer, m.dropped,
                         COMMANDS_PER_S)
            m.dropped, m.said_at = 0, now
        return out

    def _send(self, m: _Monitor, payload: bytes) -> bool:
        """Queue and send one frame; False when it was skipped. A monitor that does not read
        (FC Portugal's team process opens one and never reads) keeps its connection: while
        its backlog is over max_outbuf it gets no frames, then a full one."""
        if m.out and not self._flush(m):
            return False
        if len(m.out) > self.max_outbuf:
            if not m.skipping:
                _log.info("%s monitor %s is not reading (%d bytes queued): skipping frames",
                          self.name, m.peer, len(m.out))
                m.skipping = True
            return False
        m.skipping = False
        m.out += encode_frame(payload)
        self._flush(m)
        return m.sock.fileno() in self._monitors

    def _flush(self, m: _Monitor) -> bool:
        try:
            sent = m.sock.send(m.out)
            del m.out[:sent]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError as exc:
            self._drop(m, f"send failed: {exc}")
            return False
        return True

    def _drop(self, m: _Monitor, reason: str, *, log: bool = True) -> None:
        self._monitors.pop(m.sock.fileno(), None)
        try:
            self._selector.unregister(m.sock)
        except (KeyError, ValueError):
            pass
        m.sock.close()
        if log:
            _log.info("%s monitor %s dropped: %s", self.name, m.peer, reason)
