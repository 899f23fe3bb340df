"""Hands work from other threads (ROS callbacks, the service port) to the simulation loop.

Engine, referee and bridge are single-threaded by design: nothing but the loop touches
them. A ROS service callback submits a function and waits for the loop to run it. Most calls
may also run while a cycle waits for its agents (sync mode), so services stay responsive;
calls that change what the next cycle does (pause, reset) ask for a cycle boundary, so a
pause acknowledged to its caller has frozen time and no half-collected cycle runs on.

A caller that must not hold its thread while it waits (a ROS service: the executor has two
threads for every caller) hands a call with `call_soon` and hears back on the loop's thread;
a call its caller gave up on before it ran is skipped, never made late."""
from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

T = TypeVar("T")
_log = logging.getLogger(__name__)


class LoopCallTimeout(TimeoutError):
    """The loop did not run the call in time (stopped, or stuck in a long step)."""


@dataclass(slots=True)
class _Call(Generic[T]):
    fn: Callable[[], T]
    waited: bool = True
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None
    then: Callable[[_Call[Any]], None] | None = None  # told on the loop's thread when it ran
    cancelled: bool = False  # the caller gave up: not run


class LoopCalls:
    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[_Call[Any]] = queue.SimpleQueue()
        self._at_boundary: queue.SimpleQueue[_Call[Any]] = queue.SimpleQueue()
        self._loop_thread: int | None = None

    def bind_to_current_thread(self) -> None:
        """Calls made from this thread run immediately (the loop calling itself)."""
        self._loop_thread = threading.get_ident()

    def call(self, fn: Callable[[], T], timeout: float = 10.0, *, at_boundary: bool = False) -> T:
        """Run `fn` on the loop; with `at_boundary`, only between two cycles, never inside one."""
        if threading.get_ident() == self._loop_thread:
            return fn()
        item: _Call[T] = _Call(fn)
        (self._at_boundary if at_boundary else self._queue).put(item)
        if not item.done.wait(timeout):
            raise LoopCallTimeout(f"simulation loop did not answer within {timeout} s")
        if item.error is not None:
            raise item.error
        return item.result

    def call_soon(self, fn: Callable[[], T], then: Callable[[_Call[T]], None], *,
                  at_boundary: bool = False) -> _Call[T]:
        """Run `fn` on the loop, then `then(call)` there (its `result` or `error`); returns the
        call, whose `cancelled` set before it runs keeps it from running."""
        item: _Call[T] = _Call(fn, then=then)
        if threading.get_ident() == self._loop_thread:
            self._execute(item)
        else:
            (self._at_boundary if at_boundary else self._queue).put(item)
        return item

    def submit(self, fn: Callable[[], object]) -> None:
        """Fire and forget (e.g. an effector message): runs before the next cycle."""
        self._queue.put(_Call(fn, waited=False))

    def run_pending(self, *, at_boundary: bool = True) -> int:
        """Run everything submitted so far; exceptions go back to the caller that waits.

        Inside a cycle (`at_boundary=False`) the calls that wait for a boundary stay queued."""
        count = self._run(self._queue)
        return count + self._run(self._at_boundary) if at_boundary else count

    def run_for(self, seconds: float) -> int:
        """Run what is pending until nothing is or `seconds` are spent: a surface's budget per
        poll (what is left runs at the next)."""
        deadline = time.perf_counter() + seconds
        count = 0
        for pending in (self._queue, self._at_boundary):
            while time.perf_counter() < deadline:
                try:
                    item = pending.get_nowait()
                except queue.Empty:
                    break
                self._execute(item)
                count += 1
        return count

    def wait_and_run(self, timeout: float) -> int:
        """Sleep until a call is submitted (at most `timeout`), then run what is pending, as
        inside a cycle. What a cycle waiting for its ROS players does: no polling."""
        try:
            first = self._queue.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return 0
        self._execute(first)
        return 1 + self._run(self._queue)

    @staticmethod
    def _execute(item: _Call[Any]) -> None:
        if item.cancelled:
            item.error = LoopCallTimeout("given up by its caller before it ran")
        else:
            try:
                item.result = item.fn()
            except Exception as exc:  # noqa: BLE001 - handed to the waiting thread
                item.error = exc
                if not item.waited:
                    _log.exception("loop call %r failed", item.fn)
        item.done.set()
        if item.then is not None:
            try:
                item.then(item)
            except Exception:  # noqa: BLE001 - the caller's hook must not end the loop
                _log.exception("loop call %r: its caller's hook failed", item.fn)

    @staticmethod
    def _run(pending: queue.SimpleQueue[_Call[Any]]) -> int:
        count = 0
        while True:
            try:
                item = pending.get_nowait()
            except queue.Empty:
                return count
            LoopCalls._execute(item)
            count += 1

    def fail_pending(self, reason: str) -> None:
        """On shutdown: release every waiting thread with an error."""
        for pending in (self._queue, self._at_boundary):
            while True:
                try:
                    item = pending.get_nowait()
                except queue.Empty:
                    break
                item.error = LoopCallTimeout(reason)
                item.done.set()
                if item.then is not None:
                    try:
                        item.then(item)
                    except Exception:  # noqa: BLE001 - every other waiter is still released
                        _log.exception("loop call %r: its caller's hook failed at shutdown", item.fn)
