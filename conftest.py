"""Fixtures shared by every package's tests: ROS contexts, free ports, a real redis-server."""
from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

import pytest


def free_tcp_port(host: str = "127.0.0.1") -> int:
    """A port the kernel just handed out (bind to port 0), so tests never assume 3100 is free."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@pytest.fixture
def free_port() -> int:
    return free_tcp_port()


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


@pytest.fixture
def redis_server() -> Iterator[str]:
    """A real redis-server on a free loopback port, without persistence; yields its URL."""
    exe = shutil.which("redis-server")
    if exe is None:
        pytest.fail("redis-server is not installed: run 'make setup'")
    port = free_tcp_port()
    workdir = tempfile.mkdtemp(prefix="soccersim-redis-")
    proc = subprocess.Popen(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", workdir],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.05)
    else:
        proc.kill()
        pytest.fail("redis-server did not start")
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(workdir, ignore_errors=True)
