"""A clean start: the server, the referee and the bridge in their own processes, and a user's
rclpy probe subscribing to every topic they publish, print no rcutils error dump. Such dumps
("an error string ... will be truncated", "This error state is being overwritten", "Type
support not from this implementation") came from our interface packages built without the C
introspection type support (cmake/lean_interfaces.cmake): nothing failed, but every start read
as a broken install."""
from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from ros_processes import line as _line
from ros_processes import processes as _processes

from sim_bridge.clients import SimSparkAgent

PROBE = Path(__file__).with_name("topic_probe_process.py")
DUMP = re.compile(r"rcutils|error string|error state|Type support not from|typesupport identifier|Traceback")


def _probe(seconds: float) -> tuple[dict[str, int], str]:
    proc = subprocess.run([sys.executable, str(PROBE), str(seconds)], capture_output=True, text=True,
                          timeout=seconds + 60)
    counts = {line.split()[0]: int(line.split()[1]) for line in proc.stdout.splitlines() if line.strip()}
    return counts, proc.stderr


def test_the_composed_server_and_a_probe_of_every_topic_print_no_error_dump(
        tmp_path: Path, port_picker: Callable[[], int]) -> None:
    port = port_picker()
    with _processes(tmp_path, ["soccersim", "server", "--simspark-port", str(port), "--rcsssmj-port", "-1",
                               "--simspark-monitor-port", "-1", "--rcsssmj-monitor-port", "-1",
                               "--service-port", "-1", "--web-port", "-1", "--draw-port", "-1"]):
        log = tmp_path / "soccersim.log"
        _line(log, r"ROS 2 nodes")
        agent = SimSparkAgent("127.0.0.1", port, "Alpha", 1)  # a robot: its description, its tf
        agent.join()
        try:
            _line(log, r"is Alpha #1", timeout=30)
            counts, probe_err = _probe(6.0)
        finally:
            agent.close()
        server_err = log.read_text(errors="replace")
    assert counts.get("/clock", 0) > 0 and counts.get("/game_state", 0) > 0, counts
    assert any(t.endswith("robot_description") and n > 0 for t, n in counts.items()), counts
    assert not DUMP.search(probe_err), probe_err[:3000]
    assert not DUMP.search(server_err), server_err[:3000]


def test_the_three_nodes_apart_print_no_error_dump(tmp_path: Path) -> None:
    with _processes(tmp_path, ["simulation_node", "--sync", "--simspark-monitor-port", "-1",
                               "--rcsssmj-monitor-port", "-1", "--service-port", "-1", "--web-port", "-1",
                               "--draw-port", "-1"],
                    ["referee_node"],
                    ["bridge_node", "--ros-args", "-p", "simspark_port:=0", "-p", "rcsssmj_port:=-1"]):
        _line(tmp_path / "simulation_node.log", r"mode: sync")
        _line(tmp_path / "referee_node.log", r"judging soccersim")
        _line(tmp_path / "bridge_node.log", r"simspark agents")
        counts, probe_err = _probe(4.0)
        logs = {name: (tmp_path / f"{name}.log").read_text(errors="replace")
                for name in ("simulation_node", "referee_node", "bridge_node")}
    assert counts.get("/game_state", 0) > 0, counts
    assert not DUMP.search(probe_err), probe_err[:3000]
    for name, text in logs.items():
        assert not DUMP.search(text), (name, text[:3000])
