"""A user's mistake on `soccersim server` is one clear line and exit status 2, never a
traceback: a busy port (naming its flag), a port out of range, an unknown world or rule book.
A busy browser-monitor port is only a warning: the match goes on without the viewer."""
from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

FREE = ["--simspark-port", "0", "--rcsssmj-port", "0", "--simspark-monitor-port", "0",
        "--rcsssmj-monitor-port", "0", "--service-port", "0", "--web-port", "-1"]


def server(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sim_master.cli", "server", "--no-ros", "--max-cycles", "5",
                           *FREE, *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def test_a_busy_agent_port_names_its_flag(busy_port: int) -> None:
    result = server("--rcsssmj-port", str(busy_port))
    assert result.returncode == 2
    expected = f"--rcsssmj-port {busy_port}: cannot listen on 127.0.0.1:{busy_port} (Address already in use)"
    assert result.stderr.strip().splitlines()[-1] == f"soccersim server: {expected}"
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args, line", [
    (("--simspark-port", "70000"), "argument --simspark-port: 70000 is outside 0..65535 (-1 turns the port off)"),
    (("--world", "nowhere"), "soccersim server: world 'nowhere' not found (available: "),
    (("--rules", "nope"),
     "soccersim server: unknown rule book 'nope' (known: simspark, rcssserver3d, simspark-swap, fifa, ssim)"),
    (("--physics-threads", "0"), "argument --physics-threads: 1..16 threads, not 0"),
    (("--engine", "mujoco", "--physics-threads", "2"),
     "soccersim server: physics threads apply to ODE (engine auto or ode), not to mujoco"),
    (("--sync-timeout", "nan"), "argument --sync-timeout: 0.001..3600 s, not nan"),
])
def test_mistakes_are_one_line(args: tuple[str, ...], line: str) -> None:
    result = server(*args)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert line in result.stderr.strip().splitlines()[-1]


def test_a_busy_browser_monitor_port_is_a_warning(busy_port: int) -> None:
    result = server("--web-port", str(busy_port))
    assert result.returncode == 0, result.stderr
    assert "browser monitor: cannot listen" in result.stderr and "going on without it (--web-port)" in result.stderr
    assert "stopped after 5 cycles" in result.stdout


def test_a_broken_params_file_is_one_line(tmp_path) -> None:
    params = tmp_path / "params.yaml"
    params.write_text("soccersim:\n  ros__parameters:\n    sync: [true\n  : : :\n")
    result = subprocess.run([sys.executable, "-m", "sim_master.cli", "server", "--max-cycles", "5", *FREE,
                             "--ros-args", "--params-file", str(params)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("soccersim server: --ros-args not understood")


@pytest.mark.parametrize("content", [b"", b"hello, not a log\n", bytes(range(256)) * 40])
def test_replaying_a_file_that_is_no_log_is_one_line(tmp_path, content: bytes) -> None:
    path = tmp_path / "x.mcap"
    path.write_bytes(content)
    result = subprocess.run([sys.executable, "-m", "sim_master.cli", "replay", str(path), "--no-ros",
                             "--simspark-monitor-port", "0", "--rcsssmj-monitor-port", "0"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith(f"soccersim replay: {path}: ")


@pytest.mark.parametrize("args, code, line", [
    (("--simspark", "nonsense"), 2,
     "soccersim team: --simspark wants HOST:PORT (e.g. 127.0.0.1:3100) and the base team"),
    (("--simspark", "127.0.0.1:1"), 1, "soccersim team: cannot reach 127.0.0.1:1: "),
    (("--until-game-over",), 2, "soccersim team: --until-game-over goes with --simspark HOST:PORT"),
    (("--simspark", "127.0.0.1:1", "--robot-types", "0,7"), 2,
     "soccersim team: --robot-types wants nao_hetero types 0-4 separated by commas"),
    (("--behaviour", "demo", "--robot-types", "0,1"), 2, "soccersim team: --robot-types is for the base team"),
    (("--robot-types", "5"), 2, "soccersim team: --robot-types wants nao_hetero types 0-4"),
])
def test_a_team_told_a_bad_simspark_server_says_so_in_one_line(args: tuple[str, ...], code: int, line: str) -> None:
    result = subprocess.run([sys.executable, "-m", "sim_master.cli", "team", "--team", "Alpha", *args],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == code
    assert result.stderr.strip().splitlines()[-1].startswith(line) and "Traceback" not in result.stderr
