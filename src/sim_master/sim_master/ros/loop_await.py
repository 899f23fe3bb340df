"""A simulation-loop call awaited by a ROS service coroutine, holding no executor thread.

Why: the server's services run on an executor of two threads. A callback that blocked while
the loop made a robot held one of them, so a burst of joins (100 `init_agent` calls) left
all but a handful unanswered: requests waited in DDS until they were overwritten. Awaited
here, the request's coroutine is parked and the threads take the next request; the loop
answers each in the order they came, and a call that its deadline passes is not made late."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

from rclpy.executors import Executor
from rclpy.node import Node
from rclpy.task import Future

from sim_master.master.loop_calls import LoopCalls, LoopCallTimeout

T = TypeVar("T")


async def on_loop(calls: LoopCalls, node: Node, executor: Executor, fn: Callable[[], T],
                  timeout: float = 10.0) -> T:
    """`fn()` run by the loop; raises what it raised, or LoopCallTimeout after `timeout`."""
    future: Future[Any] = Future(executor=executor)
    lock = threading.Lock()

    def settle(result: Any = None, error: BaseException | None = None) -> None:
        with lock:
            if future.done():
                return
            if error is not None:
                future.set_exception(error if isinstance(error, Exception) else RuntimeError(str(error)))
            else:
                future.set_result(result)
        executor.wake()  # the parked coroutine goes on at once, not at the executor's next timeout

    call = calls.call_soon(fn, lambda c: settle(c.result, c.error))

    def expire() -> None:
        call.cancelled = True
        settle(error=LoopCallTimeout(f"simulation loop did not answer within {timeout:g} s"))

    timer = node.create_timer(timeout, expire)
    try:
        return cast(T, await future)
    finally:
        node.destroy_timer(timer)
