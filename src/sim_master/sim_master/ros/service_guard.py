"""One fault boundary per service call: whatever a request makes a handler raise, the caller
gets an answer that says it failed, the error is logged once per kind, and every other
service goes on answering (an exception out of a callback ends rclpy's executor).

How a failure is said depends on the response: the simulation standard's `result`
(RESULT_OPERATION_FAILED with the reason), gazebo_ros's `success`/`status_message`, our
soccer services' `success`/`error`; a response with none of them (std_srvs/Empty) is
answered empty."""
from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

from sim_contracts.logtext import clip

_log = logging.getLogger("soccersim.services")
_said: set[str] = set()


def _fail(response: Any, reason: str) -> Any:
    outcome = getattr(response, "result", None)
    if outcome is not None and hasattr(outcome, "error_message"):  # simulation_interfaces/Result
        from simulation_interfaces.msg import Result

        response.result = Result(result=Result.RESULT_OPERATION_FAILED, error_message=reason)
        return response
    if hasattr(response, "success"):
        response.success = False
    for field in ("status_message", "error", "message"):
        if isinstance(getattr(response, field, None), str):
            setattr(response, field, reason)
            break
    return response


def _failed(name: str, exc: Exception, response: Any) -> Any:
    reason = clip(f"{type(exc).__name__}: {exc}")
    key = f"{name}:{type(exc).__name__}"
    if key not in _said:
        _said.add(key)
        _log.error("service %s failed: %s (the server goes on; logged once per kind)", name, reason)
    return _fail(response, f"failed: {reason}")


def guarded(name: str, handler: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """`handler` as a service callback that never raises; a coroutine handler (one that awaits
    the loop, holding no executor thread) stays a coroutine."""
    if inspect.iscoroutinefunction(handler):
        async def call_async(request: Any, response: Any) -> Any:
            try:
                return await handler(request, response)
            except Exception as exc:  # noqa: BLE001 - the boundary itself
                return _failed(name, exc, response)

        return call_async

    def call(request: Any, response: Any) -> Any:
        try:
            return handler(request, response)
        except Exception as exc:  # noqa: BLE001 - the boundary itself
            return _failed(name, exc, response)

    return call
