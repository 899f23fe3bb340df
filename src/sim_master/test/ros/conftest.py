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
        client = self.node.create_client(srv_type, name)
        assert client.wait_for_service(timeout_sec=timeout), f"no service {name}"
        future = client.call_async(request if request is not None else srv_type.Request())
        self.executor.spin_until_future_complete(future, timeout_sec=timeout)
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
