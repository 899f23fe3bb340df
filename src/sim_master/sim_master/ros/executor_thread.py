"""Spins rclpy nodes on a background thread so the simulation loop never waits for DDS.

Entities are destroyed from other threads (a player's topics when it leaves, from the loop's
thread): if that happens while rclpy builds its wait set, the wait raises InvalidHandle.
rclpy's own spin() would end there, and every service of the server with it; this one
starts the next wait instead."""
from __future__ import annotations

import logging
import threading
from contextlib import suppress

import rclpy
from rclpy.exceptions import InvalidHandle
from rclpy.executors import Executor, ExternalShutdownException, MultiThreadedExecutor, SingleThreadedExecutor
from rclpy.node import Node

_log = logging.getLogger("soccersim.ros")


class ExecutorThread:
    def __init__(self, context: rclpy.Context, threads: int = 2) -> None:
        # One thread: the single-threaded executor, which sleeps in its wait set (rclpy's
        # multi-threaded one wakes again and again while a callback it cannot start is ready).
        self.executor: Executor = MultiThreadedExecutor(num_threads=threads, context=context) if threads > 1 \
            else SingleThreadedExecutor(context=context)
        self._context = context
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._spin, name="ros-executor", daemon=True)
        self.recovered = 0  # waits restarted after an entity was destroyed under them

    def add(self, node: Node) -> None:
        self.executor.add_node(node)

    def start(self) -> None:
        self._thread.start()

    def _spin(self) -> None:
        # Shutting the context down from another thread ends the wait with one of these.
        with suppress(ExternalShutdownException, rclpy.executors.ShutdownException,
                      rclpy._rclpy_pybind11.RCLError):  # type: ignore[attr-defined]  # private module, no stubs
            while not self._stopping.is_set() and self._context.ok():
                try:
                    self.executor.spin_once(timeout_sec=0.5)
                except InvalidHandle:  # destroyed while the wait set was built: wait again
                    self.recovered += 1
                    if self.recovered == 1:
                        _log.info("ROS executor: an entity went while waiting (a player left); waiting again")

    def stop(self, timeout: float = 1.0) -> None:
        self._stopping.set()
        with suppress(Exception):
            self.executor.shutdown(timeout_sec=timeout)
        self._thread.join(timeout)
