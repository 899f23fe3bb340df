"""Sync-mode throughput of `soccersim server` with N minimal SimSpark agents of our own
(Nao types 0,1,1,1,2,3,3,3,4,4,4 per team; each answers every perception with a full
command, every joint swinging +-0.2 rad/s so no robot falls asleep, and (syn)), as fast as
possible.

One JSON object per line (`--engine gazebo`: our server on gz-physics): server, engine,
agents, cycles_per_s, cpu_ms_per_cycle (server process),
rss_mb (server), join_s (until every agent got its unum), and phase_ms_per_cycle: the
server's own counters per phase of its loop (collect, apply, physics, judge, hear, vision,
perceive, publish), read from its text service port; `--profile DIR`: py-spy's samples of
the server, summarised per phase and per function. Targets (issue 17): 22 agents at
>= 250 cycles/s, server CPU per cycle <= 1.3x the engine's step, < 300 MB, joined in < 1 s;
1 agent >= 1500 cycles/s. Agents run in worker processes (selectors), so
the client side is not the bottleneck... as far as the cores allow: the agents' own CPU per
cycle is printed too (agents_cpu_ms_per_cycle), with the machine's core count."""
from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing as mp
import os
import queue
import re
import selectors
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable

import psutil

T1_ACTUATORS = ("he1", "he2", "lae1", "lae2", "lae3", "lae4", "rae1", "rae2", "rae3", "rae4", "te1", "lle1",
                "lle2", "lle3", "lle4", "lle5", "lle6", "rle1", "rle2", "rle3", "rle4", "rle5", "rle6")
NAO_PD = ("he1", "he2", "lae1", "lae2", "lae3", "lae4", "rae1", "rae2", "rae3", "rae4", "lle1", "lle2", "lle3",
          "lle4", "lle5", "lle6", "rle1", "rle2", "rle3", "rle4", "rle5", "rle6")
NAO_HINGES = ("he1", "he2", "lae1", "lae2", "lae3", "lae4", "rae1", "rae2", "rae3", "rae4", "lle1", "lle2",
              "lle3", "lle4", "lle5", "lle6", "rle1", "rle2", "rle3", "rle4", "rle5", "rle6")


# The team: heterogeneous Nao types, one team's eleven, repeated for the other.
HETERO_TEAM = (0, 1, 1, 1, 2, 3, 3, 3, 4, 4, 4)


def speed_frame(speed: float, hinges: tuple[str, ...] = NAO_HINGES) -> bytes:
    reply = ("".join(f"({e} {speed:.1f})" for e in hinges) + "(syn)").encode()
    return struct.pack(">I", len(reply)) + reply


SCENARIOS = ("standing", "lying", "piled")
SYN = struct.pack(">I", 5) + b"(syn)"
NOW = re.compile(rb"\(now ([0-9.]+)\)")


def frames_for(robot_type: int, scenario: str = "standing") -> tuple[bytes, bytes]:
    """standing: every joint swings +-0.2 rad/s, one cycle each way: the robots stay awake (a
    team at rest would be asleep on ODE, as on rcssserver3d, and cost no physics) and stay where
    they are. lying and piled: every joint driven one way at 4 rad/s, as agents that fall do:
    the robots collapse and lie with their joints at the stops (piled: beamed 0.3 m apart, onto
    each other). Type 4 has toes (lle7, rle7)."""
    hinges = NAO_HINGES + ("lle7", "rle7") if robot_type == 4 else NAO_HINGES
    if scenario == "standing":
        return speed_frame(0.2, hinges), speed_frame(-0.2, hinges)
    return speed_frame(4.0, hinges), speed_frame(4.0, hinges)


def pile_beam(unum: int) -> bytes:
    """Where a piled scenario's player stands: a 4-wide grid 0.3 m apart by the centre line."""
    row, col = divmod(unum - 1, 4)
    return f"(beam {-0.25 - 0.3 * col:.2f} {-0.45 + 0.3 * row:.2f} 0)".encode()


def pd_frame(actuators: tuple[str, ...]) -> bytes:
    reply = ("".join(f"({a} 0 0 25 0.5 0)" for a in actuators) + "(syn)").encode()
    return struct.pack(">I", len(reply)) + reply


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def agents_worker(port: int, first_unum: int, count: int, window: mp.Array, joined: mp.Queue,
                  counts: mp.Queue, dialect: str = "simspark", model: str = "nao", scenario: str = "standing",
                  move_from: float | None = None) -> None:
    """Runs `count` agents; counts perceptions received inside the measuring window.
    move_from (s of game time): the agents join one after the other, each once the one before
    has its robot (the world's bodies are then made in the same order every run), only sync
    before it, so their robots settle and fall asleep, and from it every command follows the
    game's cycle: a run's state after a given cycle is then the same whatever the timing."""
    sel = selectors.DefaultSelector()
    pd_reply = pd_frame(T1_ACTUATORS if model == "T1" else NAO_PD)

    def pump() -> bool:
        """Answers what has arrived; False when the server has closed the connection."""
        start, end = window[0], window[1]
        for key, _ in sel.select(0.2):
            st = key.data
            try:
                data = key.fileobj.recv(1 << 20)
            except BlockingIOError:
                continue
            if not data:
                return False
            st["buf"] += data
            while len(st["buf"]) >= 4:
                (size,) = struct.unpack_from(">I", st["buf"])
                if len(st["buf"]) < 4 + size:
                    break
                payload = bytes(st["buf"][4:4 + size])
                del st["buf"][:4 + size]
                now = time.monotonic()
                if start and start <= now <= end:
                    st["n"] += 1
                if dialect == "simspark" and not st["inited"]:
                    beam = pile_beam(st["unum"]) if scenario == "piled" else b""
                    init = f"(init (unum {st['unum']})(teamname {st['team']}))".encode() + beam + b"(syn)"
                    key.fileobj.sendall(struct.pack(">I", len(init)) + init)
                    st["inited"] = True
                    continue
                if not st["joined"] and (b"(unum" in payload or dialect == "rcsssmj"):
                    st["joined"] = True
                    joined.put(now)
                st["replies"] += 1
                if dialect != "simspark":
                    key.fileobj.sendall(pd_reply)
                elif move_from is None:
                    key.fileobj.sendall(st["frames"][st["replies"] % 2])
                else:
                    game_now = NOW.search(payload)
                    game = float(game_now.group(1)) if game_now else 0.0
                    key.fileobj.sendall(st["frames"][round(game / 0.02) % 2] if game >= move_from else SYN)
        return True

    for i in range(count):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        n = first_unum + i
        team, unum = ("Alpha", n) if n <= 11 else ("Beta", n - 11)
        robot_type = HETERO_TEAM[(n - 1) % len(HETERO_TEAM)]
        if dialect == "simspark":
            msg = f"(scene rsg/agent/nao/nao_hetero.rsg {robot_type})".encode()
        else:
            msg = f"(init {model} {team} {unum})".encode()
        s.sendall(struct.pack(">I", len(msg)) + msg)
        s.setblocking(False)
        state = {"buf": bytearray(), "team": team, "unum": unum, "frames": frames_for(robot_type, scenario),
                 "inited": False, "joined": False, "n": 0, "replies": 0}
        sel.register(s, selectors.EVENT_READ, state)
        while move_from is not None and not state["joined"]:
            if not pump():
                return
    while True:
        end = window[1]
        if end and time.monotonic() > end:
            break
        if not pump():
            return
    counts.put([k.data["n"] for k in sel.get_map().values() if k.data is not None])
    for key in list(sel.get_map().values()):
        key.fileobj.close()


def drain_monitor(port: int, stop: threading.Event) -> None:
    """A monitor that reads every frame (as RoboViz would) until stopped."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.settimeout(0.2)
        while not stop.is_set():
            try:
                if not s.recv(1 << 20):
                    return
            except TimeoutError:
                continue


def start_soccersim(port: int, dialect: str, engine: str = "auto", threads: int = 1,
                    monitor_ports: bool = False, max_cycles: int | None = None,
                    extra: tuple[str, ...] = (), ros: bool = False) -> subprocess.Popen[str]:
    exe = shutil.which("soccersim")
    assert exe, "source install/setup.bash first"
    ports = ["--simspark-port", str(port), "--rcsssmj-port", "-1"] if dialect == "simspark" else \
        ["--simspark-port", "-1", "--rcsssmj-port", str(port)]
    service = free_port()
    monitor = free_port()
    env = dict(os.environ, ROS_DOMAIN_ID=str(free_domain_id()))  # the ROS node (when on) on a domain of its own
    server = subprocess.Popen([exe, "server", "--sync", *([] if ros else ["--no-ros"]), "--engine", engine,
                               "--physics-threads", str(threads) if threads else "auto", *ports,
                               *(["--max-cycles", str(max_cycles)] if max_cycles else []),
                               "--grpc-port", "0", *extra,  # the API on as by default, on a free port
                               "--simspark-monitor-port", str(monitor) if monitor_ports else "-1",
                               "--rcsssmj-monitor-port", str(free_port()) if monitor_ports else "-1",
                               "--service-port", str(service), "--web-port", "-1"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    assert server.stdout is not None
    while not (line := server.stdout.readline()).startswith("mode:"):
        if not line:
            raise RuntimeError(f"soccersim server exited with {server.wait()} before it was ready")
    server.service_port = service  # type: ignore[attr-defined]  # where its counters are read
    server.monitor_port = monitor  # type: ignore[attr-defined]  # the SimSpark monitor port, when open
    return server


def free_domain_id() -> int:
    """A ROS domain no other run of this machine is likely to use (tests take theirs likewise)."""
    return 100 + os.getpid() % 100


def start_rcssserver3d(prefix: str, port: int) -> subprocess.Popen[str]:
    """rcssserver3d as built from its sources into `prefix`: single-threaded, sync mode, no
    real-time pacing, no internal monitor, no log, with a private HOME holding those settings
    (its own scripts read ~/.simspark/spark.rb). Its monitor port is free and unused."""
    workdir = tempfile.mkdtemp(prefix="rcssserver3d-")
    home = os.path.join(workdir, "home")
    os.makedirs(os.path.join(home, ".simspark"))
    settings = {"serverMultiThreadedMode": "false", "threadedAgentControl": "false", "agentSyncMode": "true",
                "enableRealTimeMode": "false", "enableInternalMonitor": "false", "recordLogfile": "false"}
    for script, out in (("share/simspark/spark.rb", os.path.join(home, ".simspark", "spark.rb")),
                        ("share/rcssserver3d/rcssserver3d.rb", os.path.join(workdir, "rcssserver3d.rb"))):
        with open(os.path.join(prefix, script)) as f:
            text = f.read()
        for name, value in settings.items():
            text = re.sub(rf"^\${name} = \w+", f"${name} = {value}", text, flags=re.M)
        with open(out, "w") as f:
            f.write(text)
    libs = [os.path.join(prefix, d) for d in ("lib/simspark", "lib/rcssserver3d", "lib")]
    env = dict(os.environ, HOME=home, LD_LIBRARY_PATH=":".join(libs + [os.environ.get("LD_LIBRARY_PATH", "")]))
    server = subprocess.Popen([os.path.join(prefix, "bin", "rcssserver3d"), "--script-path",
                               os.path.join(workdir, "rcssserver3d.rb"), "--agent-port", str(port),
                               "--server-port", str(free_port())], cwd=workdir, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    return listening(server, port, f"rcssserver3d under {prefix}")


def listening(server: subprocess.Popen[str], port: int, name: str) -> subprocess.Popen[str]:
    """The reference server once its agent port takes a connection (killed after 60 s)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and server.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError(f"{name} did not start")


def reproduce(n_agents: int, threads: int, scenario: str, engine: str = "auto", move_from: float = 60.0,
              moving_cycles: int = 1000) -> dict[str, object]:
    """A run whose end state is fixed: the agents move from `move_from` s of game time on (every
    robot has joined and fallen asleep by then: joins take about 1000 fast sync cycles), the
    server stops itself `moving_cycles` later and says its state hash (snapshot.py's digest)."""
    cycles = round(move_from / 0.02) + moving_cycles
    port = free_port()
    # beam noise off: it is drawn in the order players join, which is the run's timing
    server = start_soccersim(port, "simspark", engine, threads, max_cycles=cycles, extra=("--no-beam-noise",))
    window = mp.Array("d", [0.0, 0.0])
    joined: mp.Queue = mp.Queue()
    counts: mp.Queue = mp.Queue()
    start = time.monotonic()
    # one worker joining its agents one by one: the same joining order every run
    workers = [mp.Process(target=agents_worker, args=(port, 1, n_agents, window, joined, counts, "simspark", "nao",
                                                      scenario, move_from))]
    workers[0].start()
    joins = [joined.get(timeout=300) for _ in range(n_agents)]
    assert server.stdout is not None
    out, _ = server.communicate(timeout=3600)
    wall = time.monotonic() - start
    for w in workers:
        w.join(10)
        if w.is_alive():
            w.kill()
    found = re.search(r"stopped after (\d+) cycles, state (\w+)", out)
    assert found, out[-500:]
    return {"server": "soccersim", "engine": engine, "scenario": scenario, "physics_threads": threads,
            "agents": n_agents, "cycles": int(found.group(1)), "moving_from_cycle": round(move_from / 0.02),
            "state_hash": found.group(2), "join_s": round(max(joins) - start, 2), "wall_s": round(wall, 2),
            "cores": os.cpu_count()}


def server_stats(port: int) -> dict:
    """The server's own counters (cycles, seconds per phase) from its text service port."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        f = s.makefile("rw")
        f.write("stats simulation stats\n")
        f.flush()
        answer = f.readline().split(" ", 2)
    assert answer[1] == "SUCCESS", answer
    return json.loads(answer[2])


def rcsssmj_venv() -> str:
    """The venv holding rcsssmj 0.2.1 (made on first use, apart from ours: it pins its own MuJoCo)."""
    venv = os.path.join(tempfile.gettempdir(), "soccersim-bench-rcsssmj")
    if not os.path.exists(os.path.join(venv, "bin", "rcssservermj")):
        env = {k: v for k, v in os.environ.items() if k != "_ROS_WHEELS_BOOTSTRAP_COMPLETE"}
        subprocess.run(["python3.11", "-m", "venv", venv], check=True, env=env)
        subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "rcsssmj==0.2.1"], check=True, env=env)
    return venv


def start_rcsssmj(port: int) -> subprocess.Popen[str]:
    """rcsssmj 0.2.1 from its own venv, lock-step, no viewer."""
    exe = os.path.join(rcsssmj_venv(), "bin", "rcssservermj")
    workdir = tempfile.mkdtemp(prefix="rcsssmj-")  # it writes console.log into its cwd
    env = {k: v for k, v in os.environ.items() if k not in ("_ROS_WHEELS_BOOTSTRAP_COMPLETE", "LD_LIBRARY_PATH")}
    server = subprocess.Popen([exe, "--no-render", "--no-realtime", "--sync", "--rules", "fifa", "--aport", str(port),
                               "--mport", str(free_port())], cwd=workdir, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    return listening(server, port, "rcsssmj")


def run(n_agents: int, seconds: float, server_name: str = "soccersim", dialect: str = "simspark",
        model: str = "nao", engine: str = "auto", profile: str | None = None, threads: int = 1,
        monitor_ports: bool = False, monitor: bool = False, scenario: str = "standing", ros: bool = False,
        rcss_prefix: str = "", log: bool = False, extra: tuple[str, ...] = (),
        clients: Callable[[], Callable[[], dict[str, object]]] | None = None) -> dict[str, object]:
    """`clients`: started once every agent joined (before the measured window), it returns
    what stops them and says what they did (bench_grpc.py's API readers)."""
    port = free_port()
    log_path = os.path.join(tempfile.mkdtemp(prefix="bench-log-"), "match.mcap") if log else None
    if server_name == "rcsssmj":
        server = start_rcsssmj(port)
    elif server_name == "rcssserver3d":
        server = start_rcssserver3d(rcss_prefix, port)
        time.sleep(1.0)  # its port opens before its scene is ready: agents that come at once may hang
    else:
        server = start_soccersim(port, dialect, engine, threads, monitor_ports or monitor, ros=ros,
                                 extra=(*(("--log", log_path) if log_path else ()), *extra))
    watching = threading.Event()
    if monitor and server_name == "soccersim":
        threading.Thread(target=drain_monitor, args=(server.monitor_port, watching), daemon=True).start()
    proc = psutil.Process(server.pid)
    window = mp.Array("d", [0.0, 0.0])
    joined: mp.Queue = mp.Queue()
    counts: mp.Queue = mp.Queue()
    workers_n = 1 if n_agents < 4 else 2
    per = -(-n_agents // workers_n)
    start = time.monotonic()
    workers, unum = [], 1
    while unum <= n_agents:
        count = min(per, n_agents - unum + 1)
        w = mp.Process(target=agents_worker, args=(port, unum, count, window, joined, counts, dialect, model,
                                                   scenario))
        w.start()
        workers.append(w)
        unum += count
    stop_clients = None
    try:  # whatever fails from here on, nothing this run started is left running
        join_s = max(joined.get(timeout=120) for _ in range(n_agents)) - start
        stop_clients = clients() if clients is not None else None
        time.sleep(0.5)
        agent_procs = [psutil.Process(w.pid) for w in workers]
        agents0 = sum(sum(a.cpu_times()[:2]) for a in agent_procs)
        cpu0 = sum(proc.cpu_times()[:2])
        counters = getattr(server, "service_port", None)
        stats0 = server_stats(counters) if counters else None
        spy = start_profile(server.pid, seconds, profile) if profile else None
        window[0] = time.monotonic()
        window[1] = window[0] + seconds
        time.sleep(seconds)
        cpu1 = sum(proc.cpu_times()[:2])
        stats1 = server_stats(counters) if counters else None
        agents1 = sum(sum(a.cpu_times()[:2]) for a in agent_procs)
        rss = proc.memory_info().rss / 2**20
        clients_did, stop_clients = (stop_clients() if stop_clients is not None else {}), None
        per_agent = [n for _ in workers for n in counts.get(timeout=60)]
        for w in workers:
            w.join(10)
    except BaseException:
        if stop_clients is not None:
            stop_clients()
        server.kill()
        for w in workers:
            w.kill()
        watching.set()
        raise
    watching.set()
    if server_name == "rcssserver3d":
        server.kill()  # it ignores SIGTERM
    else:
        server.terminate()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()
    cycles = min(per_agent)
    log_figures = {}
    if log_path and stats1:
        # the whole file over the whole run's sim time (joining included): MB per minute of play
        size = os.path.getsize(log_path)
        log_figures = {"log_mb_per_min": round(size / 2**20 / (stats1["cycles"] * 0.02 / 60), 2)}
        if not os.environ.get("BENCH_KEEP_LOG"):
            shutil.rmtree(os.path.dirname(log_path), ignore_errors=True)
    if spy is not None:
        spy.wait(60)
    return {
        "server": server_name,
        **({"engine": engine, "physics_threads": threads, "monitor": monitor, "scenario": scenario, "ros": ros,
            "log": log} if server_name == "soccersim" else {}),
        "dialect": dialect,
        "model": model,
        "agents": n_agents,
        "cycles_per_s": round(cycles / seconds, 1),
        "cpu_ms_per_cycle": round(1000 * (cpu1 - cpu0) / max(cycles, 1), 2),
        "rss_mb": round(rss, 1),
        "join_s": round(join_s, 2),
        "agents_cpu_ms_per_cycle": round(1000 * (agents1 - agents0) / max(cycles, 1), 2),
        "cores": os.cpu_count(),
        **(engine_yardstick(stats0, stats1, cycles, 1000 * (cpu1 - cpu0)) if stats0 and stats1 else {}),
        **({"phase_ms_per_cycle": phase_ms(stats0, stats1)} if stats0 and stats1 else {}),
        **log_figures,
        **clients_did,
        **({"profile": profile_summary(profile)} if spy is not None and profile else {}),
    }


def start_profile(pid: int, seconds: float, path: str) -> subprocess.Popen[bytes]:
    """py-spy sampling the server (native frames too, so it pauses the server for each sample:
    the cycles/s of a profiled run are a little lower) over the measured window."""
    exe = shutil.which("py-spy")
    assert exe, "py-spy is in the venv (scripts/requirements.txt)"
    return subprocess.Popen([exe, "record", "--pid", str(pid), "--duration", str(int(seconds)), "--rate", "200",
                             "--native", "--format", "raw", "--output", path],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


# Which loop phase a sampled stack is in: the first of these functions, searched from the root
# (physics: the engine's step).
PROFILE_PHASES = {"_collect_agents": "collect", "_take_due_effectors": "collect", "_apply_effector": "apply",
                  "_judge": "judge", "_hear": "hear", "prepare_vision": "vision", "_perceive": "perceive",
                  "_publish": "publish", "_poll_services": "services"}


def profile_summary(path: str, top: int = 25) -> dict[str, object]:
    """The sampled stacks (py-spy's collapsed format) as shares per loop phase and the
    functions that take the most time themselves."""
    phases: dict[str, int] = {}
    own: dict[str, int] = {}
    total = 0
    with open(path) as f:
        for line in f:
            stack, _, count_text = line.rstrip().rpartition(" ")
            if not stack:
                continue
            count = int(count_text)
            total += count
            frames = stack.split(";")
            phase = "other"
            for frame in frames:
                name = frame.split(" (")[0].rsplit(".", 1)[-1]  # "Class.method (file:line)"
                if name in PROFILE_PHASES or name == "step" and "engine" in frame:
                    phase = PROFILE_PHASES.get(name, "physics")
                    break
            phases[phase] = phases.get(phase, 0) + count
            leaf = frames[-1]
            own[leaf] = own.get(leaf, 0) + count
    share = {k: round(100 * v / max(total, 1), 1) for k, v in sorted(phases.items(), key=lambda kv: -kv[1])}
    leaves = sorted(own.items(), key=lambda kv: -kv[1])[:top]
    return {"samples": total, "phase_percent": share,
            "top_self_percent": {k: round(100 * v / max(total, 1), 1) for k, v in leaves}}


def engine_yardstick(before: dict, after: dict, cycles: int, cpu_ms: float) -> dict[str, float]:
    """The physics library's own step per cycle (the engine's counter: ODE's dWorldStep,
    MuJoCo's mj_step, on the very states of this run) and the server's CPU per cycle over it;
    the issue's target is <= 1.3."""
    server_cycles = max(after["cycles"] - before["cycles"], 1)
    library_ms = 1000 * (after.get("library_step_s", 0.0) - before.get("library_step_s", 0.0)) / server_cycles
    if library_ms <= 0:
        return {}
    return {"library_step_ms_per_cycle": round(library_ms, 3),
            "cpu_per_library_step": round(cpu_ms / max(cycles, 1) / library_ms, 2)}


def phase_ms(before: dict, after: dict) -> dict[str, float]:
    """ms per cycle in each phase of the loop over the measured window (the server's counters)."""
    cycles = max(after["cycles"] - before["cycles"], 1)
    return {k: round(1000 * (after["phase_s"][k] - before["phase_s"][k]) / cycles, 3) for k in after["phase_s"]}


def reference_run(n: int, seconds: float, prefix: str, scenario: str) -> dict[str, object]:
    """rcssserver3d's run; once more on a fresh server if its agents did not all join (it now
    and then leaves an agent that came early without its scene)."""
    try:
        return run(n, seconds, "rcssserver3d", rcss_prefix=prefix, scenario=scenario)
    except queue.Empty:
        print(json.dumps({"server": "rcssserver3d", "agents": n, "note": "agents did not join in 120 s: again"}),
              flush=True)
        return run(n, seconds, "rcssserver3d", rcss_prefix=prefix, scenario=scenario)


def ratios(ours: dict[str, object], theirs: dict[str, object], name: str) -> dict[str, object]:
    """Ours over the reference's, measure by measure (cycles/s: higher is better; the rest lower)."""
    ratio: dict[str, object] = {"ratio": f"soccersim/{name}", "agents": ours["agents"]}
    if "ros" in ours:
        ratio["ros"] = ours["ros"]
    for key in ("cycles_per_s", "cpu_ms_per_cycle", "rss_mb", "join_s"):
        a, b = ours[key], theirs[key]
        assert isinstance(a, (int, float)) and isinstance(b, (int, float))
        ratio[key] = round(a / b, 2) if b else None
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--agents", type=int, nargs="*", default=[1, 2, 6, 11, 22])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--vs-rcsssmj", action="store_true",
                        help="also run rcsssmj 0.2.1 (own venv) with the same N: rcsssmj dialect and T1 robots on both")
    parser.add_argument("--engine", default="auto", choices=("auto", "mujoco", "ode", "gazebo"),
                        help="our server's physics engine (default %(default)s)")
    parser.add_argument("--physics-threads", type=int, nargs="*", default=[0], metavar="N",
                        help="our server's --physics-threads (ODE islands on N threads; 0, the default: the "
                             "server's own choice, one per core up to 4), one run each")
    parser.add_argument("--scenario", default="standing", choices=SCENARIOS,
                        help="standing (joints swing, robots upright), lying (every joint driven one way: "
                             "robots collapse) or piled (lying, beamed 0.3 m apart: onto each other)")
    parser.add_argument("--state-hash", action="store_true",
                        help="instead of throughput: a fixed run (agents move from 60 s of game time on, the "
                             "server stops 1000 cycles later) per thread count, with the server's state hash")
    parser.add_argument("--monitor-ports", action="store_true",
                        help="keep our server's legacy monitor ports open (as by default), no monitor connected")
    parser.add_argument("--monitor", action="store_true",
                        help="a SimSpark monitor connected to our server, reading every frame")
    parser.add_argument("--vs-rcssserver3d", metavar="PREFIX",
                        help="also run rcssserver3d installed under PREFIX (built from its sources; bin/rcssserver3d) "
                             "with the same N, one after the other, and print the ratios")
    parser.add_argument("--ros", choices=("off", "on", "both"), default="off",
                        help="our server's ROS node: off (--no-ros, default), on (the server's default), or a run "
                             "of each")
    parser.add_argument("--step-order", choices=("overlapped", "sequential", "both"), default="overlapped",
                        help="our server perceives sync agents while ODE steps (overlapped, the default) or "
                             "after it (--sequential-step), or a run of each")
    parser.add_argument("--log", action="store_true",
                        help="our server writes a replay log (--log FILE.mcap); its size per minute of play is printed")
    parser.add_argument("--profile", metavar="DIR",
                        help="sample our server with py-spy during each run; raw stacks in DIR, a summary in the JSON")
    args = parser.parse_args()
    if args.profile:
        os.makedirs(args.profile, exist_ok=True)
    for n in args.agents:
        if args.state_hash:
            for threads in args.physics_threads:
                print(json.dumps(reproduce(n, threads, args.scenario, args.engine)), flush=True)
            continue
        if not args.vs_rcsssmj:
            reference = reference_run(n, args.seconds, args.vs_rcssserver3d, args.scenario) \
                if args.vs_rcssserver3d else None
            if reference:
                print(json.dumps(reference), flush=True)
            for threads in args.physics_threads:
                orders = {"both": ("overlapped", "sequential")}.get(args.step_order, (args.step_order,))
                for ros, order in itertools.product({"off": (False,), "on": (True,), "both": (False, True)}[args.ros],
                                                    orders):
                    name = f"sync-{args.engine}-{n}-{threads}{'-ros' if ros else ''}-{order}.txt"
                    profile = os.path.join(args.profile, name) if args.profile else None
                    result = run(n, args.seconds, engine=args.engine, profile=profile, threads=threads,
                                 monitor_ports=args.monitor_ports, monitor=args.monitor, scenario=args.scenario,
                                 ros=ros, log=args.log,
                                 extra=("--sequential-step",) if order == "sequential" else ())
                    result["step_order"] = order
                    print(json.dumps(result), flush=True)
                    if reference:
                        print(json.dumps({**ratios(result, reference, "rcssserver3d"), "step_order": order}),
                              flush=True)
            continue
        ours = run(n, args.seconds, "soccersim", "rcsssmj", "T1")  # the same robot on both servers
        theirs = run(n, args.seconds, "rcsssmj", "rcsssmj", "T1")
        print(json.dumps(ours), flush=True)
        print(json.dumps(theirs), flush=True)
        print(json.dumps(ratios(ours, theirs, "rcsssmj")), flush=True)


if __name__ == "__main__":
    main()
