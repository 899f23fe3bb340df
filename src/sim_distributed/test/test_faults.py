"""Distributed runs that lose parts: redis-server killed mid-run (the master steps on without
the cache, writes the whole world again when it is back, and closes its log), a node whose
master is gone says so, and a second node under a live node's id is refused."""
from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

import lockstep_helpers as _lockstep  # src/sim_distributed/test on pythonpath
from mcap.reader import make_reader
from sim_distributed.redis_cache import SnapshotCache

from sim_master.store.mcap_log import ReplayLogReader

STEPS, Launch, finish, master, node, wait_for_step = (_lockstep.STEPS, _lockstep.Launch, _lockstep.finish,
                                                      _lockstep.master, _lockstep.node, _lockstep.wait_for_step)


def wait_for_line(proc: subprocess.Popen[str], text: str, timeout: float = 30.0) -> str:
    return _lockstep.wait_for_line(proc, lambda line: text in line, repr(text), timeout)


def test_redis_killed_mid_run_the_match_goes_on_and_the_log_closes(redis_process, tmp_path: Path,
                                                                    launch: Launch) -> None:
    run, report_path, log = uuid.uuid4().hex[:8], tmp_path / "outage.json", tmp_path / "outage.mcap"
    steps = 6 * STEPS  # long enough for Redis to come back before the end
    m = master(launch, redis_process.url, run, report_path, "--fresh", "--log", str(log), "--steps", str(steps))
    a, b = node(launch, redis_process.url, run, "A"), node(launch, redis_process.url, run, "B")
    wait_for_step(m, 100)
    redis_process.kill()
    wait_for_line(m, "the run goes on without the cache")
    wait_for_step(m, 400)  # steps on without its cache
    redis_process.start()  # same port, empty
    back = wait_for_line(m, "is back")
    finish(m, timeout=180)
    report = json.loads(report_path.read_text())
    assert report["step"] == steps and report["redis_outages"] == 1, back
    # back in Redis: the newest steps, on a keyframe written after the restart, and the registry
    cache = SnapshotCache(redis_process.url, run)
    latest = cache.latest()
    assert latest is not None and steps - 2 <= latest.step <= steps
    assert set(cache.nodes()) == {"A", "B"}
    # the log has every step and a summary the strict reader accepts
    assert [c.step for c in ReplayLogReader(str(log)).cycles()] == list(range(1, steps + 1))
    with open(log, "rb") as f:
        summary = make_reader(f, validate_crcs=True).get_summary()
    assert summary is not None and summary.statistics is not None and summary.statistics.message_count >= steps
    # the nodes, their master gone, say so
    for proc in (a, b):
        assert "master lost" in wait_for_line(proc, "no step from the master", timeout=20)


def test_second_node_under_a_live_id_is_refused(redis_server: str, tmp_path: Path, launch: Launch) -> None:
    run, report_path = uuid.uuid4().hex[:8], tmp_path / "twin.json"
    steps = 10 * STEPS  # the twin comes while the run is on
    m = master(launch, redis_server, run, report_path, "--fresh", "--steps", str(steps))
    node(launch, redis_server, run, "A")
    node(launch, redis_server, run, "B")
    wait_for_step(m, 100)
    twin = node(launch, redis_server, run, "B")
    out, _ = twin.communicate(timeout=60)
    assert twin.returncode == 1 and "id in use" in out and "Traceback" not in out, out[-2000:]
    finish(m, timeout=180)
    report = json.loads(report_path.read_text())
    assert report["step"] == steps and report["rejoins"] == []
