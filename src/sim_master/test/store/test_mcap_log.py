"""The replay log survives a killed server: a writer SIGKILLed mid-run leaves a file whose
cycles read back up to at most one second (50 cycles) before the kill, and `soccersim repair`
makes of it a complete MCAP file that the standard MCAP reader opens."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sim_master.store.mcap_log import ReplayLogReader

WRITER = '''
import os, sys, time
from rosgraph_msgs.msg import Clock
from sim_physics.engine.mujoco.engine import MujocoEngine
from sim_master.ros.convert import snapshot_to_msg, stamp
from rclpy.serialization import serialize_message
from sim_master.store.mcap_log import ReplayLogWriter
engine = MujocoEngine(vision_noise=False)
engine.add_robot("left_1", "nao", -2.0, 0.0, 0.0)
engine.set_joint_velocities("left_1", {"he1": 1.0})
log = ReplayLogWriter(sys.argv[1], serialize_message)
for _ in range(100000):
    engine.step()
    snap = engine.snapshot() if log.wants_keyframe() else engine.delta()
    log.write_cycle(engine.cycle, engine.time, snapshot_to_msg(snap), None, [], Clock(clock=stamp(engine.time)))
    with open(sys.argv[2] + ".tmp", "w") as progress:
        progress.write(str(engine.cycle))
    os.replace(sys.argv[2] + ".tmp", sys.argv[2])  # atomic: the test never reads half a number
    time.sleep(0.001)
'''


def test_a_killed_writer_loses_at_most_one_second(tmp_path: Path) -> None:
    log, progress = tmp_path / "run.mcap", tmp_path / "progress"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(log), str(progress)], env=dict(os.environ))
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if progress.exists() and progress.read_text() and int(progress.read_text()) >= 330:
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    written = int(progress.read_text())
    cycles = list(ReplayLogReader(str(log)).cycles())
    assert cycles, "nothing could be read back"
    assert written - cycles[-1].step <= 50
    assert [c.step for c in cycles] == list(range(1, cycles[-1].step + 1))
    assert "left_1" in cycles[-1].snapshot.entities

    from mcap.reader import make_reader

    with open(log, "rb") as f:  # a crashed file: no footer, no summary for the standard reader
        try:
            summary = make_reader(f).get_summary()
        except Exception:  # noqa: BLE001 - the reader's own errors for a cut file
            summary = None
        assert summary is None
    repaired = tmp_path / "run.repaired.mcap"
    result = subprocess.run([sys.executable, "-m", "sim_master.cli", "repair", str(log)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "had no footer" in result.stdout and str(repaired) in result.stdout
    with open(repaired, "rb") as f:
        reader = make_reader(f)
        summary = reader.get_summary()
        assert summary is not None and summary.statistics is not None
        snapshots = [m for _, _, m in reader.iter_messages(topics=["/entity_states"])]
    assert len(snapshots) == len(cycles)
    assert [c.step for c in ReplayLogReader(str(repaired)).cycles()] == [c.step for c in cycles]


def test_players_percepts_and_commands_in_the_log_on_request(running_server: Callable[..., Any],
                                                             tmp_path: Path) -> None:
    """--log-players: each player's percepts and joint commands on its own topics, decodable."""
    from sim_bridge.clients import SimSparkAgent

    log = tmp_path / "players.mcap"
    with running_server(log_path=str(log), log_players=True) as server:
        agent = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Alpha", 4)
        agent.join()
        for _ in range(20):
            agent.act({"he1": 1.0})
    by_topic: dict[str, list] = {}
    for topic, _, msg in ReplayLogReader(str(log)).messages():
        by_topic.setdefault(topic, []).append(msg)
    percepts, commands = by_topic["/Alpha/p4/percept"], by_topic["/Alpha/p4/effectors/joint_command"]
    assert len(percepts) >= 15 and "hj1" in list(percepts[-1].joint_names) and percepts[-1].side == "left"
    assert commands and list(commands[-1].names) == ["he1"] and commands[-1].velocities[0] == 1.0


def test_a_cycle_reads_back_with_its_own_game_state_and_events(tmp_path: Path) -> None:
    """The first cycle of a replay knows the teams (the page drew grey robots until one step),
    and each cycle's events come with it."""
    from rclpy.serialization import serialize_message
    from rosgraph_msgs.msg import Clock
    from sim_physics.engine.mujoco.engine import MujocoEngine

    from sim_master.ros.convert import snapshot_to_msg, stamp
    from sim_master.store.mcap_log import ReplayLogWriter
    from sim_msgs.msg import GameEvent, GameState

    engine = MujocoEngine(vision_noise=False)
    engine.add_robot("Alpha/p1", "nao", -2.0, 0.0, 0.0)
    path = tmp_path / "teams.mcap"
    log = ReplayLogWriter(str(path), serialize_message)
    for cycle in range(1, 6):
        engine.step()
        state = GameState(team_left="Alpha", team_right="Beta", game_time=engine.time) if cycle in (1, 4) else None
        events = [GameEvent(kind="foul", team="left", unum=1, detail="charging")] if cycle == 3 else []
        snap = engine.snapshot() if log.wants_keyframe() else engine.delta()
        log.write_cycle(engine.cycle, engine.time, snapshot_to_msg(snap), state, events,
                        Clock(clock=stamp(engine.time)))
    log.close()
    cycles = list(ReplayLogReader(str(path)).cycles())
    assert [c.step for c in cycles] == [1, 2, 3, 4, 5]
    assert cycles[0].game_state is not None and cycles[0].game_state.team_left == "Alpha"
    assert [len(c.events) for c in cycles] == [0, 0, 1, 0, 0]


def _log_of(path: Path, cycles: int) -> None:
    from rclpy.serialization import serialize_message
    from rosgraph_msgs.msg import Clock
    from sim_physics.engine.mujoco.engine import MujocoEngine

    from sim_master.ros.convert import snapshot_to_msg, stamp
    from sim_master.store.mcap_log import ReplayLogWriter

    engine = MujocoEngine(vision_noise=False)
    engine.add_robot("left_1", "nao", -2.0, 0.0, 0.0)
    log = ReplayLogWriter(str(path), serialize_message)
    for _ in range(cycles):
        engine.step()
        snap = engine.snapshot() if log.wants_keyframe() else engine.delta()
        log.write_cycle(engine.cycle, engine.time, snapshot_to_msg(snap), None, [], Clock(clock=stamp(engine.time)))
    log.close()


def test_every_damaged_log_is_one_line_and_plays_what_is_readable(tmp_path: Path) -> None:
    """Issue 42: six kinds of damaged file gave tracebacks. Each now gives one line saying what
    is damaged, and the cycles before (and after a damaged chunk) are played."""
    good = tmp_path / "good.mcap"
    _log_of(good, 1000)
    data = good.read_bytes()
    n = len(data)
    chunk_at = data.find(b"\x06", n // 2)  # somewhere in a chunk: a few bytes of it flipped
    damaged = {
        "cut_mid": (data[:n // 2], True),
        "cut_at_end": (data[:-37], True),
        "zeroed": (data[:n // 2] + b"\0" * 4000 + data[n // 2 + 4000:], True),
        "flipped": (data[:chunk_at + 400] + bytes(b ^ 0x5A for b in data[chunk_at + 400:chunk_at + 420])
                    + data[chunk_at + 420:], True),
        "garbage_tail": (data[:2 * n // 3] + os.urandom(3000), True),
        "header_only": (data[:8], False),
        "empty": (b"", False),
        "not_mcap": (b"(scene rsg/agent/nao.rsg)" * 100, False),
    }
    for name, (body, playable) in damaged.items():
        path = tmp_path / f"{name}.mcap"
        path.write_bytes(body)
        run = subprocess.run([sys.executable, "-m", "sim_master.cli", "replay", str(path), "--speed", "0",
                              "--no-ros", "--simspark-monitor-port", "-1", "--rcsssmj-monitor-port", "-1"],
                             capture_output=True, text=True, timeout=120)
        assert "Traceback" not in run.stderr, (name, run.stderr[-2000:])
        said = [line for line in run.stderr.splitlines() if line.startswith("soccersim replay:")]
        assert said, (name, run.stderr[-500:])
        if playable:
            played = int(run.stdout.strip().splitlines()[-1].split()[1])
            assert run.returncode == 0 and played > 0, (name, run.stdout[-300:], run.stderr[-500:])
            assert "damaged" in said[0], (name, said)
        else:
            assert run.returncode in (1, 2), (name, run.returncode)
        repaired = subprocess.run([sys.executable, "-m", "sim_master.cli", "repair", str(path), "--out",
                                   str(tmp_path / f"{name}.repaired.mcap")], capture_output=True, text=True,
                                  timeout=120)
        assert "Traceback" not in repaired.stderr, (name, repaired.stderr[-2000:])
        if playable:  # what repair salvages, replay reads as much of
            back = list(ReplayLogReader(str(tmp_path / f"{name}.repaired.mcap")).cycles())
            assert len(back) == played, (name, len(back), played)


def test_the_log_names_the_world_as_the_live_server_does_and_old_logs_still_read(
        tmp_path: Path, monkeypatch: Any) -> None:
    """The world's state is /entity_states in the log as live (it was /snapshot, issue 44);
    a log written under the old name replays the same."""
    from mcap.reader import make_reader
    from rclpy.serialization import serialize_message
    from rosgraph_msgs.msg import Clock
    from sim_physics.engine.mujoco.engine import MujocoEngine

    from sim_master.ros.convert import snapshot_to_msg, stamp
    from sim_master.store import mcap_log

    def write(path: Path) -> None:
        engine = MujocoEngine(vision_noise=False)
        engine.add_robot("left_1", "nao", -2.0, 0.0, 0.0)
        log = mcap_log.ReplayLogWriter(str(path), serialize_message)
        for _ in range(20):
            engine.step()
            snap = engine.snapshot() if log.wants_keyframe() else engine.delta()
            log.write_cycle(engine.cycle, engine.time, snapshot_to_msg(snap), None, [], Clock(clock=stamp(engine.time)))
        log.close()

    new, old = tmp_path / "new.mcap", tmp_path / "old.mcap"
    write(new)
    with open(new, "rb") as f:
        assert {c.topic for c in make_reader(f).get_summary().channels.values()} >= {"/entity_states"}
    with monkeypatch.context() as m:  # as a writer before issue 44 named it
        m.setattr(mcap_log, "SNAPSHOT_TOPIC", "/snapshot")
        m.setattr(mcap_log, "TOPICS", {("/snapshot" if k == "/entity_states" else k): v
                                       for k, v in mcap_log.TOPICS.items()})
        m.setattr(mcap_log, "QOS", {("/snapshot" if k == "/entity_states" else k): v for k, v in mcap_log.QOS.items()})
        write(old)
    with open(old, "rb") as f:
        assert "/snapshot" in {c.topic for c in make_reader(f).get_summary().channels.values()}
    steps = [[c.step for c in ReplayLogReader(str(p)).cycles()] for p in (new, old)]
    assert steps[0] == steps[1] == list(range(1, 21))


def test_a_full_disk_is_one_clear_error_and_the_caller_goes_on() -> None:
    """The writer's thread meets the disk's error (here /dev/full: every write fails); the
    loop hears it from its next call as one OSError naming the log, never a hang."""
    import pytest
    from rclpy.serialization import serialize_message
    from rosgraph_msgs.msg import Clock
    from sim_physics.engine.mujoco.engine import MujocoEngine

    from sim_master.ros.convert import snapshot_to_msg, stamp
    from sim_master.store.mcap_log import ReplayLogWriter

    engine = MujocoEngine(vision_noise=False)
    log = ReplayLogWriter("/dev/full", serialize_message, flush_every=5)
    with pytest.raises(OSError, match=r"replay log /dev/full: .*No space left"):
        for _ in range(200):
            engine.step()
            log.write_cycle(engine.cycle, engine.time, snapshot_to_msg(engine.snapshot()), None, [],
                            Clock(clock=stamp(engine.time)))
        log.flush()
    assert log.error is not None
    log.close()  # closes what it can, raises nothing more


def test_the_log_keeps_positions_to_micrometres(tmp_path: Path) -> None:
    """What the log rounds (store/log_precision.py) is below what any replay can show, and a
    replayed world reads back within it of the live one (deltas merged as a replay does)."""
    from rclpy.serialization import serialize_message
    from rosgraph_msgs.msg import Clock
    from sim_physics.engine.mujoco.engine import MujocoEngine

    from sim_master.ros.convert import stamp
    from sim_master.ros.snapshot_cdr import snapshot_cdr
    from sim_master.store.log_precision import POSITION_STEP, ROTATION_STEP, VELOCITY_STEP, vectors_for_log
    from sim_master.store.mcap_log import ReplayLogWriter

    assert POSITION_STEP <= 2 ** -16 and ROTATION_STEP <= 2 ** -20 and VELOCITY_STEP <= 2 ** -3  # 15 um, 2 urad
    engine = MujocoEngine(vision_noise=False)
    engine.add_robot("left_1", "nao", -2.0, 0.0, 0.0)
    engine.set_joint_velocities("left_1", {"he1": 1.0, "lae1": -2.0})
    path = tmp_path / "precise.mcap"
    log = ReplayLogWriter(str(path), serialize_message)
    live, memory = [], {}
    for _ in range(30):
        engine.step()
        live.append(engine.snapshot())
        capture, keyframe = engine.capture(), log.wants_keyframe()
        changed, removed = (capture.entities, ()) if keyframe else capture.changes(memory)
        log.write_cycle(engine.cycle, engine.time, snapshot_cdr(capture.step, capture.time, keyframe,
                                                                vectors_for_log(changed), removed),
                        None, [], Clock(clock=stamp(engine.time)))
    log.close()
    for cycle, snap in zip(ReplayLogReader(str(path)).cycles(), live, strict=True):
        assert set(cycle.snapshot.entities) == set(snap.entities)
        for name, e in snap.entities.items():
            r = cycle.snapshot.entities[name]
            assert r.joint_names == e.joint_names and r.model == e.model
            assert max(abs(a - b) for a, b in zip(e.position + e.joint_positions, r.position + r.joint_positions,
                                                   strict=True)) <= POSITION_STEP / 2
            assert max(abs(a - b) for a, b in zip(e.orientation, r.orientation, strict=True)) <= ROTATION_STEP / 2
            velocities = zip(e.joint_velocities + e.linear_velocity, r.joint_velocities + r.linear_velocity,
                             strict=True)
            assert max(abs(a - b) for a, b in velocities) <= VELOCITY_STEP / 2
