"""Fixtures shared by every package's tests: ROS contexts, free ports, a real redis-server."""
from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator

import pytest


def free_tcp_port(host: str = "127.0.0.1") -> int:
    """A port the kernel just handed out (bind to port 0), so tests never assume 3100 is free."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@pytest.fixture
def free_port() -> int:
    return free_tcp_port()


@pytest.fixture(scope="session")
def port_picker() -> Callable[[], int]:
    """free_tcp_port itself, for fixtures of wider scope and tests that need several ports."""
    return free_tcp_port


@pytest.fixture
def ros_context() -> Iterator[object]:
    """An rclpy context of its own per test (init/shutdown are cheap)."""
    import rclpy

    ctx = rclpy.Context()
    rclpy.init(context=ctx)
    try:
        yield ctx
    finally:
        if ctx.ok():
            rclpy.shutdown(context=ctx)


class RedisProcess:
    """A real redis-server on a free loopback port, without persistence, that a test may
    kill and start again (same port) to play a cache outage."""

    def __init__(self) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            pytest.fail("redis-server is not installed: run 'make setup'")
        self.exe = exe
        self.port = free_tcp_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.workdir = tempfile.mkdtemp(prefix="soccersim-redis-")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.workdir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        self.proc.kill()
        pytest.fail("redis-server did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.workdir, ignore_errors=True)


@pytest.fixture
def redis_process() -> Iterator[RedisProcess]:
    server = RedisProcess()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_server(redis_process: RedisProcess) -> str:
    """A real redis-server on a free loopback port, without persistence; its URL."""
    return redis_process.url
