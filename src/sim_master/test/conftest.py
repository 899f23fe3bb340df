"""Fixtures of the sim_master tests: a real single-mode server (engine, referee, bridge) on
free ports, its loop in a thread of the test's process (sim_master.server.in_thread)."""
from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pytest

from sim_master.master.config import ServerConfig
from sim_master.server.in_thread import serving
from sim_master.server.single import SingleModeServer

# What a test's server is unless it says otherwise: sync mode, both agent ports on free ports,
# no monitors, no service port, no ROS, short sync waits, no vision noise.
TEST_SETTINGS: dict[str, Any] = dict(sync=True, realtime=False, simspark_port=0, rcsssmj_port=0,
                                     simspark_monitor_port=None, rcsssmj_monitor_port=None, service_port=None,
                                     ros=False, sync_timeout=0.3, vision_noise=False,
                                     beam_noise=False)


def _running_server(ros_args: list[str] | None = None, **overrides: Any) -> AbstractContextManager[SingleModeServer]:
    return serving(ServerConfig(**{**TEST_SETTINGS, **overrides}), ros_args)


@pytest.fixture(scope="session")
def running_server() -> Callable[..., AbstractContextManager[SingleModeServer]]:
    """`with running_server(**settings) as server:` a started server with TEST_SETTINGS but for
    `settings`, stopped and closed on leaving the block; `ros_args` (first argument): its
    --ros-args."""
    return _running_server
