"""The physics engine a server or a distributed node runs, chosen by name (`--engine`).

Why here: the single-mode server, distributed nodes and benches pick an engine the same
way, and a missing optional engine (gz-physics and ODE need the sim_gazebo and sim_ode C++
modules that `make setup` builds) is one clear error, not an ImportError deep in a start-up."""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import cast

from sim_physics.engine.node import SimulationNode

PHYSICS_ENGINES = ("auto", "mujoco", "gazebo", "ode")


class EngineUnavailable(RuntimeError):
    """The engine exists but cannot run here (its compiled module is missing)."""


_COMPILED_MODULES = {"gazebo": "sim_gazebo", "ode": "sim_ode"}  # engine -> its C++ module, built by colcon


def _require_module(kind: str) -> None:
    module = _COMPILED_MODULES[kind]
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise EngineUnavailable(f"the {kind} engine needs the {module} module (run make setup, then "
                                f"source install/setup.bash): {exc}") from None


def physics_engine(kind: str, world: str, *, vision_noise: bool = True, seed: int | None = None,
                   log: Callable[[str], None] | None = None, physics_threads: int = 0) -> SimulationNode:
    """`auto`: each league's reference physics (engine/league.py), MuJoCo alone when the ODE
    module is not built; log hears which engine a joining robot chose. physics_threads: ODE's
    islands on that many threads, the same results on any number; 0 (default): one per core,
    up to 4 (engine/ode/engine.py island_threads). ODE only."""
    if physics_threads > 1 and kind not in ("auto", "ode"):
        raise ValueError(f"physics threads apply to ODE (engine auto or ode), not to {kind}")
    if kind == "auto":
        from sim_physics.engine.league import LeagueEngine

        available = {"mujoco"}
        try:
            _require_module("ode")
            available.add("ode")
        except EngineUnavailable:
            pass

        def switched(chosen: str) -> None:
            if log is not None:
                why = "ODE for SimSpark robots" if chosen == "ode" else "MuJoCo for rcsssmj robots"
                log(f"physics: {chosen} (engine auto: {why})")

        league = LeagueEngine(
            lambda k: physics_engine(k, world, vision_noise=vision_noise, seed=seed,
                                     physics_threads=physics_threads if k == "ode" else 0), available, switched)
        return cast(SimulationNode, league)
    if kind == "mujoco":
        from sim_physics.engine.mujoco.engine import MujocoEngine

        return MujocoEngine(world, vision_noise=vision_noise, seed=seed)
    if kind == "gazebo":
        _require_module(kind)
        from sim_physics.engine.gazebo.engine import GazeboEngine

        return GazeboEngine(world, vision_noise=vision_noise, seed=seed)
    if kind == "ode":
        _require_module(kind)
        from sim_physics.engine.ode.engine import OdeEngine

        return OdeEngine(world, vision_noise=vision_noise, seed=seed, step_threads=physics_threads)
    raise ValueError(f"unknown physics engine {kind!r} (one of: {', '.join(PHYSICS_ENGINES)})")
