"""Subscriptions read without an executor, for ROS players that must keep up with the server.

rclpy's executors rebuild their wait set in Python over every entity of the node on each
wake (about 0.5 ms per wake for a node of a few dozen entities; a team of eleven wakes
eleven times a cycle), and even a bare rcl wait set costs O(its subscriptions) per wake. A
LeanReader has the middleware ring a `SubscriptionBell` (sim_hotpath._rcl_bell) with the
subscriptions that have new messages, and hands each message to its handler in the caller's
thread: `soccersim team`, the agent bridge (bridge_node) and bench/bench_players.py read their
percepts this way, and the server's PlayerInbox its players' effectors. The node may
still be spun by an executor for its services and clients: the reader's subscriptions sit in
a callback group no executor runs.

Single-threaded: `spin_once` from one thread; `close` before the node is destroyed."""
from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from typing import Any

from rclpy.callback_groups import CallbackGroup
from rclpy.event_handler import PublisherEventCallbacks, SubscriptionEventCallbacks
from rclpy.exceptions import InvalidHandle
from rclpy.node import Node
from rclpy.qos import QoSProfile
from rclpy.subscription import Subscription
from sim_hotpath._rcl_bell import SubscriptionBell

# No QoS event handlers, for per-player topics: each handler is a waitable that every wake of an
# executor walks in Python (22 players' default handlers cost the server ~4 ms per cycle, issue 28).
NO_PUB_EVENTS = PublisherEventCallbacks(use_default_callbacks=False)
NO_SUB_EVENTS = SubscriptionEventCallbacks(use_default_callbacks=False)


def never_called(_msg: Any) -> None:
    """The callback of subscriptions in a ReadByInbox group: no executor runs them."""


class ReadByInbox(CallbackGroup):
    """A callback group no executor runs: its subscriptions are read by a bell's reader."""

    def can_execute(self, entity: Any) -> bool:
        return False

    def beginning_execution(self, entity: Any) -> bool:
        return False

    def ending_execution(self, entity: Any) -> None:
        return None


class LeanReader:
    def __init__(self, node: Node) -> None:
        self._node = node
        self._group = ReadByInbox()
        self._bell = SubscriptionBell()
        # by bell key: the subscription, its handler, whether the handler takes the message info too
        self._topics: list[tuple[Subscription[Any], Callable[..., None], bool] | None] = []

    def subscribe(self, msg_type: Any, topic: str, handler: Callable[..., None],
                  qos: QoSProfile, *, raw: bool = False, with_info: bool = False) -> Subscription[Any]:
        """`handler` gets each message, or its serialized bytes with `raw`, and with `with_info`
        its message info too (rclpy's dict: the publisher's GID, for TrustedSenders)."""
        sub = self._node.create_subscription(msg_type, topic, never_called, qos, callback_group=self._group, raw=raw,
                                             event_callbacks=NO_SUB_EVENTS)
        self._topics.append((sub, handler, with_info))
        with sub.handle:
            self._bell.watch(sub.handle.pointer, len(self._topics) - 1)
        return sub

    def spin_once(self, timeout_s: float) -> int:
        """Waits up to `timeout_s` for messages and hands every one that came to its handler;
        returns how many."""
        handled = 0
        for key in self._bell.wait(max(timeout_s, 0.0)):
            topic = self._topics[key]
            if topic is None:  # unsubscribed after it rang
                continue
            sub, handler, with_info = topic
            with sub.handle:
                while (taken := sub.handle.take_message(sub.msg_type, sub.raw)) is not None:
                    if with_info:
                        handler(taken[0], taken[1])
                    else:
                        handler(taken[0])
                    handled += 1
        return handled

    def fileno(self) -> int:
        """A descriptor readable while spin_once(0) has messages to hand over (for a caller that
        waits on sockets too)."""
        return self._bell.fileno()

    def unsubscribe(self, sub: Subscription[Any]) -> None:
        """No more rings nor handling for `sub`: call before it is destroyed."""
        for key, topic in enumerate(self._topics):
            if topic is not None and topic[0] is sub:
                self._topics[key] = None
                with suppress(InvalidHandle), sub.handle:
                    self._bell.unwatch(sub.handle.pointer)

    def close(self) -> None:
        """No more rings: call before the subscriptions or their node are destroyed."""
        for topic in self._topics:
            if topic is not None:
                with suppress(InvalidHandle), topic[0].handle:
                    self._bell.unwatch(topic[0].handle.pointer)
