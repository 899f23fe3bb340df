"""The engines satisfy the protocols the server drives them through, checked by mypy.

Why a static check: a Protocol is structural, so an engine that drops or changes a method
the loop calls would only fail at run time, in the cycle that calls it. mypy reads the
assignments below and fails this test if an engine no longer matches its protocol; the
second test shows the check can fail."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[3]  # the workspace's src/
PACKAGES = os.pathsep.join(str(SRC / p) for p in (
    "sim_master", "sim_contracts", "sim_bridge", "soccer_referee", "sim_gazebo", "sim_ode"))

CHECK = '''
from sim_physics.engine.gazebo.engine import GazeboEngine
from sim_physics.engine.mujoco.engine import MujocoEngine
from sim_physics.engine.node import SimulationNode, SteppedWorld
from sim_physics.engine.ode.engine import OdeEngine
from sim_distributed.simpy_engine.engine import SimpyEngine


def gazebo(engine: GazeboEngine) -> SimulationNode:
    return engine


def ode(engine: OdeEngine) -> SimulationNode:
    return engine


def physics(engine: MujocoEngine) -> SimulationNode:
    return engine


def swarm(engine: SimpyEngine) -> SteppedWorld:
    return engine


def physics_node(engine: MujocoEngine) -> SteppedWorld:
    return engine
'''

NOT_AN_ENGINE = '''
from sim_physics.engine.node import SimulationNode
from sim_distributed.simpy_engine.engine import SimpyEngine


def physics(engine: SimpyEngine) -> SimulationNode:
    return engine  # SimPy bodies have no sensors: not a SimulationNode
'''


def _mypy(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "engine_check.py"
    path.write_text(source)
    # mypy reads the packages' sources (MYPYPATH), not the install tree, so nothing is Any
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent",
                           "--ignore-missing-imports", str(path)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "MYPYPATH": PACKAGES})


def test_both_engines_satisfy_their_protocols(tmp_path: Path) -> None:
    result = _mypy(tmp_path, CHECK)
    assert result.returncode == 0, result.stdout + result.stderr


def test_an_engine_missing_methods_is_caught(tmp_path: Path) -> None:
    result = _mypy(tmp_path, NOT_AN_ENGINE)
    assert result.returncode == 1
    assert 'expected "SimulationNode"' in result.stdout
