"""Subscriptions read without an executor, for ROS players that must keep up with the server.

rclpy's executors rebuild their wait set in Python over every entity of the node on each
wake (about 0.5 ms per wake for a node of a few dozen entities; a team of eleven wakes
eleven times a cycle). A LeanReader keeps one rcl wait set over its own subscriptions
(rebuilt only when one is added) and hands each message to its handler in the caller's
thread: `soccersim team` and bench/bench_players.py read their percepts this way. The node may
still be spun by an executor for its services and clients: the reader's subscriptions sit in
a callback group no executor runs.

Single-threaded: `spin_once` from one thread; `close` before the node is destroyed."""
from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile
from rclpy.subscription import Subscription

from sim_master.ros.player_inbox import ReadByInbox, never_called


class LeanReader:
    def __init__(self, node: Node) -> None:
        self._node = node
        self._group = ReadByInbox()
        self._topics: list[tuple[Subscription[Any], Callable[[Any], None]]] = []
        self._stack: ExitStack | None = None
        self._wait_set: Any = None
        self._by_pointer: dict[int, tuple[Subscription[Any], Callable[[Any], None]]] = {}

    def subscribe(self, msg_type: Any, topic: str, handler: Callable[[Any], None],
                  qos: QoSProfile, *, raw: bool = False) -> Subscription[Any]:
        """`handler` gets each message, or its serialized bytes with `raw`."""
        sub = self._node.create_subscription(msg_type, topic, never_called, qos, callback_group=self._group, raw=raw)
        self._topics.append((sub, handler))
        self._release()  # rebuilt on the next wait
        return sub

    def spin_once(self, timeout_s: float) -> int:
        """Waits up to `timeout_s` for messages and hands every one that came to its handler;
        returns how many."""
        if self._wait_set is None:
            self._build()
        wait_set = self._wait_set
        wait_set.clear_entities()
        for sub, _ in self._topics:
            wait_set.add_subscription(sub.handle)
        wait_set.wait(int(max(timeout_s, 0.0) * 1e9))
        handled = 0
        for pointer in wait_set.get_ready_entities("subscription"):
            sub, handler = self._by_pointer[pointer]
            while (taken := sub.handle.take_message(sub.msg_type, sub.raw)) is not None:
                handler(taken[0])
                handled += 1
        return handled

    def _build(self) -> None:
        stack = ExitStack()
        for sub, _ in self._topics:
            stack.enter_context(sub.handle)  # held: destroyed only once released
        context = self._node.context.handle
        if context is None:
            stack.close()
            raise RuntimeError("the node's context is shut down")
        stack.enter_context(context)
        self._stack = stack
        self._wait_set = _rclpy.WaitSet(len(self._topics), 0, 0, 0, 0, 0, context)
        self._by_pointer = {sub.handle.pointer: (sub, handler) for sub, handler in self._topics}

    def _release(self) -> None:
        if self._stack is not None:
            self._stack.close()
        self._stack, self._wait_set = None, None

    def close(self) -> None:
        self._release()
