"""Calls from other threads reach the loop: ordinary calls may run inside a cycle (while it
waits for agents), pause and reset only between cycles, so an acknowledged pause has frozen time."""
from __future__ import annotations

import threading

import pytest

from sim_master.master.loop_calls import LoopCalls, LoopCallTimeout


def _call_in_thread(calls: LoopCalls, fn, **kwargs) -> tuple[threading.Thread, list[object]]:
    out: list[object] = []

    def run() -> None:
        try:
            out.append(calls.call(fn, 5.0, **kwargs))
        except Exception as exc:  # noqa: BLE001 - the test inspects it
            out.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


def _wait_queued(calls: LoopCalls, *, at_boundary: bool) -> None:
    queue = calls._at_boundary if at_boundary else calls._queue
    event = threading.Event()
    while queue.empty():
        event.wait(0.001)


def test_a_boundary_call_waits_out_the_cycle_in_progress() -> None:
    calls = LoopCalls()
    calls.bind_to_current_thread()
    thread, out = _call_in_thread(calls, lambda: "paused", at_boundary=True)
    _wait_queued(calls, at_boundary=True)
    assert calls.run_pending(at_boundary=False) == 0  # inside a cycle: it stays queued
    assert out == []
    assert calls.run_pending() == 1  # the next boundary runs it
    thread.join(5)
    assert out == ["paused"]


def test_an_ordinary_call_runs_inside_a_cycle() -> None:
    calls = LoopCalls()
    calls.bind_to_current_thread()
    thread, out = _call_in_thread(calls, lambda: 42)
    _wait_queued(calls, at_boundary=False)
    assert calls.run_pending(at_boundary=False) == 1
    thread.join(5)
    assert out == [42]


def test_shutdown_releases_both_kinds_of_waiting_caller() -> None:
    calls = LoopCalls()
    calls.bind_to_current_thread()
    waiting = [_call_in_thread(calls, lambda: 1, at_boundary=b) for b in (True, False)]
    _wait_queued(calls, at_boundary=True)
    _wait_queued(calls, at_boundary=False)
    calls.fail_pending("stopping")
    for thread, out in waiting:
        thread.join(5)
        assert len(out) == 1 and isinstance(out[0], LoopCallTimeout)


def test_a_failing_call_hands_its_error_to_the_caller() -> None:
    calls = LoopCalls()
    calls.bind_to_current_thread()
    thread, out = _call_in_thread(calls, lambda: 1 / 0, at_boundary=True)
    _wait_queued(calls, at_boundary=True)
    calls.run_pending()
    thread.join(5)
    assert isinstance(out[0], ZeroDivisionError)
    with pytest.raises(ZeroDivisionError):
        calls.call(lambda: 1 / 0)  # on the loop's own thread: runs at once
