"""Message definitions in rosbag2's MCAP form (the .msg text plus every dependency), so that
Foxglove and the mcap tools can decode our logs without our package."""
from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

_PRIMITIVES = {"bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32",
               "uint32", "int64", "uint64", "string", "wstring"}
_SEPARATOR = "=" * 80


def _find_msg(full_type: str) -> Path:
    pkg, name = full_type.split("/")[0], full_type.split("/")[-1]
    for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep):
        path = Path(prefix) / "share" / pkg / "msg" / f"{name}.msg"
        if path.exists():
            return path
    raise FileNotFoundError(f"no definition of {full_type} under AMENT_PREFIX_PATH")


def _dependencies(full_type: str, text: str) -> list[str]:
    pkg = full_type.split("/")[0]
    deps: list[str] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        field_type = re.sub(r"\[.*\]$", "", line.split()[0]).split("<=")[0]
        if field_type in _PRIMITIVES:
            continue
        if "/" not in field_type:
            field_type = f"{pkg}/{field_type}"
        deps.append(field_type.replace("/msg/", "/"))
    return deps


@cache
def message_definition(full_type: str) -> str:
    """e.g. 'sim_msgs/msg/Snapshot' -> text for an MCAP schema with encoding 'ros2msg'."""
    root = full_type.replace("/msg/", "/")
    text = _find_msg(root).read_text()
    parts, seen, queue = [text], {root}, _dependencies(root, text)
    while queue:
        dep = queue.pop(0)
        if dep in seen:
            continue
        seen.add(dep)
        dep_text = _find_msg(dep).read_text()
        parts.append(f"{_SEPARATOR}\nMSG: {dep}\n{dep_text}")
        queue += _dependencies(dep, dep_text)
    return "\n".join(parts)
