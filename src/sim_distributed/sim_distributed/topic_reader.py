"""Take messages of one subscription through a private wait set.

The lockstep loop waits for exactly one kind of message per phase; an rclpy executor
would rebuild its wait set over every entity and schedule a task per callback, which
costs more than the barrier itself. The subscription's callback is never called: only
this reader takes its messages, so its node must not be added to an executor."""
from __future__ import annotations

from typing import Any, Generic, TypeVar

from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile

MsgT = TypeVar("MsgT")


class TopicReader(Generic[MsgT]):
    def __init__(self, node: Node, msg_type: type[MsgT], topic: str, qos: QoSProfile) -> None:
        self._sub = node.create_subscription(msg_type, topic, _never_called, qos)
        handle = node.context.handle if node.context is not None else None
        if handle is None:
            raise RuntimeError("the node's context is shut down")
        self._wait_set = _rclpy.WaitSet(1, 0, 0, 0, 0, 0, handle)
        self._type = msg_type

    def take(self) -> MsgT | None:
        """The next queued message, or None when none is queued (never blocks)."""
        with self._sub.handle:
            taken = self._sub.handle.take_message(self._type, False)
        return None if taken is None else taken[0]

    def wait(self, timeout_s: float) -> bool:
        """Block until a message is queued (True) or the timeout passes (False)."""
        ws = self._wait_set
        ws.clear_entities()
        with self._sub.handle:
            ws.add_subscription(self._sub.handle)
            ws.wait(int(timeout_s * 1e9))
            return bool(ws.get_ready_entities("subscription"))

    def next(self, timeout_s: float) -> MsgT | None:
        """A queued message, waiting up to timeout_s for one (a queued one returns at once:
        the wait set is ready then, so no take is wasted on an empty queue)."""
        return self.take() if self.wait(timeout_s) else None


def _never_called(_msg: Any) -> None:
    raise AssertionError("a TopicReader's subscription is not spun by an executor")
