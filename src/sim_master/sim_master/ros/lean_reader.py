"""Subscriptions read without an executor, for ROS players that must keep up with the server.

rclpy's executors rebuild their wait set in Python over every entity of the node on each
wake (about 0.5 ms per wake for a node of a few dozen entities; a team of eleven wakes
eleven times a cycle), and even a bare rcl wait set costs O(its subscriptions) per wake. A
LeanReader has the middleware ring a `SubscriptionBell` (sim_hotpath._rcl_bell) with the
subscriptions that have new messages, and hands each message to its handler in the caller's
thread: `soccersim team` and bench/bench_players.py read their percepts this way. The node may
still be spun by an executor for its services and clients: the reader's subscriptions sit in
a callback group no executor runs.

Single-threaded: `spin_once` from one thread; `close` before the node is destroyed."""
from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from typing import Any

from rclpy.exceptions import InvalidHandle
from rclpy.node import Node
from rclpy.qos import QoSProfile
from rclpy.subscription import Subscription
from sim_hotpath._rcl_bell import SubscriptionBell

from sim_master.ros.player_inbox import ReadByInbox, never_called


class LeanReader:
    def __init__(self, node: Node) -> None:
        self._node = node
        self._group = ReadByInbox()
        self._bell = SubscriptionBell()
        self._topics: list[tuple[Subscription[Any], Callable[[Any], None]]] = []  # by bell key

    def subscribe(self, msg_type: Any, topic: str, handler: Callable[[Any], None],
                  qos: QoSProfile, *, raw: bool = False) -> Subscription[Any]:
        """`handler` gets each message, or its serialized bytes with `raw`."""
        sub = self._node.create_subscription(msg_type, topic, never_called, qos, callback_group=self._group, raw=raw)
        self._topics.append((sub, handler))
        with sub.handle:
            self._bell.watch(sub.handle.pointer, len(self._topics) - 1)
        return sub

    def spin_once(self, timeout_s: float) -> int:
        """Waits up to `timeout_s` for messages and hands every one that came to its handler;
        returns how many."""
        handled = 0
        for key in self._bell.wait(max(timeout_s, 0.0)):
            sub, handler = self._topics[key]
            with sub.handle:
                while (taken := sub.handle.take_message(sub.msg_type, sub.raw)) is not None:
                    handler(taken[0])
                    handled += 1
        return handled

    def close(self) -> None:
        """No more rings: call before the subscriptions or their node are destroyed."""
        for sub, _ in self._topics:
            with suppress(InvalidHandle), sub.handle:
                self._bell.unwatch(sub.handle.pointer)
