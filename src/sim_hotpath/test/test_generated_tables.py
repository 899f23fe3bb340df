"""The compiled encoders follow the messages and the contract through generated tables
(generate_tables.py): a field renamed in sim_msgs or in sim_contracts must fail the build,
not change the bytes. These tests generate the tables from edited copies of the declarations
and compile the encoders against them (syntax only: the compiler's name lookup is the point)."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1]
SRC = PACKAGE.parent
ROOT = SRC.parent
GENERATOR = PACKAGE / "generate_tables.py"
MSG_SHARE = ROOT / "install" / "sim_msgs" / "share" / "sim_msgs" / "msg"
BUILT_TABLES = ROOT / "build" / "sim_hotpath" / "generated" / "sim_hotpath_tables.hpp"


def _generate(msg_dir: Path, contracts: Path, out: Path) -> str:
    subprocess.run([sys.executable, str(GENERATOR), "--msg-dir", str(msg_dir), "--contracts", str(contracts),
                    "--out", str(out)], check=True, capture_output=True, text=True)
    return out.read_text(encoding="utf-8")


def _compile(tables_dir: Path, source: str) -> subprocess.CompletedProcess[str]:
    includes = subprocess.run([sys.executable, "-m", "pybind11", "--includes"], check=True, capture_output=True,
                              text=True).stdout.split()
    return subprocess.run(["g++", "-std=c++17", "-fsyntax-only", *includes, f"-I{tables_dir}",
                           str(PACKAGE / "src" / source)], capture_output=True, text=True)


@pytest.fixture
def declarations(tmp_path: Path) -> tuple[Path, Path]:
    """Copies of sim_msgs' installed messages and of sim_contracts' source, to edit."""
    if not MSG_SHARE.is_dir():
        pytest.fail("sim_msgs is not built: run make setup")
    msg_dir = tmp_path / "msg"
    shutil.copytree(MSG_SHARE, msg_dir)
    contracts = tmp_path / "sim_contracts_root"
    shutil.copytree(SRC / "sim_contracts" / "sim_contracts", contracts / "sim_contracts")
    return msg_dir, contracts


def test_the_built_tables_are_the_declarations_of_today(tmp_path: Path) -> None:
    """The build's header is what the generator writes from the sources now (the build is current)."""
    assert _generate(MSG_SHARE, SRC / "sim_contracts", tmp_path / "t.hpp") == BUILT_TABLES.read_text(encoding="utf-8")


def test_the_tables_list_each_message_in_its_order(tmp_path: Path) -> None:
    text = _generate(MSG_SHARE, SRC / "sim_contracts", tmp_path / "t.hpp")
    assert ("#define SIM_MSGS_HEARD_MESSAGE(F) F(time) F(from_self) F(from_teammate) F(direction) F(message) F(team)"
            in text)
    assert "static constexpr char torso_quaternion[] = \"torso_quaternion\";" in text
    assert '#define SIM_MSGS_PERCEPT_TYPE_HASH "RIHS01_' in text


def test_unchanged_declarations_compile(declarations: tuple[Path, Path], tmp_path: Path) -> None:
    msg_dir, contracts = declarations
    _generate(msg_dir, contracts, tmp_path / "gen" / "sim_hotpath_tables.hpp")
    for source in ("percept_cdr.cpp", "percept_from_cdr.cpp", "joint_command_cdr.cpp"):
        result = _compile(tmp_path / "gen", source)
        assert result.returncode == 0, result.stderr[-2000:]


def test_a_message_field_renamed_fails_the_build(declarations: tuple[Path, Path], tmp_path: Path) -> None:
    msg_dir, contracts = declarations
    percept = msg_dir / "Percept.msg"
    percept.write_text(percept.read_text(encoding="utf-8").replace(" gyro ", " gyroscope "), encoding="utf-8")
    _generate(msg_dir, contracts, tmp_path / "gen" / "sim_hotpath_tables.hpp")
    for source in ("percept_cdr.cpp", "percept_from_cdr.cpp"):
        result = _compile(tmp_path / "gen", source)
        assert result.returncode != 0 and "gyroscope" in result.stderr, source


def test_a_message_field_added_fails_the_build(declarations: tuple[Path, Path], tmp_path: Path) -> None:
    msg_dir, contracts = declarations
    command = msg_dir / "JointCommand.msg"
    command.write_text(command.read_text(encoding="utf-8") + "float64[] effort_limit\n", encoding="utf-8")
    _generate(msg_dir, contracts, tmp_path / "gen" / "sim_hotpath_tables.hpp")
    result = _compile(tmp_path / "gen", "joint_command_cdr.cpp")
    assert result.returncode != 0 and "effort_limit" in result.stderr


def test_a_contract_attribute_renamed_fails_the_build(declarations: tuple[Path, Path], tmp_path: Path) -> None:
    msg_dir, contracts = declarations
    module = contracts / "sim_contracts" / "percept.py"
    text = module.read_text(encoding="utf-8")
    module.write_text(text.replace("    accel: Vec3 =", "    acceleration: Vec3 ="), encoding="utf-8")
    _generate(msg_dir, contracts, tmp_path / "gen" / "sim_hotpath_tables.hpp")
    for source in ("simspark_text.cpp", "rcsssmj_text.cpp", "percept_cdr.cpp", "percept_from_cdr.cpp"):
        result = _compile(tmp_path / "gen", source)
        assert result.returncode != 0 and "accel" in result.stderr, source
