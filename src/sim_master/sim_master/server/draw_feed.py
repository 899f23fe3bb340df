"""Agents' debug drawings (RoboViz's UDP drawing protocol, sim_bridge/roboviz_draw.py), read,
parsed and drawn on a thread of their own, never on the loop's.

Why a thread: a datagram is cheap to send and dear to parse and draw, so a port that any
local process can write to must not be able to hold a cycle. The thread reads within
budgets (per sender and for the port, datagrams and bytes per second: a flood is dropped
unread), keeps one DrawingBoard, and turns what is shown into views (the browser's JSON and
whatever a renderer registers, e.g. the ROS markers) at most `MAX_VIEW_RATE` times a second
and never more than a tenth of its time. The loop only picks the latest view up. A malformed
datagram loses only itself (the commands before the fault are kept) and is said once per
sender."""
from __future__ import annotations

import logging
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from sim_bridge.roboviz_draw import DrawingBoard, DrawProtocolError, parse_datagram
from sim_master.master.adapters import LoopAdapter

if TYPE_CHECKING:
    from sim_master.master.loop import SimulationLoop

MAX_DATAGRAM: Final = 65535
# A drawing agent sends a few hundred datagrams a second (one per shape, 50 cycles/s); the
# budgets leave it room and bound what any number of senders can make the thread parse.
SENDER_DATAGRAMS_PER_S: Final = 4000.0
SENDER_BYTES_PER_S: Final = 2_000_000.0
PORT_DATAGRAMS_PER_S: Final = 12000.0
PORT_BYTES_PER_S: Final = 6_000_000.0
MAX_SENDERS: Final = 256  # budgets kept; beyond, the least recently heard sender is forgotten
MAX_VIEW_RATE: Final = 20.0  # views per second at most
VIEW_DUTY: Final = 0.1  # share of the thread's time spent drawing views, at most

_log = logging.getLogger("soccersim.drawings")


class _Bucket:
    """A token bucket: `rate` a second, up to one second's worth saved."""

    __slots__ = ("rate", "tokens", "at")

    def __init__(self, rate: float, now: float) -> None:
        self.rate, self.tokens, self.at = rate, rate, now

    def take(self, amount: float, now: float) -> bool:
        self.tokens = min(self.rate, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < amount:
            return False
        self.tokens -= amount
        return True


class SenderBudgets:
    """Datagrams and bytes a second, per sender (address and port) and for the whole port."""

    def __init__(self, *, sender_datagrams: float = SENDER_DATAGRAMS_PER_S, sender_bytes: float = SENDER_BYTES_PER_S,
                 port_datagrams: float = PORT_DATAGRAMS_PER_S, port_bytes: float = PORT_BYTES_PER_S,
                 max_senders: int = MAX_SENDERS) -> None:
        self._rates = (sender_datagrams, sender_bytes)
        now = time.monotonic()
        self._port = (_Bucket(port_datagrams, now), _Bucket(port_bytes, now))
        self._senders: dict[tuple[str, int], tuple[_Bucket, _Bucket]] = {}
        self._max_senders = max_senders
        self.refused = 0  # datagrams dropped unread

    def admit(self, sender: tuple[str, int], size: int, now: float) -> bool:
        buckets = self._senders.pop(sender, None)
        if buckets is None:
            if len(self._senders) >= self._max_senders:
                del self._senders[next(iter(self._senders))]  # the least recently heard
            buckets = (_Bucket(self._rates[0], now), _Bucket(self._rates[1], now))
        self._senders[sender] = buckets  # most recently heard last
        ok = buckets[0].take(1, now) and buckets[1].take(size, now) \
            and self._port[0].take(1, now) and self._port[1].take(size, now)
        if not ok:
            self.refused += 1
        return ok


class DrawingPort:
    """The UDP socket agents draw to."""

    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
            self.sock.bind((host, port))
        except OSError:
            self.sock.close()
            raise
        self.sock.setblocking(False)
        self.port: int = self.sock.getsockname()[1]

    def wait(self, timeout: float) -> bool:
        """True when a datagram is waiting (or the socket closed under the wait)."""
        try:
            readable, _, _ = select.select([self.sock], [], [], timeout)
        except (OSError, ValueError):
            return True
        return bool(readable)

    def receive(self) -> tuple[bytes, tuple[str, int]] | None:
        try:
            data, peer = self.sock.recvfrom(MAX_DATAGRAM)
        except (BlockingIOError, InterruptedError):
            return None
        except OSError:  # e.g. an ICMP error queued on the socket: nothing to read
            return None
        return data, peer

    def close(self) -> None:
        self.sock.close()


# A renderer turns the board into one kind of view on the drawing thread; it gets the board,
# where each annotated agent's robot is, and the simulation time the loop last gave.
Renderer = Callable[[DrawingBoard, dict[tuple[str, int], tuple[float, float, float]], float], Any]


@dataclass(frozen=True, slots=True)
class DrawingView:
    """What is shown, as of `version`: the browser's JSON-ready dict and each renderer's output."""

    version: int
    board: dict[str, Any]
    rendered: dict[str, Any]


class DrawingFeed(LoopAdapter):
    name = "drawing port"

    def __init__(self, port: DrawingPort, *, budgets: SenderBudgets | None = None) -> None:
        self.port = port
        self.board = DrawingBoard()  # the drawing thread's own; others read `view`
        self.budgets = budgets or SenderBudgets()
        self.view = DrawingView(-1, self.board.to_dict(), {})
        self.datagrams = 0  # read and parsed
        self._renderers: dict[str, Renderer] = {}
        self._lock = threading.Lock()  # renderers and positions, set from other threads
        self._positions: dict[tuple[str, int], tuple[float, float, float]] = {}
        self._sim_time = 0.0
        self._dirty = True  # a view is due whatever the board's version
        self._warned: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="drawing port", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def renderer(self, key: str, make: Callable[[], Renderer]) -> None:
        """Draw the board also with `make()` (once per key), its output in `view.rendered[key]`."""
        with self._lock:
            if key not in self._renderers:
                self._renderers[key] = make()
                self._dirty = True  # drawn again, with it

    # ------------------------------------------------------------------ the loop's side
    def poll(self, loop: SimulationLoop) -> None:
        """Tell the drawing thread the time and, when agents are annotated, where their robots are."""
        positions = {}
        if self.board.agent_text:
            positions = {(p.side, p.unum): loop.engine.robot_pose(p.robot_id)[0] for p in loop.players.with_robots()}
        with self._lock:
            self._sim_time = loop.engine.time
            self._positions = positions

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2.0)
        self.port.close()

    # ------------------------------------------------------------------ the drawing thread
    def _run(self) -> None:
        next_view = 0.0
        while not self._stop.is_set():
            try:
                if self.port.wait(0.05):
                    self._read(time.monotonic())
                now = time.monotonic()
                if (self._dirty or self.board.version != self.view.version) and now >= next_view:
                    started = time.perf_counter()
                    self._draw()
                    spent = time.perf_counter() - started
                    next_view = time.monotonic() + max(1.0 / MAX_VIEW_RATE, spent / VIEW_DUTY)
            except Exception:  # noqa: BLE001 - the drawings' fault boundary: the port stays open
                _log.exception("drawing port: a fault while drawing (the drawings go on)")
                time.sleep(0.05)

    def _read(self, now: float) -> None:
        for _ in range(512):  # then draw, if due, and come back
            got = self.port.receive()
            if got is None:
                return
            data, peer = got
            if not self.budgets.admit(peer, len(data), now):
                continue
            self.datagrams += 1
            try:
                commands = parse_datagram(data)
            except DrawProtocolError as exc:
                commands = exc.args[1] if len(exc.args) > 1 else []
                if peer[0] not in self._warned and len(self._warned) < 64:
                    self._warned.add(peer[0])
                    _log.warning("drawing port: %s:%d sent a datagram that is not RoboViz's drawing protocol "
                                 "(%s); its commands from there on are dropped (said once per sender)",
                                 peer[0], peer[1], exc.args[0])
            for command in commands:
                self.board.apply(command)

    def _draw(self) -> None:
        with self._lock:
            renderers = dict(self._renderers)
            positions, sim_time = self._positions, self._sim_time
            self._dirty = False
        version = self.board.version
        rendered = {key: render(self.board, positions, sim_time) for key, render in renderers.items()}
        self.view = DrawingView(version, self.board.to_dict(), rendered)
