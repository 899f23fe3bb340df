"""A distributed run with a world it cannot play stops with the reason, never waits for ever
(issue 26): the master checks the world before any node is waited for, and a node that
cannot build what it was given tells the master, which stops with that node's reason."""
from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

Launch = Callable[..., subprocess.Popen[str]]
PUSHER = {"name": "p1", "model": "pusher", "owner": "A", "pose": [-6, 2, 0]}


@pytest.mark.parametrize("world, said", [
    ({"world": "no_such_field", "assets": [PUSHER]}, "world 'no_such_field'"),
    ({"world": "simspark_field", "assets": [{**PUSHER, "pose": [float("nan"), 0, 0]}]}, "finite"),
    ({"world": "simspark_field", "assets": [{**PUSHER, "model": "robot9"}]}, "unknown model 'robot9'"),
    ({"world": "simspark_field", "assets": [PUSHER, {**PUSHER, "owner": "B"}]}, "appears twice"),
    ("{not json", "not a world config"),
])
def test_the_master_refuses_an_unplayable_world_with_one_line(tmp_path: Path, launch: Launch, world: object,
                                                              said: str) -> None:
    config = tmp_path / "world.json"
    config.write_text(world if isinstance(world, str) else json.dumps(world))
    master = launch("sim_distributed.master", "--config", str(config), "--redis", "redis://127.0.0.1:1/0")
    out, _ = master.communicate(timeout=60)
    assert master.returncode == 2, out
    assert said in out and "Traceback" not in out, out
    assert out.strip().splitlines()[-1].startswith("soccersim master: "), out


def test_a_node_that_cannot_build_its_world_stops_the_master_with_its_reason(redis_server: str, tmp_path: Path,
                                                                            launch: Launch) -> None:
    config = tmp_path / "world.json"  # a behaviour tree the SimPy node cannot read
    config.write_text(json.dumps({"world": "simspark_field", "bt_xml": "<root><BehaviorTree ID='x'><Unknown/>",
                                  "assets": [PUSHER]}))
    run = uuid.uuid4().hex[:8]
    master = launch("sim_distributed.master", "--config", str(config), "--redis", redis_server,
                    "--run", run, "--steps", "100")
    node = launch("sim_distributed.sim_node", "--id", "A", "--redis", redis_server, "--run", run,
                  "--engine", "simpy")
    out, _ = master.communicate(timeout=90)
    node_out, _ = node.communicate(timeout=30)
    assert master.returncode == 1, out
    assert "node A stopped:" in out and "Traceback" not in out, out
    assert node.returncode == 1, node_out
