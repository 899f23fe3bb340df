"""The ROS-native players' effector topics, read by a thread of their own.

rclpy's executors rebuild their wait set in Python over every entity of every node on each
wake: with the simulation's ~100 services, parameters and event handlers that cost the
server 5-9 ms per cycle per ROS player (issue 28: 11 ROS players ran at 0.29x the cycles/s of
11 TCP agents). The players' subscriptions are therefore kept out of the executor (their
callback group never lets it run them). An rcl wait set of just them still cost O(all of
them) per wake (~160 us for 22 players' 88 topics, a wake per player and cycle), so they are
watched by a `SubscriptionBell` instead (sim_hotpath._rcl_bell): the middleware rings it with
the topics that have new messages, and a wake costs a take per topic that rang.

Each message becomes work for the loop (its entry's handler says what); a wake's work goes
to the loop in one call, per player in effector order: joint commands, beam, say, then
synchronize, so a command and its synchronize that arrive together act in that cycle
whichever DDS delivered first. Only `synchronize: true` in the joint command itself makes
that certain (two topics have no order between them); players in sync mode use it. A player
whose effector topics lose every publisher (its node left the graph or its process ended) is
reported once, as a TCP agent whose connection closed; so is one whose topics never had a
publisher within JOIN_WINDOW_S of its joining (its process ended before it published, or
the caller gave up): otherwise it would hold its place and its side for ever."""
from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Final

import rclpy
from rclpy.exceptions import InvalidHandle
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.subscription import Subscription
from sim_hotpath._rcl_bell import SubscriptionBell

_log = logging.getLogger("soccersim.ros")

WAKE_EVERY_S: Final = 0.1  # at the latest: the publisher check and stop run at this pace
GONE_AFTER_S: Final = 0.5  # no publisher on any effector topic this long: the player has gone
JOIN_WINDOW_S: Final = 10.0  # a joined player's first publisher appears within this, or it has gone
_HANDLE_ERRORS: Final = (InvalidHandle, RuntimeError, _rclpy.RCLError)


def run_in_order(work: list[Callable[[], None]]) -> None:
    """(loop thread) A wake's messages, each on its own: one failing never drops the rest."""
    for job in work:
        try:
            job()
        except Exception:  # noqa: BLE001 - a fault boundary per message
            _log.exception("a ROS player's message failed on the loop")


def _take_all(sub: Subscription[Any]) -> list[Any]:
    """Every message waiting on `sub` (bytes for a raw subscription), oldest first."""
    out = []
    with sub.handle:
        while (taken := sub.handle.take_message(sub.msg_type, sub.raw)) is not None:
            out.append(taken[0])
    return out


@dataclass
class InboxEntry:
    """One player's effector subscriptions, in the order their messages are handed on, each
    with its handler: a message in, the work to run on the loop out (None: nothing to do)."""
    agent_id: str
    topics: list[tuple[Subscription[Any], Callable[[Any], Callable[[], None] | None]]]
    had_publisher: bool = False
    alone_since: float | None = None
    gone_reported: bool = False
    joined_at: float = field(default_factory=time.monotonic)


class PlayerInbox:
    """Takes the messages of the players' effector topics as they come, hands each to its
    entry's handler in effector order and what they return to `submit` (one call per wake);
    `on_gone(agent_id)` once for a player whose publishers have all gone
    (`count_publishers(topic)`: the ROS graph's count). `add` and `remove` from any thread;
    `remove` before the player's subscriptions are destroyed."""

    def __init__(self, context: rclpy.Context, count_publishers: Callable[[str], int],
                 on_gone: Callable[[str], None], submit: Callable[[Callable[[], None]], None]) -> None:
        self._context = context
        self._count_publishers = count_publishers
        self._on_gone = on_gone
        self._submit = submit
        self._bell = SubscriptionBell()
        self._keys = itertools.count(1)
        self._entries: dict[str, InboxEntry] = {}
        self._topic_of: dict[int, tuple[InboxEntry, int]] = {}  # bell key -> (entry, topic index)
        self._keys_of: dict[str, list[int]] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ros-players", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stopping.set()
        self._bell.wake()
        self._thread.join(timeout)
        for agent_id in list(self._entries):  # the subscriptions are still alive: unwatched
            self.remove(agent_id)

    def add(self, entry: InboxEntry) -> None:
        with self._lock:
            self._entries[entry.agent_id] = entry
            keys = self._keys_of.setdefault(entry.agent_id, [])
            for index, (sub, _) in enumerate(entry.topics):
                key = next(self._keys)
                self._topic_of[key] = (entry, index)
                keys.append(key)
                with suppress(*_HANDLE_ERRORS), sub.handle:
                    self._bell.watch(sub.handle.pointer, key)  # messages already there ring now

    def remove(self, agent_id: str) -> None:
        """Stops reading the player's topics; they may be destroyed once this returns."""
        with self._lock:
            entry = self._entries.pop(agent_id, None)
            for key in self._keys_of.pop(agent_id, []):
                self._topic_of.pop(key, None)
            if entry is None:
                return
            for sub, _ in entry.topics:
                with suppress(*_HANDLE_ERRORS), sub.handle:
                    self._bell.unwatch(sub.handle.pointer)

    # ------------------------------------------------------------------ the inbox thread
    def _run(self) -> None:
        last_check = time.monotonic()
        while not self._stopping.is_set() and self._context.ok():
            rang = self._bell.wait(WAKE_EVERY_S)
            try:
                if rang:
                    self._serve(rang)
                now = time.monotonic()
                if now - last_check >= WAKE_EVERY_S:
                    last_check = now
                    with self._lock:
                        entries = list(self._entries.values())
                    for entry in entries:
                        self._check_publishers(entry, now)
            except _HANDLE_ERRORS as exc:  # a context shut down under us
                if self._stopping.is_set() or not self._context.ok():
                    return
                _log.warning("ROS players' inbox: %s (goes on)", exc)

    def _serve(self, rang: list[int]) -> None:
        """The topics that rang, per player in effector order; their work to the loop at once."""
        players: dict[str, tuple[InboxEntry, list[int]]] = {}
        with self._lock:
            for key in rang:
                found = self._topic_of.get(key)
                if found is not None:  # (a player that left may still ring once)
                    entry, index = found
                    players.setdefault(entry.agent_id, (entry, []))[1].append(index)
        work: list[Callable[[], None]] = []
        for entry, topics in players.values():
            self._deliver(entry, sorted(topics), work)
        if work:
            self._submit(partial(run_in_order, work))

    @staticmethod
    def _deliver(entry: InboxEntry, topics: list[int], work: list[Callable[[], None]]) -> None:
        for index in topics:
            sub, handle_message = entry.topics[index]
            try:
                taken = _take_all(sub)
            except InvalidHandle:  # destroyed since it rang: the player left
                continue
            if taken:
                entry.had_publisher = True  # (a message proves one, however briefly it lived)
            for message in taken:
                try:
                    job = handle_message(message)
                except Exception:  # noqa: BLE001 - one player's message never stops the others'
                    _log.exception("ROS player %s: a message could not be read", entry.agent_id)
                    continue
                if job is not None:
                    work.append(job)

    def _check_publishers(self, entry: InboxEntry, now: float) -> None:
        try:
            # the graph's count (a subscription's own matched count is not kept up to date
            # for subscriptions outside an executor's wait set, rmw_fastrtps, Kilted)
            publishers = sum(self._count_publishers(sub.topic_name) for sub, _ in entry.topics)
        except _HANDLE_ERRORS:
            return
        if publishers:
            entry.had_publisher, entry.alone_since = True, None
            return
        if entry.gone_reported:
            return
        if not entry.had_publisher:
            if now - entry.joined_at >= JOIN_WINDOW_S:
                entry.gone_reported = True
                self._on_gone(entry.agent_id)
            return
        if entry.alone_since is None:
            entry.alone_since = now
        elif now - entry.alone_since >= GONE_AFTER_S:
            entry.gone_reported = True
            self._on_gone(entry.agent_id)
