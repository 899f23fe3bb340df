"""A service call that survives a lost answer.

Fast DDS can drop a service response when the server answers before it has matched the
client's response reader; `wait_for_service` only proves the request side is matched. A
client that waits once for ever then hangs on a request the server already handled. For
requests that are safe to repeat, asking again is the reliable pattern. Under load the
pairing of one client's endpoints can stay unmatched for many seconds (seen in CI: six answers
in a row lost to a restarted process), so a caller may renew the client between attempts:
fresh endpoints are discovered afresh (bridge_node probes init_agent so; distributed nodes register so).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rclpy.client import Client
from rclpy.executors import Executor
from rclpy.node import Node


def fresh_client(node: Node, old: Client, *, wait_s: float = 5.0) -> Client:
    """A new client of the same service in place of `old` (destroyed): fresh endpoints, which
    discovery pairs afresh (the `renew` of call_until_answered)."""
    srv_type, srv_name = old.srv_type, old.srv_name
    node.destroy_client(old)
    client: Client = node.create_client(srv_type, srv_name)
    client.wait_for_service(timeout_sec=wait_s)
    return client


def call_until_answered(executor: Executor, client: Client, request: Any, *, attempts: int = 4,
                        timeout_s: float = 5.0, renew: Callable[[Client], Client] | None = None) -> Any | None:
    """The response, or None when `attempts` requests each went `timeout_s` unanswered.

    Only for idempotent requests: the server may have handled a request whose answer was lost.
    `renew` (given the unanswered client, returns the one to ask next) replaces the client
    after each unanswered attempt.
    """
    for attempt in range(attempts):
        future = client.call_async(request)
        executor.spin_until_future_complete(future, timeout_sec=timeout_s)
        if future.done():
            return future.result()
        client.remove_pending_request(future)
        if renew is not None and attempt + 1 < attempts:
            client = renew(client)
    return None
