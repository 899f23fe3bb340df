"""The TCP agent port of one dialect: accept, frame, parse, wait for (syn), send perceptions.

Single-threaded (selectors, non-blocking sockets): the master calls it from its loop.
What broke the reference servers is handled per connection: a zero or huge length
prefix, garbage, half a message then silence, a peer that never reads (its output buffer
is bounded), an agent that never sends (syn) (marked lagging after its timeout; the
match goes on; it resumes when it answers). Every offender is logged with its peer."""
from __future__ import annotations

import logging
import selectors
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Final

from sim_bridge.dialects.base import Dialect
from sim_bridge.framing import DEFAULT_MAX_MESSAGE, FrameDecoder, FramingError, frame_header
from sim_bridge.listener import open_listener
from sim_contracts.agents import (
    AgentCommands,
    AgentConnected,
    AgentDisconnected,
    AgentError,
    AgentEvent,
    AgentLagging,
    PlayerRules,
)
from sim_contracts.commands import Syn
from sim_contracts.logtext import clip
from sim_contracts.percept import Percept

_log = logging.getLogger("sim_bridge.agents")
READ_CHUNK: Final = 65536
# Sync mode: each cycle waits for every agent that has a perception to answer. Once its init
# was accepted and GRACE_CYCLES have passed since its TCP connect (rcssserver3d counts its
# grace from the connect) the answer must hold (syn); before, any message answers, so a
# handshake answered without (syn) (FC Portugal's init) never stalls the match, and the
# number of cycles before an agent's first command does not depend on timing (a sync run
# starts the same way every time). It never has more than one unanswered perception, so it
# starts in lock-step, not behind.
GRACE_CYCLES: Final = 5
# How long a cycle waits for a connection that has not joined a team yet (its handshake): a
# connection that sends its scene and falls silent must not stall the match for the full
# sync timeout each time it connects again.
HANDSHAKE_TIMEOUT: Final = 1.0
# A connection that has not joined a team this long after it connected is closed: a robot
# waiting by the side line costs every cycle, and the rules have no place for it. Both the
# wall-clock seconds and the simulated cycles must have passed: a paused server or one
# waiting for teams sends no perception an agent could answer with its init.
JOIN_TIMEOUT: Final = 10.0
JOIN_CYCLES: Final = 500
# Connections one port holds at once (two teams of 11 and their spares fit many times over);
# more are closed as they come, so a flood of connections cannot slow the match.
MAX_CONNECTIONS: Final = 64
# What reading and parsing one port's agents may cost per cycle (s of the loop's thread), and
# one agent's share: an agent beyond its share is not read again until the next cycle (TCP
# holds the rest: nothing is lost, a flooding agent only slows itself). Quiet agents (a
# playing agent's message costs ~0.05 ms) are read even once flooders used the port's budget.
PORT_READ_BUDGET_S: Final = 0.004
AGENT_READ_BUDGET_S: Final = 0.001
QUIET_READ_S: Final = 0.0003
# A connection churn is taken a batch per poll and per cycle; the listen backlog holds the rest
# (and, full, slows the churner), so connecting is never what a cycle spends its time on.
ACCEPTS_PER_POLL: Final = 32
ACCEPTS_PER_CYCLE: Final = 160
# The budgets are per cycle: a collect_cycle starts one, and so does this much time without one
# when no cycle is being collected (a paused or held match, a bridge that only polls), so no
# agent is held for longer.
BUDGET_PERIOD_S: Final = 0.1




@dataclass(slots=True)
class AgentInfo:
    agent_id: str
    peer: str
    lagging: bool
    perceptions: int


@dataclass(slots=True)
class _Connection:
    agent_id: str
    sock: socket.socket
    peer: str
    decoder: FrameDecoder
    out: bytearray = field(default_factory=bytearray)
    synced: bool = False
    lagging: bool = False
    perceptions: int = 0
    cycles: int = 0  # perception cycles of this connection (vision phase)
    connected_cycles: int = 0  # simulated cycles since the connection was accepted
    answered: bool = True  # a frame arrived since the last perception
    registered: bool = False  # its init was accepted: from now on sync mode waits for it
    connected_at: float = field(default_factory=time.monotonic)
    last_data: float = field(default_factory=time.monotonic)
    writing: bool = False
    spent: float = 0.0  # s spent reading and parsing its input this cycle
    throttled: bool = False  # over its budget: not read until the next cycle


class AgentServer:
    def __init__(self, dialect: Dialect, host: str = "127.0.0.1", port: int = 0, *, sync: bool = False,
                 sync_timeout: float = 5.0, max_message: int = DEFAULT_MAX_MESSAGE,
                 max_outbuf: int = 1 << 20, stall_timeout: float = 5.0,
                 join_timeout: float = JOIN_TIMEOUT, max_connections: int = MAX_CONNECTIONS,
                 log: logging.Logger = _log) -> None:
        self.dialect = dialect
        self.host, self.port = host, port
        self.sync, self.sync_timeout = sync, sync_timeout
        self.max_message, self.max_outbuf, self.stall_timeout = max_message, max_outbuf, stall_timeout
        self.join_timeout, self.max_connections = join_timeout, max_connections
        self._refused = 0  # connections over max_connections closed since the last log line
        self.largest_frame = 0  # bytes of the largest payload sent to an agent
        self._next_stall_check = 0.0
        self.log = log
        self._selector = selectors.DefaultSelector()
        self._listener: socket.socket | None = None
        self._conns: dict[str, _Connection] = {}
        self._by_fd: dict[int, _Connection] = {}
        self._next_id = 1
        self._events: list[AgentEvent] = []
        self._spent = 0.0  # s spent reading this cycle, all agents
        self._accepted = 0  # connections accepted this cycle
        self._budget_from = time.monotonic()  # when the budgets last started again
        self._collecting = False  # inside collect_cycle: its budgets are the cycle's
        self.throttled_reads = 0  # times an agent was held to its budget

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        listener = open_listener(self.host, self.port)
        self.port = listener.getsockname()[1]
        self._listener = listener
        self._selector.register(listener, selectors.EVENT_READ, None)

    def fileno(self) -> int:
        """A descriptor readable while poll(0) has something to do (its poller's: a caller may
        wait on several ports and other things at once)."""
        return self._selector.fileno()

    def close(self) -> None:
        if self.largest_frame:  # what clients with fixed buffers (FC Portugal: 8192 bytes) had to take
            self.log.info("%s agents: the largest perception sent was %d bytes", self.dialect.name,
                          self.largest_frame)
        for conn in list(self._conns.values()):
            self._drop(conn, "server shutting down", log=False)
        if self._listener is not None:
            self._selector.unregister(self._listener)
            self._listener.close()
            self._listener = None
        self._selector.close()

    # ------------------------------------------------------------------ input
    def poll(self, timeout: float = 0.0) -> list[AgentEvent]:
        """Accept, read and parse whatever is there (waits at most `timeout`)."""
        if not self._collecting and time.monotonic() - self._budget_from >= BUDGET_PERIOD_S:
            self._new_cycle()
        for key, mask in self._selector.select(timeout):
            if key.data is None:
                self._accept()
                continue
            conn = self._by_fd.get(key.fd)
            if conn is None:
                continue
            if mask & selectors.EVENT_WRITE:
                self._flush(conn)
            if mask & selectors.EVENT_READ and conn.agent_id in self._conns and not conn.throttled:
                started = time.thread_time()  # CPU of this thread: waiting for the GIL is not its cost
                self._read(conn)
                spent = time.thread_time() - started
                conn.spent += spent
                self._spent += spent
                over = conn.spent >= AGENT_READ_BUDGET_S or (
                    self._spent >= PORT_READ_BUDGET_S and conn.spent >= QUIET_READ_S)
                # an agent this cycle still waits for (sync: its (syn)) is read on: held, it would
                # be waited for in vain
                if over and conn.agent_id in self._conns and (conn.lagging or self._answered(conn)):
                    self._throttle(conn, True)
        self._check_stalls()
        events, self._events = self._events, []
        return events

    def collect_cycle(self, deadline_s: float | None = None,
                      stop: threading.Event | None = None) -> list[AgentEvent]:
        """Sync mode: return once every waited-for agent has synced or timed out, or at
        once when `stop` is set (stopping never waits out a silent agent)."""
        self._new_cycle()
        self._collecting = True
        try:
            return self._collect(deadline_s, stop)
        finally:
            self._collecting = False

    def _collect(self, deadline_s: float | None, stop: threading.Event | None) -> list[AgentEvent]:
        events = self.poll(0.0)
        for conn in self._conns.values():
            conn.connected_cycles += 1
        if not self.sync:
            return events
        start = time.monotonic()
        full = deadline_s if deadline_s is not None else self.sync_timeout
        short = min(full, HANDSHAKE_TIMEOUT)

        def limit(conn: _Connection) -> float:  # a connection still in its handshake is waited for briefly
            return start + (full if conn.registered else short)

        waiting = [c for c in self._conns.values() if not c.lagging and c.perceptions > 0 and not self._answered(c)]
        while True:
            # who still owes its answer: only those waited for can leave the list (answer, drop)
            waiting = [c for c in waiting if not self._answered(c) and c.agent_id in self._conns]
            if not waiting or (stop is not None and stop.is_set()):
                break
            now = time.monotonic()
            for conn in [c for c in waiting if now >= limit(c)]:
                conn.lagging = True
                self.log.warning("agent %s (%s) did not answer within %.2f s: lagging", conn.agent_id, conn.peer,
                                 limit(conn) - start)
                events.append(AgentLagging(conn.agent_id))
                waiting.remove(conn)
            if not waiting:
                break
            events += self.poll(min(min(limit(c) for c in waiting) - now, 0.05))
        for conn in self._conns.values():
            conn.synced = False
        return events

    def _new_cycle(self) -> None:
        """Every agent's reading budget starts again."""
        self._spent, self._accepted = 0.0, 0
        self._budget_from = time.monotonic()
        for conn in self._conns.values():
            conn.spent = 0.0
            if conn.throttled:
                self._throttle(conn, False)

    def _throttle(self, conn: _Connection, hold: bool) -> None:
        """Stop (or go on) reading an agent's socket: held, it is not even selected."""
        conn.throttled = hold
        self.throttled_reads += hold
        self._interest(conn)

    def _interest(self, conn: _Connection) -> None:
        """Select the socket for what is wanted of it: reading unless held, writing while output waits."""
        events = (0 if conn.throttled else selectors.EVENT_READ) | (selectors.EVENT_WRITE if conn.writing else 0)
        try:
            if events:
                self._selector.modify(conn.sock, events, conn.agent_id)
            else:
                self._selector.unregister(conn.sock)
        except KeyError:  # not registered (held with nothing to write): register it again
            if events:
                self._selector.register(conn.sock, events, conn.agent_id)

    @staticmethod
    def _answered(conn: _Connection) -> bool:
        """Whether a cycle may go on without waiting for this agent: a playing agent owes its
        (syn); one still in its handshake (scene, init: not yet registered, or in its grace
        cycles) owes any message, so FC Portugal's init without (syn) does not stall the match,
        and the cycles a robot lives before its agent's beam are the same on every run."""
        if conn.synced:
            return True
        return conn.answered and not (conn.registered and conn.connected_cycles > GRACE_CYCLES)

    def _accept(self) -> None:
        assert self._listener is not None
        for _ in range(min(ACCEPTS_PER_POLL, ACCEPTS_PER_CYCLE - self._accepted)):  # a flood: a batch at a time
            self._accepted += 1
            try:
                sock, addr = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                self.log.warning("accept failed: %s", exc)
                return
            if len(self._conns) >= self.max_connections:
                sock.close()
                if self._refused == 0:
                    self.log.warning("%s port holds %d connections: new ones are closed (%s:%d the first)",
                                     self.dialect.name, self.max_connections, addr[0], addr[1])
                self._refused += 1
                continue
            if self._refused:
                self.log.warning("%s port: %d connections were closed for want of room",
                                 self.dialect.name, self._refused)
                self._refused = 0
            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            agent_id = f"{self.dialect.name}-{self._next_id}"
            self._next_id += 1
            conn = _Connection(agent_id, sock, f"{addr[0]}:{addr[1]}", FrameDecoder(self.max_message))
            self._conns[agent_id] = conn
            self._by_fd[sock.fileno()] = conn
            self._selector.register(sock, selectors.EVENT_READ, agent_id)
            self._events.append(AgentConnected(agent_id, conn.peer))

    def _read(self, conn: _Connection) -> None:
        try:
            data = conn.sock.recv(READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self._drop(conn, f"connection error: {exc}")
            return
        if not data:
            self._drop(conn, "peer closed the connection")
            return
        conn.last_data = time.monotonic()
        try:
            frames = conn.decoder.feed(data)
            conn.answered = conn.answered or bool(frames)
        except FramingError as exc:
            self._drop(conn, f"framing error: {exc}")
            return
        for frame in frames:
            try:
                commands, errors = self.dialect.parse_actions(frame)
            except Exception as exc:  # noqa: BLE001 - one fault boundary per client: a message
                # the parser did not foresee ends this agent's connection, never the loop
                self._drop(conn, f"unparsable message ({type(exc).__name__}: {exc})")
                return
            for error in errors:
                self._events.append(AgentError(conn.agent_id, f"{conn.peer}: {error}"))
            if self.dialect.any_message_syncs or any(isinstance(c, Syn) for c in commands):
                conn.synced = True
            if conn.lagging and (conn.synced or not conn.registered):
                conn.lagging = False
                self.log.info("agent %s (%s) answers again", conn.agent_id, conn.peer)
            if commands:
                self._events.append(AgentCommands(conn.agent_id, commands))

    def _check_stalls(self) -> None:
        now = time.monotonic()
        if now < self._next_stall_check:  # stalls are seconds long: a look every 0.1 s will do
            return
        self._next_stall_check = now + 0.1
        for conn in list(self._conns.values()):
            if conn.decoder.pending and now - conn.last_data > self.stall_timeout:
                self._drop(conn, f"stalled mid-message ({conn.decoder.pending} bytes of a frame "
                                 f"for {self.stall_timeout:.1f} s)")
            elif (not conn.registered and conn.connected_cycles > JOIN_CYCLES
                  and now - conn.connected_at > self.join_timeout):
                self._drop(conn, f"joined no team within {self.join_timeout:.0f} s of connecting")

    # ------------------------------------------------------------------ output
    def wants_vision(self, agent_id: str) -> bool:
        """Call once per cycle per agent: vision every Nth cycle of its connection."""
        conn = self._conns.get(agent_id)
        if conn is None:
            return False
        conn.cycles += 1
        return (conn.cycles - 1) % self.dialect.vision_interval == 0

    def send_percept(self, agent_id: str, percept: Percept) -> None:
        conn = self._conns.get(agent_id)
        if conn is None:
            return
        if (self.sync and not conn.answered and conn.perceptions > 0
                and (not conn.registered or conn.connected_cycles <= GRACE_CYCLES)):
            return  # in its grace cycles an agent gets a new perception only once it answered
        self.send_raw(conn.agent_id, self.dialect.encode_percept(percept))
        conn.perceptions += 1
        conn.answered = False

    def mark_registered(self, agent_id: str) -> None:
        """The agent's init was accepted: sync mode waits for its (syn) from now on."""
        conn = self._conns.get(agent_id)
        if conn is not None:
            conn.registered = True

    def send_raw(self, agent_id: str, payload: bytes) -> None:
        conn = self._conns.get(agent_id)
        if conn is None:
            return
        header = frame_header(payload)
        if len(payload) > self.largest_frame:
            self.largest_frame = len(payload)
        if not conn.out:  # the usual case: nothing queued, one gathered send of prefix and payload
            try:
                sent = conn.sock.sendmsg((header, payload))
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError as exc:
                self._drop(conn, f"send failed: {exc}")
                return
            if sent == len(header) + len(payload):
                return
            conn.out += header[sent:] if sent < len(header) else b""
            conn.out += memoryview(payload)[max(sent - len(header), 0):]
        else:
            conn.out += header
            conn.out += payload
        if len(conn.out) > self.max_outbuf:
            self._drop(conn, f"not reading its perceptions ({len(conn.out)} bytes queued)")
            return
        self._flush(conn)

    def _flush(self, conn: _Connection) -> None:
        try:
            sent = conn.sock.send(conn.out)
            del conn.out[:sent]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError as exc:
            self._drop(conn, f"send failed: {exc}")
            return
        want_write = bool(conn.out)
        if want_write != conn.writing:
            conn.writing = want_write
            self._interest(conn)

    # ------------------------------------------------------------------ management
    def disconnect(self, agent_id: str, reason: str) -> None:
        conn = self._conns.get(agent_id)
        if conn is not None:
            self._flush(conn)
            self._drop(conn, reason)

    def _drop(self, conn: _Connection, reason: str, *, log: bool = True) -> None:
        if self._conns.pop(conn.agent_id, None) is None:
            return
        reason = clip(reason)  # a reason may quote the peer's bytes: the log gets a bounded line
        self._by_fd.pop(conn.sock.fileno(), None)
        try:
            self._selector.unregister(conn.sock)
        except (KeyError, ValueError):
            pass
        conn.sock.close()
        if log:
            self.log.warning("agent %s (%s) dropped: %s", conn.agent_id, conn.peer, reason)
        self._events.append(AgentDisconnected(conn.agent_id, reason))

    def agents(self) -> list[AgentInfo]:
        return [AgentInfo(c.agent_id, c.peer, c.lagging, c.perceptions) for c in self._conns.values()]

    def has_agents(self) -> bool:
        return bool(self._conns)

    @property
    def rules(self) -> PlayerRules:
        """Its dialect's rules for the agents it serves."""
        return self.dialect.rules

    @property
    def effector_delay(self) -> int:
        """Cycles an effector command waits before it acts (the dialect's reference timing)."""
        return self.dialect.effector_delay
