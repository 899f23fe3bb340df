"""The $(...) substitutions of ROS 2 launch XML: var, env, find-pkg-share, find-pkg-prefix,
find-exec, dirname, filename, launch_log_dir, anon, command, eval, not, and, or, equals,
notequals, if. An unknown one is an error (it is never passed through as text).

Substitutions nest (`$(eval '$(var speed) * 2')`): the innermost resolve first. Arguments
are split like a shell's, so quoted strings may hold spaces and parentheses.
"""
from __future__ import annotations

import math
import os
import shlex
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Mapping

from ament_index_python.packages import PackageNotFoundError, get_package_prefix, get_package_share_directory

_TRUE = ("true", "1", "yes")
_FALSE = ("false", "0", "no")


# How many arguments a substitution needs, and what they are.
_NEEDS: dict[str, tuple[int, str]] = {
    "find-pkg-share": (1, "a package"), "find-pkg-prefix": (1, "a package"), "find-exec": (1, "an executable"),
    "anon": (1, "a name"), "command": (1, "a command"), "eval": (1, "an expression"), "not": (1, "a value"),
    "equals": (2, "two values"), "notequals": (2, "two values"), "if": (2, "a condition and a value"),
}


class SubstitutionError(ValueError):
    """An unknown substitution, a wrong argument or an undefined launch argument."""


def substitute(text: str, args: Mapping[str, str], *, this_dir: str = "", this_file: str = "") -> str:
    """`text` with every $(...) resolved, innermost first."""
    out: list[str] = []
    i = 0
    while i < len(text):
        start = text.find("$(", i)
        if start < 0:
            out.append(text[i:])
            break
        out.append(text[i:start])
        end = _closing(text, start + 2)
        inner = substitute(text[start + 2:end], args, this_dir=this_dir, this_file=this_file)
        out.append(_one(inner, args, this_dir, this_file))
        i = end + 1
    return "".join(out)


def _closing(text: str, i: int) -> int:
    """Index of the ')' that closes the substitution whose body starts at i."""
    depth, quote = 1, ""
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise SubstitutionError(f"unclosed substitution in {text!r}")


def _truth(value: str, what: str) -> bool:
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise SubstitutionError(f"$({what}) expects true or false, got {value!r}")


def _one(body: str, args: Mapping[str, str], this_dir: str, this_file: str) -> str:
    kind, _, rest = body.strip().partition(" ")
    try:
        parts = shlex.split(rest)
    except ValueError as exc:
        raise SubstitutionError(f"$({kind}): {exc}") from exc

    handlers: dict[str, Callable[[], str]] = {
        "var": lambda: _var(parts, args),
        "env": lambda: _env(parts),
        "find-pkg-share": lambda: _package(get_package_share_directory, parts[0]),
        "find-pkg-prefix": lambda: _package(get_package_prefix, parts[0]),
        "find-exec": lambda: _find_exec(parts[0]),
        "dirname": lambda: this_dir,
        "filename": lambda: os.path.basename(this_file),
        "launch_log_dir": _log_dir,
        "anon": lambda: f"{parts[0]}_{uuid.uuid4().hex[:12]}",
        "command": lambda: _command(rest),
        "eval": lambda: _eval(" ".join(parts)),
        "not": lambda: str(not _truth(parts[0], "not")).lower(),
        "and": lambda: str(all(_truth(p, "and") for p in parts)).lower(),
        "or": lambda: str(any(_truth(p, "or") for p in parts)).lower(),
        "equals": lambda: str(parts[0] == parts[1]).lower(),
        "notequals": lambda: str(parts[0] != parts[1]).lower(),
        "if": lambda: parts[1] if _truth(parts[0], "if") else (parts[2] if len(parts) > 2 else ""),
    }
    needs = _NEEDS.get(kind)
    if needs is not None and len(parts) < needs[0]:
        raise SubstitutionError(f"$({kind}) needs {needs[1]}")
    handler = handlers.get(kind)
    if handler is None:
        raise SubstitutionError(f"unsupported substitution $({kind}) (known: {', '.join(sorted(handlers))})")
    return handler()


def _var(parts: list[str], args: Mapping[str, str]) -> str:
    if not parts or parts[0] not in args:
        raise SubstitutionError(f"launch argument {parts[0] if parts else ''!r} is not defined")
    return args[parts[0]]


def _env(parts: list[str]) -> str:
    if not parts:
        raise SubstitutionError("$(env) needs a variable name")
    default = " ".join(parts[1:]) if len(parts) > 1 else None
    value = os.environ.get(parts[0], default)
    if value is None:
        raise SubstitutionError(f"environment variable {parts[0]!r} is not set")
    return value


def _package(find: Callable[[str], str], package: str) -> str:
    try:
        return find(package)
    except (PackageNotFoundError, LookupError, ValueError) as exc:
        raise SubstitutionError(f"package {package!r} not found") from exc


def _find_exec(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise SubstitutionError(f"executable {name!r} not found on PATH")
    return path


def _log_dir() -> str:
    path = os.environ.get("ROS_LOG_DIR") or os.path.join(tempfile.gettempdir(), "soccersim-launch")
    os.makedirs(path, exist_ok=True)
    return path


def _command(command: str) -> str:
    try:
        result = subprocess.run(shlex.split(command), capture_output=True, text=True, timeout=60)
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        raise SubstitutionError(f"$(command {command}): {exc}") from exc
    if result.returncode != 0:
        raise SubstitutionError(f"$(command {command}) failed ({result.returncode}): {result.stderr.strip()[:200]}")
    return result.stdout.strip()


def _eval(expression: str) -> str:
    """A Python expression over numbers, strings and `math`, as ros2 launch's $(eval)."""
    try:
        value = eval(expression, {"__builtins__": {}, "math": math}, {})
    except Exception as exc:
        raise SubstitutionError(f"$(eval {expression}): {type(exc).__name__}: {exc}") from exc
    return str(value).lower() if isinstance(value, bool) else str(value)
