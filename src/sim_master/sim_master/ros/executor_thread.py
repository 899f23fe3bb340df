"""Spins rclpy nodes on a background thread so the simulation loop never waits for DDS."""
from __future__ import annotations

import threading
from contextlib import suppress

import rclpy
from rclpy.executors import Executor, ExternalShutdownException, MultiThreadedExecutor, SingleThreadedExecutor
from rclpy.node import Node


class ExecutorThread:
    def __init__(self, context: rclpy.Context, threads: int = 2) -> None:
        # One thread: the single-threaded executor, which sleeps in its wait set (rclpy's
        # multi-threaded one wakes again and again while a callback it cannot start is ready).
        self.executor: Executor = MultiThreadedExecutor(num_threads=threads, context=context) if threads > 1 \
            else SingleThreadedExecutor(context=context)
        self._thread = threading.Thread(target=self._spin, name="ros-executor", daemon=True)

    def add(self, node: Node) -> None:
        self.executor.add_node(node)

    def start(self) -> None:
        self._thread.start()

    def _spin(self) -> None:
        # Shutting the context down from another thread ends spin() with one of these.
        with suppress(ExternalShutdownException, rclpy.executors.ShutdownException,
                      rclpy._rclpy_pybind11.RCLError):  # type: ignore[attr-defined]  # private module, no stubs
            self.executor.spin()

    def stop(self, timeout: float = 1.0) -> None:
        with suppress(Exception):
            self.executor.shutdown(timeout_sec=timeout)
        self._thread.join(timeout)
