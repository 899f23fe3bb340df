"""Rewrite the manylinux include paths baked into the ROS wheels' CMake exports.

The ros-*-msgs wheels were built on a machine whose Python lived in /opt/python/cp3X-cp3X;
their *__rosidl_generator_pyExport.cmake files name its include dirs, which makes every
downstream interface build fail. Point them at this interpreter's and numpy's includes.
"""
from __future__ import annotations

import re
import sys
import sysconfig
from pathlib import Path

import numpy

BAKED = re.compile(r"/opt/python/cp3\d+-cp3\d+[^;\"]*")


def replacement(match: re.Match[str]) -> str:
    path = match.group(0)
    if "numpy" in path:
        return numpy.get_include()
    return sysconfig.get_paths()["include"]


def main(venv: str) -> int:
    changed = 0
    for cmake in Path(venv, "share").glob("*/cmake/*.cmake"):
        text = cmake.read_text()
        if "/opt/python/" not in text:
            continue
        cmake.write_text(BAKED.sub(replacement, text))
        changed += 1
    print(f"[setup] CMake path fix: {changed} file(s) patched")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
