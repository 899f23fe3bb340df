"""The layering holds: pure cores import no ROS, the engine does not import the bridge, the
loop core knows no sockets, and subpackages import each other in no circle.

Runs `tools/import_graph.py` over the real packages, and over a small made-up tree that
breaks each rule, so the checker is shown to catch what it is meant to catch."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[4]
TOOL = ROOT / "tools" / "import_graph.py"


def _tool() -> ModuleType:
    import import_graph  # tools/ on pythonpath (pytest.ini)

    return import_graph


def test_the_packages_keep_the_layering() -> None:
    result = subprocess.run([sys.executable, str(TOOL)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "rules kept" in result.stderr


def _write(root: Path, packages: tuple[str, ...], modules: dict[str, str]) -> None:
    """A made-up tree under `root`: each package (with its package.xml) and each module, named
    by its dotted name (`pkg.sub.mod`), at src/<pkg>/<pkg>/sub/mod.py with its source."""
    for package in packages:
        (root / "src" / package / package).mkdir(parents=True, exist_ok=True)
        (root / "src" / package / "package.xml").write_text("<package/>")
    for dotted, text in modules.items():
        package, *rest = dotted.split(".")
        path = root / "src" / package / package / Path(*rest[:-1]) / f"{rest[-1]}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_each_broken_rule_is_reported(tmp_path: Path) -> None:
    _write(
        tmp_path,
        ("sim_master", "sim_physics", "sim_bridge"),
        {
            "sim_master.__init__": "",
            "sim_physics.__init__": "",
            "sim_physics.engine.__init__": "",
            "sim_physics.engine.physics": "def f():\n    import rclpy\n    from sim_bridge.percept import P\n"
                                          "    from sim_master.master import loop\n",
            "sim_master.master.__init__": "",
            "sim_master.master.loop": "from ..ros import node\n",
            "sim_master.ros.__init__": "",
            "sim_master.ros.node": "from sim_master.master import loop\n",
            "sim_bridge.__init__": "",
            "sim_bridge.percept": "P = 1\n",
        },
    )
    graph = _tool()
    modules = graph.discover(tmp_path, ("src/sim_master/sim_master", "src/sim_physics/sim_physics",
                                        "src/sim_bridge/sim_bridge"))
    problems = "\n".join(graph.violations(modules))
    assert "sim_physics.engine.physics imports rclpy: pure cores must not import the ROS layer" in problems
    assert "sim_physics.engine.physics imports sim_bridge.percept" in problems
    assert "sim_physics.engine.physics imports sim_master.master" in problems  # the world knows no loop
    assert "sim_master.master.loop imports sim_master.ros" in problems  # relative import resolved
    assert "import cycle between subpackages: sim_master.master -> sim_master.ros" in problems
