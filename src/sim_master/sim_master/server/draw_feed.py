"""Agents' debug drawings (RoboViz's UDP drawing protocol, sim_bridge/roboviz_draw.py), read,
parsed and drawn on threads of their own, never on the loop's.

Why threads: a datagram is cheap to send and dear to parse and draw, so a port that any
local process can write to must not be able to hold a cycle. One thread reads within
budgets (parse time per sender and for the port, datagrams read per second: a flood is
dropped unread) into one DrawingBoard; another turns what is shown into views (the browser's
JSON and whatever a renderer registers, e.g. the ROS markers) at most `MAX_VIEW_RATE` times a
second and never more than a tenth of its time, so a long drawing never stops the reading.
The loop only picks the latest view up. A malformed datagram loses only itself (the commands
before the fault are kept) and is said once per sender."""
from __future__ import annotations

import json
import logging
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from sim_bridge.budget import TokenBucket
from sim_bridge.roboviz_draw import DrawingBoard, DrawProtocolError, parse_datagram
from sim_master.master.adapters import LoopAdapter

if TYPE_CHECKING:
    from sim_master.master.adapters import OperatedLoop

MAX_DATAGRAM: Final = 65535
# What reading the port may cost, as shares of one core's time (parsing costs about 12 us a
# shape in Python, a swap a scan of the sets): a drawing agent (tens of shapes a cycle) needs
# a few percent; beyond its share a sender's datagrams are dropped unread until it saves up
# again, and all senders together never take more than the port's share.
SENDER_CPU: Final = 0.05
PORT_CPU: Final = 0.15
PORT_DATAGRAMS_PER_S: Final = 20000.0  # read at most (each read costs too); the kernel drops the rest
MAX_SENDERS: Final = 256  # budgets kept; beyond, the least recently heard sender is forgotten
READ_COST_S: Final = 3e-6  # what reading a datagram that is then dropped costs, charged to the port
MAX_VIEW_RATE: Final = 20.0  # views per second at most
VIEW_DUTY: Final = 0.1  # share of the thread's time spent drawing views, at most

_log = logging.getLogger("soccersim.drawings")


class SenderBudgets:
    """Time spent on each sender's datagrams (address and port) and on all of them, and
    datagrams read, per second."""

    def __init__(self, *, sender_cpu: float = SENDER_CPU, port_cpu: float = PORT_CPU,
                 port_datagrams: float = PORT_DATAGRAMS_PER_S, max_senders: int = MAX_SENDERS) -> None:
        now = time.monotonic()
        self._sender_cpu = sender_cpu
        self._port = TokenBucket(port_cpu, now)
        self._reads = TokenBucket(port_datagrams, now)
        self._senders: dict[tuple[str, int], TokenBucket] = {}
        self._max_senders = max_senders
        self.refused = 0  # datagrams dropped unread

    def may_read(self, now: float) -> bool:
        """Another datagram may be read now (else: wait, the kernel keeps or drops them)."""
        if not self._reads.has(now):
            return False
        self._reads.charge(1, now)
        return True

    def admit(self, sender: tuple[str, int], now: float) -> bool:
        bucket = self._senders.pop(sender, None)
        if bucket is None:
            if len(self._senders) >= self._max_senders:
                del self._senders[next(iter(self._senders))]  # the least recently heard
            # a new sender starts with a tenth of its share: a flood from ever new source ports
            # gets no more than one that keeps its port
            bucket = TokenBucket(self._sender_cpu, now, start=0.1)
        self._senders[sender] = bucket  # most recently heard last
        if bucket.has(now) and self._port.has(now):
            return True
        self.refused += 1
        self._port.charge(READ_COST_S, now)  # reading it cost something too
        return False

    def charge(self, sender: tuple[str, int], seconds: float, now: float) -> None:
        bucket = self._senders.get(sender)
        if bucket is not None:
            bucket.charge(seconds, now)
        self._port.charge(seconds, now)


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


# A renderer turns what the board shows into one kind of view on the drawing thread; it gets
# the board's `to_dict()` and `shown_versions()`, where each annotated agent's robot is, and
# the simulation time the loop last gave.
Renderer = Callable[[Any, dict[tuple[str, int], tuple[float, float, float]], float], Any]


@dataclass(frozen=True, slots=True)
class DrawingView:
    """What is shown, as of `version`: the browser's JSON-ready dict and each renderer's output."""

    version: int  # grows with every view drawn
    board: dict[str, Any]
    rendered: dict[str, Any]
    board_json: str = "null"  # `board` as JSON text


class DrawingFeed(LoopAdapter):
    name = "drawing port"

    def shown(self) -> tuple[int, dict[str, Any]]:
        """(version, board) of what is shown now, from any thread (one view, read once)."""
        view = self.view
        return view.version, view.board

    def __init__(self, port: DrawingPort, *, budgets: SenderBudgets | None = None) -> None:
        self.port = port
        self.board = DrawingBoard()  # the reading thread's (under _board_lock); others read `view`
        self.budgets = budgets or SenderBudgets()
        empty = self.board.to_dict()
        self.view = DrawingView(-1, empty, {}, json.dumps(empty, separators=(",", ":")))
        self.datagrams = 0  # read and parsed
        self._renderers: dict[str, Renderer] = {}
        self._lock = threading.Lock()  # renderers and positions, set from other threads
        self._positions: dict[tuple[str, int], tuple[float, float, float]] = {}
        self._sim_time = 0.0
        self._polled_cycle = -1
        self._views = 0  # views drawn: a view's version (the board's or the robots' positions changed)
        self._warned: set[str] = set()
        self._stop = threading.Event()
        self._changed = threading.Event()  # the board or the renderers changed: a view is due
        self._board_lock = threading.Lock()  # the reader applies, the drawer copies
        self._threads = [threading.Thread(target=self._read_forever, name="drawing port", daemon=True),
                         threading.Thread(target=self._draw_forever, name="drawing views", daemon=True)]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def renderer(self, key: str, make: Callable[[], Renderer]) -> None:
        """Draw the board also with `make()` (once per key), its output in `view.rendered[key]`."""
        with self._lock:
            if key not in self._renderers:
                self._renderers[key] = make()
                self._changed.set()

    # ------------------------------------------------------------------ the loop's side
    def poll(self, loop: OperatedLoop) -> None:
        """Tell the drawing thread the time and, when agents are annotated, where their robots
        are (once a cycle; a robot that moved asks for a view, so the texts follow it)."""
        cycle = loop.engine.cycle
        if cycle == self._polled_cycle:
            return
        self._polled_cycle = cycle
        positions = {}
        if self.board.agent_text:
            positions = {(p.side, p.unum): loop.engine.robot_pose(p.robot_id)[0] for p in loop.players.with_robots()}
        with self._lock:
            moved = positions != self._positions
            self._sim_time = loop.engine.time
            self._positions = positions
        if moved:
            self._changed.set()

    def close(self) -> None:
        self._stop.set()
        self._changed.set()
        for thread in self._threads:
            if thread.is_alive():
                thread.join(timeout=2.0)
        self.port.close()

    # ------------------------------------------------------------------ the reading thread
    def _read_forever(self) -> None:
        while not self._stop.is_set():
            try:
                if self.port.wait(0.1):
                    self._read(time.monotonic())
            except Exception:  # noqa: BLE001 - the drawings' fault boundary: the port stays open
                _log.exception("drawing port: a fault while reading (the drawings go on)")
                time.sleep(0.05)

    def _read(self, now: float) -> None:
        for _ in range(512):  # then let the lock go, and come back
            if not self.budgets.may_read(now):
                time.sleep(0.01)
                return
            got = self.port.receive()
            if got is None:
                return
            data, peer = got
            if not self.budgets.admit(peer, now):
                continue
            self.datagrams += 1
            started = time.thread_time()  # this thread's CPU: a wait for the GIL is not the sender's cost
            self._parse(data, peer)
            spent = time.thread_time() - started
            now += spent
            self.budgets.charge(peer, spent, now)

    def _parse(self, data: bytes, peer: tuple[str, int]) -> None:
        try:
            commands = parse_datagram(data)
        except DrawProtocolError as exc:
            commands = exc.args[1] if len(exc.args) > 1 else []
            if peer[0] not in self._warned and len(self._warned) < 64:
                self._warned.add(peer[0])
                _log.warning("drawing port: %s:%d sent a datagram that is not RoboViz's drawing protocol "
                             "(%s); its commands from there on are dropped (said once per sender)",
                             peer[0], peer[1], exc.args[0])
        if commands:
            with self._board_lock:
                version = self.board.version
                for command in commands:
                    self.board.apply(command, peer)
            if self.board.version != version:
                self._changed.set()

    # ------------------------------------------------------------------ the drawing thread
    def _draw_forever(self) -> None:
        while not self._stop.is_set():
            self._changed.wait()
            if self._stop.is_set():
                return
            try:
                started = time.perf_counter()
                self._changed.clear()
                self._draw()
                spent = time.perf_counter() - started
            except Exception:  # noqa: BLE001 - the drawings' fault boundary: the port stays open
                _log.exception("drawing port: a fault while drawing (the drawings go on)")
                spent = 0.05
            self._stop.wait(max(1.0 / MAX_VIEW_RATE, spent / VIEW_DUTY))

    def _draw(self) -> None:
        with self._lock:
            renderers = dict(self._renderers)
            positions, sim_time = self._positions, self._sim_time
        with self._board_lock:  # a copy of what is shown (each set's shapes built once per change)
            shown = _ShownBoard(self.board)
        rendered = {key: render(shown, positions, sim_time) for key, render in renderers.items()}
        board = shown.to_dict()
        self._views += 1
        self.view = DrawingView(self._views, board, rendered, json.dumps(board, separators=(",", ":")))


class _ShownBoard:
    """What a board shows at one moment, for drawing outside its lock (a renderer reads
    `to_dict()` and `shown_versions()` as of a board)."""

    def __init__(self, board: DrawingBoard) -> None:
        self._dict = board.to_dict()
        self._versions = board.shown_versions()

    def to_dict(self) -> dict[str, Any]:
        return self._dict

    def shown_versions(self) -> dict[str, int]:
        return self._versions
