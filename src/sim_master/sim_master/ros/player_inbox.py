"""The ROS-native players' effector topics, read by a thread of their own.

rclpy's executors rebuild their wait set in Python over every entity of every node on each
wake: with the simulation's ~100 services, parameters and event handlers that cost the
server 5-9 ms per cycle per ROS player (issue 28: 11 ROS players ran at 0.29x the cycles/s of
11 TCP agents). The players' subscriptions are therefore kept out of the executor (their
callback group never lets it run them) and waited on here in one rcl wait set of just them,
rebuilt only when a player joins or leaves (each wake costs one C call and a take per ready
topic).

Each message becomes work for the loop (its entry's handler says what); a wake's work goes
to the loop in one call, per player in effector order: joint commands, beam, say, then
synchronize, so a command and its synchronize that arrive together act in that cycle
whichever DDS delivered first. Only `synchronize: true` in the joint command itself makes
that certain (two topics have no order between them); players in sync mode use it. A player whose effector topics lose
every publisher (its node left the graph or its process ended) is reported once, as a TCP
agent whose connection closed."""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from functools import partial
from typing import Any, Final

import rclpy
from rclpy.callback_groups import CallbackGroup
from rclpy.exceptions import InvalidHandle
from rclpy.guard_condition import GuardCondition
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.subscription import Subscription

_log = logging.getLogger("soccersim.ros")

WAKE_EVERY_S: Final = 0.1  # at the latest: the publisher check and stop run at this pace
GONE_AFTER_S: Final = 0.5  # no publisher on any effector topic this long: the player has gone


def run_in_order(work: list[Callable[[], None]]) -> None:
    """(loop thread) A wake's messages, each on its own: one failing never drops the rest."""
    for job in work:
        try:
            job()
        except Exception:  # noqa: BLE001 - a fault boundary per message
            _log.exception("a ROS player's message failed on the loop")


def never_called(_msg: Any) -> None:
    """The callback of subscriptions in a ReadByInbox group: no executor runs them."""


class ReadByInbox(CallbackGroup):
    """A callback group no executor runs: its subscriptions are read by a PlayerInbox."""

    def can_execute(self, entity: Any) -> bool:
        return False

    def beginning_execution(self, entity: Any) -> bool:
        return False

    def ending_execution(self, entity: Any) -> None:
        return None


@dataclass
class InboxEntry:
    """One player's effector subscriptions, in the order their messages are handed on, each
    with its handler: a message in, the work to run on the loop out (None: nothing to do)."""
    agent_id: str
    topics: list[tuple[Subscription[Any], Callable[[Any], Callable[[], None] | None]]]
    had_publisher: bool = False
    alone_since: float | None = None
    gone_reported: bool = False


class PlayerInbox:
    """Waits on the players' effector topics, hands each message to its entry's handler in
    effector order and what they return to `submit` (one call per wake); `on_gone(agent_id)`
    once for a player whose publishers have all gone (`count_publishers(topic)`: the ROS
    graph's count)."""

    def __init__(self, context: rclpy.Context, count_publishers: Callable[[str], int],
                 on_gone: Callable[[str], None], submit: Callable[[Callable[[], None]], None]) -> None:
        self._context = context
        self._submit = submit
        self._count_publishers = count_publishers
        self._on_gone = on_gone
        self._entries: dict[str, InboxEntry] = {}
        self._lock = threading.Lock()
        self._wake = GuardCondition(callback=None, callback_group=None, context=context)
        self._stopping = threading.Event()
        self._changed = False  # a player joined or left: the wait set is rebuilt
        self._thread = threading.Thread(target=self._run, name="ros-players", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stopping.set()
        with suppress(InvalidHandle, RuntimeError, _rclpy.RCLError):
            self._wake.trigger()
        self._thread.join(timeout)
        if not self._thread.is_alive():  # the guard holds the context: let it go
            with suppress(InvalidHandle, RuntimeError, _rclpy.RCLError):
                self._wake.destroy()

    def add(self, entry: InboxEntry) -> None:
        with self._lock:
            self._entries[entry.agent_id] = entry
            self._changed = True
        self._wake.trigger()

    def remove(self, agent_id: str) -> None:
        """Stops reading the player's topics (destroying them is safe at once: rclpy frees a
        subscription when the wait holding it lets go)."""
        with self._lock:
            self._entries.pop(agent_id, None)
            self._changed = True
        self._wake.trigger()

    # ------------------------------------------------------------------ the inbox thread
    def _run(self) -> None:
        last_check = time.monotonic()
        while not self._stopping.is_set() and self._context.ok():
            with self._lock:
                entries = list(self._entries.values())
                self._changed = False
            try:
                self._serve(entries, last_check)
            except (InvalidHandle, RuntimeError, _rclpy.RCLError) as exc:  # a context shut down under us
                if self._stopping.is_set() or not self._context.ok():
                    return
                _log.warning("ROS players' inbox: %s (goes on)", exc)
            last_check = time.monotonic()

    def _serve(self, entries: list[InboxEntry], last_check: float) -> None:
        """Waits on one wait set of these players until one joins or leaves: the handles stay
        held (rclpy destroys a subscription only once they are let go)."""
        with ExitStack() as stack:
            handles = []
            for entry in entries:
                for sub, _ in entry.topics:
                    try:
                        stack.enter_context(sub.handle)
                        handles.append(sub.handle)
                    except InvalidHandle:
                        pass
            stack.enter_context(self._wake.handle)
            context = self._context.handle
            if context is None:  # shut down
                return
            stack.enter_context(context)
            wait_set = _rclpy.WaitSet(len(handles), 1, 0, 0, 0, 0, context)
            timeout_ns = int(WAKE_EVERY_S * 1e9)
            by_pointer = {sub.handle.pointer: (entry, i)
                          for entry in entries for i, (sub, _) in enumerate(entry.topics)}
            while not self._changed and not self._stopping.is_set():
                wait_set.clear_entities()
                for handle in handles:
                    wait_set.add_subscription(handle)
                wait_set.add_guard_condition(self._wake.handle)
                wait_set.wait(timeout_ns)
                ready = wait_set.get_ready_entities("subscription")
                if ready:  # per player, in effector order
                    work: list[Callable[[], None]] = []
                    for entry, topics in self._ready_topics(ready, by_pointer):
                        self._deliver(entry, topics, work)
                    if work:
                        self._submit(partial(run_in_order, work))
                now = time.monotonic()
                if now - last_check >= WAKE_EVERY_S:
                    last_check = now
                    for entry in entries:
                        self._check_publishers(entry, now)

    @staticmethod
    def _ready_topics(ready: list[int], by_pointer: dict[int, tuple[InboxEntry, int]]
                      ) -> list[tuple[InboxEntry, list[int]]]:
        players: dict[str, tuple[InboxEntry, list[int]]] = {}
        for pointer in ready:
            entry, index = by_pointer[pointer]
            players.setdefault(entry.agent_id, (entry, []))[1].append(index)
        return [(entry, sorted(topics)) for entry, topics in players.values()]

    @staticmethod
    def _deliver(entry: InboxEntry, topics: list[int], work: list[Callable[[], None]]) -> None:
        for index in topics:
            sub, handle_message = entry.topics[index]
            while True:
                taken = sub.handle.take_message(sub.msg_type, sub.raw)  # the handle is held by _serve
                if taken is None:
                    break
                entry.had_publisher = True  # (a message proves one, however briefly it lived)
                try:
                    job = handle_message(taken[0])
                except Exception:  # noqa: BLE001 - one player's message never stops the others'
                    _log.exception("ROS player %s: a message could not be read", entry.agent_id)
                    continue
                if job is not None:
                    work.append(job)

    def _check_publishers(self, entry: InboxEntry, now: float) -> None:
        try:
            # the graph's count: a subscription's own matched count stays 0 while it sits in
            # a wait set (rmw_fastrtps, Kilted)
            publishers = sum(self._count_publishers(sub.topic_name) for sub, _ in entry.topics)
        except (InvalidHandle, RuntimeError, _rclpy.RCLError):
            return
        if publishers:
            entry.had_publisher, entry.alone_since = True, None
            return
        if not entry.had_publisher or entry.gone_reported:
            return
        if entry.alone_since is None:
            entry.alone_since = now
        elif now - entry.alone_since >= GONE_AFTER_S:
            entry.gone_reported = True
            self._on_gone(entry.agent_id)
