"""Grammar-aware fuzzing of every entry point of a running single-mode server.

Why: one message from any client must never stop a match. This drives generated input at
the SimSpark and rcsssmj agent ports, both monitor ports and the text service port of an
in-process server (real sockets), while one good agent per dialect plays, and counts what
happened. Our own grammar (no Hypothesis): S-expressions built from the protocols' own
vocabulary (effector and command names, `init`/`scene`/`beam`/`say`, monitor commands) with
hostile atoms (inf, nan, 1e400, -0, huge integers, long words, non-ASCII, NUL), random
nesting up to 40 deep, plus raw bytes, truncated frames and absurd length prefixes.

    python tools/fuzz_ports.py --inputs 100000 --seed 1

sends 100 000 inputs to each port and prints one JSON object: inputs per port, internal errors
caught by the fault boundaries (each one is a bug: an input nobody foresaw), whether the server
survived, cycles played.
`make test` runs a small seeded sample of it (test_fuzz_sample.py)."""
from __future__ import annotations

import argparse
import json
import logging
import random
import socket
import struct
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# "killsim" is left out: a loopback monitor may legitimately stop the server.
NAMES = ["he1", "he2", "lae1", "rle4", "lle6", "llj1", "syn", "init", "scene", "beam", "say", "pass",
         "SPK", "unum", "teamname", "kickOff", "playMode", "dropBall", "ball", "agent", "time", "score",
         "reqfullstate", "pos", "vel", "move", "team", "left", "right", "rsg/agent/nao/nao_hetero.rsg",
         "T1", "K1", "ant", "nao", "nao4"]
ATOMS = ["0", "1", "-1", "4", "5", "11", "12", "99", "100", "1e400", "-1e400", "inf", "-inf", "nan", "-0",
         "1e308", "2.5", "0x10", "18446744073709551615", "-9223372036854775809", "", "A", "B", "Left", "Right",
         "PlayOn", "BeforeKickOff", "Goal_Left", "x" * 300, "é", "\x00", "'", '"', "\\", "(", ")"]


def _atom(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.45:
        return rng.choice(ATOMS)
    if r < 0.75:
        return rng.choice(NAMES)
    if r < 0.9:
        return repr(rng.uniform(-1e6, 1e6)) if rng.random() < 0.5 else str(rng.randint(-10**6, 10**6))
    return "".join(chr(rng.randint(1, 0x2FF)) for _ in range(rng.randint(1, 12)))


def _expr(rng: random.Random, depth: int, budget: list[int]) -> str:
    """An expression of at most budget[0] nodes (shared by the whole message, so the tree
    stays small however the dice fall), sometimes jumping ten levels deeper."""
    budget[0] -= 1
    if depth > 40 or budget[0] <= 0 or rng.random() < 0.3:
        return _atom(rng)
    head = rng.choice(NAMES)
    body = " ".join(_expr(rng, depth + 1 + (rng.random() < 0.05) * 10, budget) for _ in range(rng.randint(0, 5)))
    return f"({head} {body})"


def message(rng: random.Random) -> bytes:
    """One generated payload (the frame body)."""
    r = rng.random()
    if r < 0.75:
        budget = [rng.randint(1, 120)]
        text = "".join(_expr(rng, 0, budget) for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.1:  # unbalanced
            text = text[: rng.randint(0, len(text))]
        return text.encode("utf-8", "surrogatepass")
    if r < 0.85:
        return b"(" * rng.randint(30, 3000) + b")" * rng.randint(0, 3000)
    return bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 200)))


def frame(rng: random.Random, payload: bytes) -> bytes:
    r = rng.random()
    if r < 0.9:
        return struct.pack(">I", len(payload)) + payload
    if r < 0.95:  # a length prefix that lies
        return struct.pack(">I", rng.choice([0, 2**31, 2**32 - 1, len(payload) + 1000])) + payload
    return (struct.pack(">I", len(payload)) + payload)[: rng.randint(0, 4 + len(payload))]  # truncated


class InternalErrors(logging.Handler):
    """Collects what the fault boundaries caught: every ERROR record (refusals of bad input
    are warnings; an error is an exception nobody foresaw) and every connection dropped
    because the parser raised."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.levelno >= logging.ERROR or "unparsable message (" in text:
            self.seen.append(text[:200])


class _Refusals(logging.Handler):
    """Counts warnings: bad input refused as it should be (shows the fuzz reaches the parsers)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += record.levelno == logging.WARNING


@contextmanager
def watched_logs() -> Iterator[tuple[InternalErrors, _Refusals]]:
    """The process's log watched for what the fault boundaries caught and what was refused."""
    errors, refusals = InternalErrors(), _Refusals()
    root = logging.getLogger()
    level = root.level
    root.addHandler(errors)
    root.addHandler(refusals)
    root.setLevel(logging.INFO)
    try:
        yield errors, refusals
    finally:
        root.removeHandler(errors)
        root.removeHandler(refusals)
        root.setLevel(level)


def fuzz(server: Any, ports: dict[str, int], per_port: int, seed: int,
         progress: bool = False) -> dict[str, Any]:
    """Send `per_port` generated inputs to each of `ports` (name -> TCP port; "service" takes
    lines), interleaved at random, to a running server; return the counts."""
    rng = random.Random(seed)
    counts = {name: 0 for name in ports}
    connections: dict[str, socket.socket] = {}
    start_cycles = server.loop.stats.cycles
    inputs = per_port * len(ports)
    for i in range(inputs):
        name = rng.choice([n for n, c in counts.items() if c < per_port])
        sock = connections.get(name)
        if sock is None or rng.random() < 0.02:  # mostly long-lived connections, sometimes fresh ones
            if sock is not None:
                sock.close()
            try:
                sock = socket.create_connection(("127.0.0.1", ports[name]), timeout=2)
            except OSError:
                connections.pop(name, None)
                continue
            sock.setblocking(False)
            connections[name] = sock
        payload = message(rng)
        data = payload.replace(b"\n", b" ") + b"\n" if name == "service" else frame(rng, payload)
        try:
            sock.sendall(data) if sock.gettimeout() else sock.send(data)
            try:
                for _ in range(8):  # drain some of what the server sends, never block
                    if not sock.recv(1 << 20):
                        raise ConnectionResetError
            except (BlockingIOError, InterruptedError):
                pass
        except OSError:  # the server closed this one (as it should for garbage): a new one next time
            sock.close()
            connections.pop(name, None)
        counts[name] += 1
        if progress and i % 5000 == 0:
            print(f"fuzz: {i}/{inputs} inputs, cycles {server.loop.stats.cycles - start_cycles}", file=sys.stderr)
    for sock in connections.values():
        sock.close()
    return {"inputs": counts, "total": sum(counts.values()), "cycles": server.loop.stats.cycles - start_cycles}


def fuzz_match(per_port: int, seed: int, progress: bool = False) -> dict[str, Any]:
    """An in-process server with both monitors and the service port, one good agent per
    dialect playing in threads, `per_port` fuzzed inputs on each port; what happened."""
    from sim_bridge.clients import RcsssmjAgent, SimSparkAgent
    from sim_master.master.config import ServerConfig
    from sim_master.server.in_thread import serving

    with watched_logs() as (errors, refusals):
        config = ServerConfig(sync=False, realtime=True, simspark_port=0, rcsssmj_port=0, simspark_monitor_port=0,
                              rcsssmj_monitor_port=0, service_port=0, ros=False, vision_noise=False)
        with serving(config) as server:
            ports = {"simspark": server.agent_servers["simspark"].port,
                     "rcsssmj": server.agent_servers["rcsssmj"].port,
                     "simspark_monitor": server.monitor_servers["simspark"].port,
                     "rcsssmj_monitor": server.monitor_servers["rcsssmj"].port,
                     "service": server.service_port.port}
            good = [SimSparkAgent("127.0.0.1", ports["simspark"], "Good", 1),
                    RcsssmjAgent("127.0.0.1", ports["rcsssmj"], "Good", 2, model="T1")]
            for agent in good:
                agent.join()
            stop = threading.Event()
            played = [0, 0]

            def play(k: int) -> None:
                while not stop.is_set():
                    try:
                        good[k].act()
                        played[k] += 1
                    except (OSError, ConnectionError):
                        return

            threads = [threading.Thread(target=play, args=(k,), daemon=True) for k in range(2)]
            for t in threads:
                t.start()
            t0 = time.monotonic()
            result = fuzz(server, ports, per_port, seed, progress=progress)
            # the match must go on after the last input: the good agents play ten more cycles
            at_end, deadline = min(played), time.monotonic() + 10
            while min(played) < at_end + 10 and time.monotonic() < deadline and all(t.is_alive() for t in threads):
                time.sleep(0.02)
            result["good_cycles_after_fuzz"] = min(played) - at_end
            stop.set()
            for t in threads:
                t.join(5)
            engine = server.loop.engine
            physics = getattr(engine, "_engine", engine)  # auto: the league engine's current one
            warnings = getattr(getattr(physics, "data", None), "warning", [])  # MuJoCo's guards, on MuJoCo
            result["mujoco_warnings"] = sum(warnings[i].number for i in range(len(warnings)))
            result["physics_faults"] = physics.faults.faults  # steps rolled back (engine/recovery.py)
            result.update(seed=seed, wall_s=round(time.monotonic() - t0, 1), good_agents_cycles=played,
                          server_alive=not server.loop.stop_event.is_set(), refusals_logged=refusals.count,
                          internal_errors=len(errors.seen), internal_error_samples=errors.seen[:5])
            for agent in good:
                agent.close()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=100_000, help="inputs per port (5 ports)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.inputs < 1:
        parser.error("--inputs must be at least 1")
    result = fuzz_match(args.inputs, args.seed, progress=True)
    print(json.dumps(result))
    return 0 if result["server_alive"] and not result["internal_errors"] and not result["mujoco_warnings"] else 1


if __name__ == "__main__":
    sys.exit(main())
