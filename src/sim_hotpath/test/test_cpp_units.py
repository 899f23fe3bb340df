"""The C++ unit tests (GoogleTest), built by colcon with their packages, run by make test: the
ODE world (src/sim_ode/test/test_ode_world.cpp) and the wire code (test_wire.cpp beside this
file). A binary that is missing means the workspace was built without them: make setup."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BINARIES = {"ode_world": ROOT / "build" / "sim_ode" / "test_ode_world",
            "wire": ROOT / "build" / "sim_hotpath" / "test_wire"}


@pytest.mark.parametrize("name", sorted(BINARIES))
def test_cpp_unit_tests_pass(name: str, tmp_path: Path) -> None:
    binary = BINARIES[name]
    assert binary.is_file(), f"{binary} is not built: run make setup"
    result = subprocess.run([str(binary), "--gtest_brief=1"], capture_output=True, text=True, timeout=300,
                            env={"TEST_TMPDIR": str(tmp_path) + "/", "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "PASSED" in result.stdout
