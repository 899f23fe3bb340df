"""A distributed world its nodes cannot build is refused by the master before it waits for
any node (issue 42: a pose of 1e308 crashed both nodes, 100 000 assets were waited for
silently): the world file's field bounds the poses, the placement speeds bound the drives,
and a world holds a bounded number of assets. `soccersim master` says the first problem in
one line and how many more there are."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sim_distributed.world_config import MAX_ASSETS, WorldConfig


def _world(assets: list[dict[str, object]]) -> WorldConfig:
    return WorldConfig.from_json(json.dumps({"world": "simspark_field", "assets": assets}))


def test_poses_drives_and_counts_are_checked_before_any_node_is_waited_for(tmp_path: Path) -> None:
    good = {"name": "r1", "owner": "node_a", "model": "pusher", "pose": [1.0, 2.0, 90.0]}
    assert _world([good]).problems() == []
    far = _world([{**good, "pose": [1e308, 0.0, 0.0]}]).problems()
    assert len(far) == 1 and "outside the world" in far[0]
    spin = _world([{**good, "pose": [0.0, 0.0, 1e300]}]).problems()
    assert len(spin) == 1 and "yaw" in spin[0]
    fast = _world([{**good, "drive": [1e9, 0.0]}]).problems()
    assert len(fast) == 1 and "drive" in fast[0]
    crowd = _world([{**good, "name": f"r{i}"} for i in range(100_000)]).problems()
    assert crowd == [f"100000 assets: a distributed world holds at most {MAX_ASSETS}"]

    config = tmp_path / "far.json"
    config.write_text(json.dumps({"world": "simspark_field", "assets": [{**good, "pose": [1e308, 0, 0]},
                                                                         {**good, "name": "r2", "drive": [1e9, 0]}]}))
    run = subprocess.run([sys.executable, "-m", "sim_master.cli", "master", "--config", str(config)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.strip().count("\n") == 0 and "outside the world" in run.stderr and "(and 1 more)" in run.stderr
