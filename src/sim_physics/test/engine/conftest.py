"""The physics engines every engine test runs on (MuJoCo, gz-physics with DART, ODE), made
alike: one `engine` fixture over all three, and `engine_factories` for a test that wants
each by name."""
from __future__ import annotations

from collections.abc import Callable

import pytest
from sim_physics.engine.gazebo.engine import GazeboEngine
from sim_physics.engine.mujoco.engine import MujocoEngine
from sim_physics.engine.node import SimulationNode
from sim_physics.engine.ode.engine import OdeEngine

ENGINES: dict[str, Callable[[], SimulationNode]] = {
    "mujoco": lambda: MujocoEngine(vision_noise=False, seed=3),
    "gazebo": lambda: GazeboEngine(vision_noise=False, seed=3),
    "ode": lambda: OdeEngine(vision_noise=False, seed=3),
}


@pytest.fixture(params=sorted(ENGINES))
def engine(request: pytest.FixtureRequest) -> SimulationNode:
    return ENGINES[request.param]()


@pytest.fixture
def engine_factories() -> dict[str, Callable[[], SimulationNode]]:
    return ENGINES
