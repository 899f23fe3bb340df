"""Rewrite the include paths baked into the ROS wheels' CMake exports.

The ros-*-msgs wheels were built on a machine whose Python lived in /opt/python/cp3X-cp3X;
their *__rosidl_generator_pyExport.cmake files name its include dirs, which makes every
downstream interface build fail. Point them at this interpreter's and numpy's includes.
Files that name another venv's numpy (a wheel cache that was patched in place once) are
rewritten too, and every file is replaced, never written through: a hard link into a
package cache must not carry this venv's paths to the next one.
"""
from __future__ import annotations

import re
import sys
import sysconfig
from pathlib import Path

import numpy

# manylinux's Python, or any numpy include directory (this venv's is left as it is)
BAKED = re.compile(r"/opt/python/cp3\d+-cp3\d+[^;\"]*|[^;\"]*/site-packages/numpy/(?:_core|core)/include")


def replacement(match: re.Match[str]) -> str:
    path = match.group(0)
    if "numpy" in path:
        return numpy.get_include()
    return sysconfig.get_paths()["include"]


def main(venv: str) -> int:
    changed = 0
    for cmake in Path(venv, "share").glob("*/cmake/*.cmake"):
        text = cmake.read_text()
        if "/opt/python/" not in text and "/numpy/" not in text:
            continue
        fixed = BAKED.sub(replacement, text)
        if fixed == text:
            continue
        cmake.unlink()  # a new file: a hard-linked original stays as it was
        cmake.write_text(fixed)
        changed += 1
    print(f"[setup] CMake path fix: {changed} file(s) patched")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
