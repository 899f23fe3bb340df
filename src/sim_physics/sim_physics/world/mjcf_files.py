"""Where rcsssmj's MJCF robots are on this machine, and whether they can be read here.

Why apart from `mjcf_import`: listing the models needs no MuJoCo, reading them does; a world
without MuJoCo (an ODE or gz-physics server) lists only the robots it can build."""
from __future__ import annotations

import importlib.util
from pathlib import Path

RCSSSMJ_MODELS = ("T1", "K1", "ant")


def mujoco_available() -> bool:
    """MuJoCo's parser can be imported (it reads MJCF robots for every engine)."""
    try:
        import mujoco  # noqa: F401
    except ImportError:
        return False
    return True


def rcsssmj_models() -> dict[str, Path]:
    """The rcsssmj robot files that exist and can be read here ({} when rcsssmj or MuJoCo is
    not installed)."""
    found = importlib.util.find_spec("rcsssmj")
    if found is None or not found.submodule_search_locations or not mujoco_available():
        return {}
    robots = Path(next(iter(found.submodule_search_locations))) / "resources" / "robots"
    return {name: robots / name / "robot.xml" for name in RCSSSMJ_MODELS if (robots / name / "robot.xml").exists()}
