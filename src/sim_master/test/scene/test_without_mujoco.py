"""A world without MuJoCo still serves every monitor stream and replays its log: the scene
comes from the engine contract (`frames()`, model specs) and forward kinematics, never from a
MuJoCo copy of the world. Each half runs in a process where `import mujoco` fails."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from sim_physics.scene.kinematics import SnapshotFrames

NO_MUJOCO = "import sys\nsys.modules['mujoco'] = None  # import mujoco raises ImportError\n"

SERVE = NO_MUJOCO + textwrap.dedent('''
    import re, threading
    from sim_bridge.clients import LegacyClient, SimSparkAgent
    from sim_master.master.config import ServerConfig
    from sim_master.server.single import SingleModeServer

    server = SingleModeServer(ServerConfig(
        sync=True, realtime=False, simspark_port=0, rcsssmj_port=None, simspark_monitor_port=0,
        rcsssmj_monitor_port=0, service_port=None, ros=False, engine="ode", vision_noise=False,
        log_path=sys.argv[1]))
    server.start()
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    agent = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Alpha", 1)
    agent.join()
    rsmp = LegacyClient("127.0.0.1", server.monitor_servers["rcsssmj"].port)
    spark = LegacyClient("127.0.0.1", server.monitor_servers["simspark"].port)
    for _ in range(150):
        agent.act({"he1": 1.0, "lle1": -0.5})
    full = rsmp.receive()
    assert b"(nd DSC(agent Alpha 1)" in full and b"(nd DSC(ball)" in full, full[:300]
    assert b"(sg 1 0)diff" in rsmp.receive()
    sfull = spark.receive()
    assert b"matNum1 matLeft" in sfull and b"models/naohead" in sfull, sfull[:300]
    assert b"(RDS 0 1)" in spark.receive()
    assert "mujoco" not in {m.split(".")[0] for m, v in sys.modules.items() if v is not None}
    server.request_stop(); thread.join(10); server.close()
    print("served", len(full), len(sfull))
''')

REPLAY = NO_MUJOCO + textwrap.dedent('''
    import socket, subprocess, threading, time
    from sim_bridge.clients import LegacyClient
    from sim_master.cli import main

    ports = []
    for _ in range(2):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0)); ports.append(s.getsockname()[1])
    got = {}

    def watch(name, port):
        for _ in range(200):
            try:
                client = LegacyClient("127.0.0.1", port)
                break
            except OSError:
                time.sleep(0.05)
        frames = []
        try:
            while len(frames) < 80:  # the replay's frames until the player has joined
                frames.append(client.receive())
        except (OSError, ConnectionError):
            pass
        got[name] = frames
        client.close()

    watchers = [threading.Thread(target=watch, args=item) for item in zip(("simspark", "rcsssmj"), ports)]
    for w in watchers:
        w.start()
    code = main(["replay", sys.argv[1], "--speed", "1", "--no-ros", "--simspark-monitor-port", str(ports[0]),
                 "--rcsssmj-monitor-port", str(ports[1])])
    for w in watchers:
        w.join(10)
    assert code == 0, code
    spark, rsmp = got["simspark"], got["rcsssmj"]
    assert b"(RSG 0 1)" in spark[0] and any(b"(RDS 0 1)" in f for f in spark)
    assert any(b"matNum1 matLeft" in f and b"models/naohead" in f for f in spark)
    assert b"(sg 1 0)full" in rsmp[0] and b"(nd DSC(ball)" in rsmp[0]
    assert any(b"(nd DSC(agent Alpha 1)" in f for f in rsmp)
    assert "mujoco" not in {m.split(".")[0] for m, v in sys.modules.items() if v is not None}
    print("replayed")
''')


def _run(script: str, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=240,
                          env=dict(os.environ))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return proc.stdout


def test_ode_world_serves_both_monitor_streams_and_replays_without_mujoco(tmp_path: Path) -> None:
    log = tmp_path / "game.mcap"
    assert "served" in _run(SERVE, str(log))
    assert log.stat().st_size > 0
    assert "replayed" in _run(REPLAY, str(log))


def test_forward_kinematics_poses_every_link_as_the_engine_does() -> None:
    """The replay's links come from the snapshot's root pose and joint angles: the ODE
    engine's own link poses after a second of flailing joints, within its joints' slack."""
    import numpy as np
    from sim_physics.engine.factory import physics_engine

    engine = physics_engine("ode", "simspark_field", vision_noise=False)
    engine.add_robot("a", "nao0", 0.0, 0.0, 30.0)
    engine.add_robot("b", "nao3", 2.0, 1.0, -60.0)
    rng = np.random.default_rng(1)
    joints = ["he1", "he2", "lae1", "lae2", "rae3", "lle1", "lle4", "rle3", "rle5", "lle6"]
    for _ in range(50):
        engine.set_joint_velocities("a", {j: float(rng.uniform(-3, 3)) for j in joints})
        engine.step()
    specs = {m: engine.model_spec(m) for m in ("nao0", "nao3")}
    names, poses = engine.frames()
    ours_names, ours = SnapshotFrames(specs).frames(engine.snapshot().entities.values())
    assert sorted(ours_names) == sorted(names)
    mine = dict(zip(ours_names, ours, strict=True))
    for name, pose in zip(names, poses, strict=True):
        assert np.abs(mine[name][:3] - pose[:3]).max() < 0.005, name
        q, p = mine[name][3:], pose[3:]
        assert min(np.abs(q - p).max(), np.abs(q + p).max()) < 0.01, name
