"""Docs that cannot lie about where things are: every repository path cited in a doc, a
comment or a docstring names a file that exists (a path may be cited from its package root
on, as `sim_master/master/loop.py`), and the module lists of tools/import_graph.py name real
modules. Issue 43 found C++ files citing tests that did not exist and phantom modules."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
EXTENSIONS = "py|md|cpp|hpp|xml|sdf|json|csv|sh|cmake|msg|srv|action|ini|toml|js|html"
CITED = re.compile(r"(?<![\w./:-])([A-Za-z_][\w.-]*(?:/[\w.-]+)+\.(?:" + EXTENSIONS + r"))(?![\w/])")
# not this repository's files: placeholders, system and third-party headers, an npm tarball's
# layout, the made-up paths a test feeds the page server
NOT_OURS = ("DIR/", "ROOT/", "VENV/", "dart/", "include/", "package/", "vendor/")


def _tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return out.split()


def test_every_cited_path_exists() -> None:
    tracked = _tracked()
    suffixes = {t for t in tracked} | {t[t.index("/") + 1:] for t in tracked if "/" in t}
    texts = [t for t in tracked if t.endswith((".py", ".md", ".cpp", ".hpp", ".xml", ".cmake", ".sh", ".js", ".html"))]
    missing = []
    for name in texts:
        for match in CITED.finditer((ROOT / name).read_text(errors="replace")):
            path = match.group(1)
            if path.startswith(NOT_OURS) or path in suffixes or any(t.endswith("/" + path) for t in tracked):
                continue
            missing.append(f"{name}: {path}")
    assert not missing, "paths cited that do not exist:\n" + "\n".join(missing)


def test_the_import_rules_name_real_modules() -> None:
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "tools" / "import_graph.py")
    assert spec is not None and spec.loader is not None
    graph = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = graph
    spec.loader.exec_module(graph)
    ours = ("sim_master", "sim_bridge", "soccer_referee", "sim_contracts")
    named = set(graph.PURE_CORES) | {p for rule in graph.FORBIDDEN for p in rule[:2]} | set(graph.ROS_MODULES)
    phantoms = []
    for module in sorted(m for m in named if m.split(".")[0] in ours):
        top = module.split(".")[0]
        package_dir = next(ROOT / d for d in graph.PACKAGE_DIRS if d.endswith("/" + top))
        path = package_dir.joinpath(*module.split(".")[1:])
        if not (path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()):
            phantoms.append(module)
    assert not phantoms, f"tools/import_graph.py names modules that do not exist: {phantoms}"
