"""The linters hold over the workspace: ruff (ruff.toml) and mypy (mypy.ini) report nothing,
and every `type: ignore` left names its error code and says why on the same line."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
IGNORE = re.compile(r"#\s*type:\s*ignore(?P<codes>\[[^\]]+\])?(?P<rest>.*)$")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_reports_nothing() -> None:
    result = _run("ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_reports_nothing() -> None:
    result = _run("mypy", "--no-incremental")
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_type_ignore_has_a_code_and_a_reason() -> None:
    tracked = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    blanket = []
    for name in tracked:
        for number, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), 1):
            match = IGNORE.search(line)
            if match and (not match["codes"] or "#" not in match["rest"]):
                blanket.append(f"{name}:{number}: {line.strip()}")
    assert not blanket, "type: ignore without [code] and a reason:\n" + "\n".join(blanket)
