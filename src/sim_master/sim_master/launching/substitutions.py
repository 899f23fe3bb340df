"""The $(...) substitutions of ROS 2 launch XML that our files use."""
from __future__ import annotations

import os
import re
from collections.abc import Mapping

from ament_index_python.packages import get_package_share_directory

_SUBST = re.compile(r"\$\((?P<kind>[a-z-]+)(?:\s+(?P<args>[^()]*))?\)")


class SubstitutionError(ValueError):
    """An unknown substitution or an undefined launch argument."""


def substitute(text: str, args: Mapping[str, str], *, this_dir: str = "") -> str:
    """Resolve $(var), $(env), $(find-pkg-share), $(dirname) until none is left."""

    def one(match: re.Match[str]) -> str:
        kind = match.group("kind")
        parts = (match.group("args") or "").split()
        if kind == "var":
            if not parts or parts[0] not in args:
                raise SubstitutionError(f"launch argument {parts[0] if parts else ''!r} is not defined")
            return args[parts[0]]
        if kind == "env":
            if not parts:
                raise SubstitutionError("$(env) needs a variable name")
            default = " ".join(parts[1:]) if len(parts) > 1 else None
            value = os.environ.get(parts[0], default)
            if value is None:
                raise SubstitutionError(f"environment variable {parts[0]!r} is not set")
            return value
        if kind == "find-pkg-share":
            return get_package_share_directory(parts[0])
        if kind == "dirname":
            return this_dir
        raise SubstitutionError(f"unsupported substitution $({kind})")

    for _ in range(10):  # nested substitutions resolve inside out
        new = _SUBST.sub(one, text)
        if new == text:
            return new
        text = new
    return text
