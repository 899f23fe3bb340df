#!/usr/bin/env python3
"""The package's import graph, and the layering rules it must keep.

Why: the pure cores (engine, world, referee, bridge codecs, master core, barrier, store
formats) are tested without ROS and must stay importable without it; the engine must not
know the wire; subpackages must not import each other in a circle. Reading the code's
imports (every one, also those inside functions) is the only way to keep that true as the
code grows, so this script is run by `make test` (`test_import_graph.py`).

Usage: python tools/import_graph.py [--dot FILE] [--json]
Exit status 1 and one line per broken rule when a rule is broken.
"""
from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIRS = ("src/sim_contracts/sim_contracts", "src/sim_physics/sim_physics", "src/sim_master/sim_master",
                "src/sim_bridge/sim_bridge", "src/soccer_referee/soccer_referee", "src/sim_distributed/sim_distributed",
                "src/sim_tools/sim_tools", "src/soccersim_api/soccersim_api", "src/soccer_team/soccer_team")

# The ROS layer: nothing in a pure core may import these (module prefixes).
ROS_MODULES = ("rclpy", "sim_msgs", "simulation_interfaces", "gazebo_msgs", "tf2_msgs", "rosgraph_msgs",
               "geometry_msgs", "std_msgs", "builtin_interfaces", "sim_master.ros", "soccer_referee.ros",
               "rosbag2_py", "launch", "sim_bridge.ros")

# Pure cores: importable and testable without ROS (module prefixes).
PURE_CORES = (
    "sim_physics",  # the whole package: engines, world files, scene, snapshots
    "sim_master.master",
    "sim_master.store",
    "sim_master.api",  # the core API over gRPC: beside ROS, never through it
    "soccersim_api",
    "sim_distributed.barrier", "sim_distributed.resp", "sim_distributed.redis_cache", "sim_distributed.cache_writer",
    "sim_contracts",
    "soccer_referee.commands", "soccer_referee.events",
    "soccer_referee.play_modes", "soccer_referee.referee", "soccer_referee.registry",
    "soccer_referee.rules", "soccer_referee.world",
    "sim_bridge.dialects", "sim_bridge.sexp", "sim_bridge.framing",
    "soccer_team",  # the base team's motion, senses and strategy: the ROS runner is sim_tools' team command
)

# (importer prefix, forbidden imported prefix, why)
FORBIDDEN = (
    ("sim_physics", "sim_master", "the world is stepped by the loop (sim_master); it does not know the loop's side"),
    ("sim_physics.engine", "soccer_referee", "the referee reads the world through its view, not the other way round"),
    ("sim_physics.world", "soccer_referee", "world files know no rules"),
    ("sim_physics.engine", "sim_bridge", "the engine produces engine-neutral percepts; the bridge formats them"),
    ("sim_physics.engine", "sim_master.master", "the engine is driven by the loop, it does not know it"),
    ("sim_physics.world", "sim_physics.engine", "world specs are read by engines, not the other way round"),
    ("sim_master", "sim_distributed", "distributed mode builds on sim_master; single mode carries none of it"),
    ("sim_physics", "sim_distributed", "the world is stepped by either mode; it knows neither"),
    ("sim_master", "sim_tools", "the server carries no tools: the launch runner, demo team and pictures build on it"),
    ("sim_distributed", "sim_tools", "distributed mode needs none of the tools"),
    ("sim_contracts", "sim_bridge", "contracts are below the wire layer"),
    ("sim_contracts", "sim_master", "contracts are below every engine and the loop"),
    ("sim_master.master", "sim_bridge", "the loop core knows no sockets: transports are registered with it"),
    ("sim_master.master", "sim_master.server", "the loop core does not know what is plugged into it"),
    ("sim_master.master", "sim_master.api", "the loop core does not know what is plugged into it"),
    ("soccersim_api", "sim_", "the API's proto and client need no server: users install them alone"),
    ("soccersim_api", "soccer_referee", "the API's proto and client need no server: users install them alone"),
    ("sim_physics.scene", "mujoco", "monitors and replay draw from the engine contract, on any engine"),
    ("sim_physics.scene", "sim_physics.engine", "the scene reads specs and poses, never an engine"),
    ("sim_master.server", "mujoco", "what serves a world serves it on any engine"),
    ("sim_physics.engine.gazebo", "sim_physics.engine.mujoco", "sibling engines do not lean on each other"),
    ("sim_physics.engine.ode", "sim_physics.engine.mujoco", "sibling engines do not lean on each other"),
    ("soccer_team", "sim_tools", "the base team is what the tools run, not the other way round"),
    ("soccer_team", "sim_master.master", "a player knows its percepts, not the server's loop"),
)


@dataclass
class Module:
    name: str
    path: Path
    imports: set[str] = field(default_factory=set)


def module_name(path: Path) -> str:
    package_dir = next(p for p in path.parents if (p.parent / "package.xml").exists())
    parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def discover(root: Path = ROOT, package_dirs: Iterable[str] = PACKAGE_DIRS) -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for package_dir in package_dirs:
        for path in sorted((root / package_dir).rglob("*.py")):
            name = module_name(path)
            modules[name] = Module(name, path, set(_imports(path, name)))
    return modules


def _imports(path: Path, name: str) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            yield base
            for alias in node.names:  # `from pkg import module` imports pkg.module
                yield f"{base}.{alias.name}"


def _matches(name: str, prefixes: Iterable[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def resolve(modules: dict[str, Module], imported: str) -> str | None:
    """The project module an import names (its longest known prefix), or None if external."""
    parts = imported.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def subpackage(name: str) -> str:
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else parts[0]


def violations(modules: dict[str, Module]) -> list[str]:
    problems: dict[tuple[str, str], str] = {}  # one line per (module, rule)
    for module in modules.values():
        for imported in sorted(module.imports):
            if _matches(module.name, PURE_CORES) and _matches(imported, ROS_MODULES):
                problems.setdefault((module.name, "ros"),
                                    f"{module.name} imports {imported}: pure cores must not import the ROS layer")
            for importer, forbidden, why in FORBIDDEN:
                if _matches(module.name, (importer,)) and _matches(imported, (forbidden,)):
                    problems.setdefault((module.name, forbidden), f"{module.name} imports {imported}: {why}")
    return list(problems.values()) + [
        f"import cycle between subpackages: {' -> '.join(cycle)}" for cycle in subpackage_cycles(modules)]


def subpackage_graph(modules: dict[str, Module]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module in modules.values():
        src = subpackage(module.name)
        graph.setdefault(src, set())
        for imported in module.imports:
            target = resolve(modules, imported)
            if target is None:
                continue
            dst = subpackage(target)
            if dst != src and dst != src.split(".")[0]:
                graph[src].add(dst)
    return graph


def subpackage_cycles(modules: dict[str, Module]) -> list[list[str]]:
    """Strongly connected components of the subpackage graph with more than one member."""
    graph = subpackage_graph(modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dot", type=Path, help="write the subpackage graph as Graphviz dot")
    parser.add_argument("--json", action="store_true", help="print the subpackage graph as JSON")
    args = parser.parse_args(argv)
    modules = discover()
    graph = subpackage_graph(modules)
    if args.dot:
        lines = ["digraph imports {"] + [f'  "{a}" -> "{b}";' for a in sorted(graph) for b in sorted(graph[a])] + ["}"]
        args.dot.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps({k: sorted(v) for k, v in sorted(graph.items())}, indent=1))
    problems = violations(modules)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"import graph: {len(modules)} modules, {len(graph)} subpackages, rules kept", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
