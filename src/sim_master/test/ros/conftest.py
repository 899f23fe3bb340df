"""A ROS client for the tests of the server's ROS surface: a node of the test's own context
that calls services by name and spins until a condition holds."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest


class RosCaller:
    def __init__(self, context: Any, name: str = "test_client") -> None:
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.node import Node

        self.node = Node(name, context=context)
        self.executor = SingleThreadedExecutor(context=context)
        self.executor.add_node(self.node)

    def call(self, srv_type: Any, name: str, request: Any = None, timeout: float = 20.0) -> Any:
        """Call and wait for the answer. A read (Get..., List..., Describe...) unanswered for a
        quarter of `timeout` is asked again: right after discovery DDS can drop a reply while
        the reply's path is still being matched (seen once in 700 tests on a loaded machine)."""
        client = self.node.create_client(srv_type, name)
        assert client.wait_for_service(timeout_sec=timeout), f"no service {name}"
        request = request if request is not None else srv_type.Request()
        is_read = srv_type.__name__.startswith(("Get", "List", "Describe"))
        deadline = time.monotonic() + timeout
        while True:
            future = client.call_async(request)
            wait = min(timeout / 4, deadline - time.monotonic()) if is_read else timeout
            self.executor.spin_until_future_complete(future, timeout_sec=max(wait, 0.0))
            if future.done() or not is_read or time.monotonic() >= deadline:
                break
        assert future.done(), f"{name} did not answer"
        return future.result()

    def spin_until(self, condition: Callable[[], Any], what: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not condition():
            self.executor.spin_once(timeout_sec=0.05)
        assert condition(), f"never: {what}"


@pytest.fixture
def ros_caller(ros_context: Any) -> Iterator[RosCaller]:
    caller = RosCaller(ros_context)
    try:
        yield caller
    finally:
        caller.node.destroy_node()
