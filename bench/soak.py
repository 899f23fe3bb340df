"""Soak: full 11 v 11 matches of rough agents of our own beside a CPU hog, counting what ends
or corrupts a match (issue 26). Not part of `make test`: one match takes minutes.

Per match a real `soccersim server --sync` (ROS node on, replay log on) and two team
processes of eleven SimSpark agents each, read as FC Portugal reads (a 4-byte `recv` for the
length, then the payload with MSG_WAITALL into an 8192-byte buffer), every one checking each
length prefix and frame. The agents do what agents do while learning or losing:
- 1-3 walk (legs swing), 4-6 flail every hinge at full speed, sign flipped every 50 cycles;
- 7-9 are carried onto the ball by the trainer (monitor port) every 10 s: a pile;
- 10 beams onto one spot every cycle before each kick-off, with the other teams' 10s;
- 11 leaves every 15 s of game time and joins again (a new connection, scene, init);
- the others beam once to their formation spot before each kick-off; all say something.
Every agent swings its head yaw one way then the other (every 40 cycles, flailers every 50):
a flip whose motion never shows within 6 perceptions is a lost command. After the match the
replay log must open and every formation beam must show at the kick-off.

Counts (each must be 0): server_exits (died before the end), slow_stops (SIGTERM not obeyed
within 10 s), dropped (an agent's connection closed by the server), lagging (server log),
split_prefixes (a length prefix not read whole by one recv(4)), oversize_frames (> 8192
bytes: FC Portugal's buffer), bad_frames (not a perception), lost_commands, lost_beams,
unreadable_logs. Also physics_faults (rolled back, the match went on) for information.

    python bench/soak.py --matches 20 --half-time 60 --hog 2 --out /tmp/soak
One JSON line per match, then a summary line."""
from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import re
import selectors
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HINGES = ("he1", "he2", "lae1", "lae2", "lae3", "lae4", "rae1", "rae2", "rae3", "rae4", "lle1", "lle2",
          "lle3", "lle4", "lle5", "lle6", "rle1", "rle2", "rle3", "rle4", "rle5", "rle6")
FCP_BUFFER = 8192
FORMATION = {1: (-14.0, 0.0), 2: (-10.0, -3.0), 3: (-10.0, 3.0), 4: (-7.0, -6.0), 5: (-7.0, 0.0), 6: (-7.0, 6.0),
             7: (-4.0, -4.0), 8: (-4.0, 4.0), 9: (-2.0, -7.0), 11: (-2.0, 7.0)}
PILE_SPOT = (-2.0, 0.0)
_HJ = re.compile(rb"\(HJ \(n hj1\) \(ax (-?[0-9.]+)\)\)")
_PM = re.compile(rb"\(pm ([A-Za-z_]+)\)")
_NOW = re.compile(rb"\(time \(now ([0-9.]+)\)\)")
_UNUM = re.compile(rb"\(unum (\d+)\) \(team (left|right)\)")


class Agent:
    """One SimSpark agent over a blocking socket, reading frames as FC Portugal does."""

    def __init__(self, host: str, port: int, team: str, unum: int, counts: dict[str, int]) -> None:
        self.host, self.port, self.team, self.unum, self.counts = host, port, team, unum, counts
        self.buffer = bytearray(FCP_BUFFER)
        self.cycle = 0
        self.flips: list[tuple[int, float, int]] = []  # (cycle sent, angle then, direction)
        self.angle = 0.0
        self.mode = ""
        self.beamed = False
        self.connect()

    def connect(self) -> None:
        """A new connection and its scene; the init answers the first perception (act)."""
        self.sock = socket.create_connection((self.host, self.port), timeout=60)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.send(b"(scene rsg/agent/nao/nao_hetero.rsg 0)")
        self.inited = False
        self.flips.clear()
        self.beamed = False

    def send(self, payload: bytes) -> None:
        self.sock.sendall(len(payload).to_bytes(4, "big") + payload)

    def receive(self) -> bytes:
        """FC Portugal's Server_Comm.receive: recv_into 4 bytes, then MSG_WAITALL the rest."""
        got = self.sock.recv_into(self.buffer, 4)
        if got == 0:
            raise ConnectionError("closed by the server")
        if got != 4:
            self.counts["split_prefixes"] += 1
            got += self.sock.recv_into(memoryview(self.buffer)[got:], 4 - got, socket.MSG_WAITALL)
        size = int.from_bytes(self.buffer[:4], "big")
        if size > FCP_BUFFER:
            self.counts["oversize_frames"] += 1
            data = bytearray()
            while len(data) < size:
                chunk = self.sock.recv(size - len(data))
                if not chunk:
                    raise ConnectionError("closed by the server")
                data += chunk
            msg = bytes(data)
        else:
            if self.sock.recv_into(self.buffer, size, socket.MSG_WAITALL) != size:
                raise ConnectionError("closed by the server mid-frame")
            msg = bytes(self.buffer[:size])
        if not msg.startswith(b"(time (now ") or msg.count(b"(") != msg.count(b")"):
            self.counts["bad_frames"] += 1
        found = _PM.search(msg)
        if found:
            self.mode = found.group(1).decode()
        return msg

    def head_speed(self, flail: bool) -> float:
        period = 50 if flail else 40
        return (7.0 if flail else 1.0) * (1 if (self.cycle // period) % 2 == 0 else -1)

    def act(self) -> None:
        """Answer the perception that has arrived (the init first, as FC Portugal)."""
        msg = self.receive()
        if not self.inited:
            self.send(f"(init (unum {self.unum})(teamname {self.team}))".encode())
            self.inited = True
            return
        found = _HJ.search(msg)
        if found:
            self.angle = float(found.group(1))
            self._check_flips()
        self.cycle += 1
        flail = 4 <= self.unum <= 6
        head = self.head_speed(flail)
        if self.cycle > 1 and (head > 0) != (self.head_speed_at(self.cycle - 1, flail) > 0) and abs(self.angle) < 110:
            self.flips.append((self.cycle, self.angle, 1 if head > 0 else -1))
        speeds = {"he1": head}
        if flail:
            sign = 1 if (self.cycle // 50) % 2 == 0 else -1
            speeds.update({h: sign * 7.0 for h in HINGES if h != "he1"})
        elif self.unum <= 3:
            swing = 1.5 * math.sin(self.cycle * 0.25)
            speeds.update({"lle3": swing, "rle3": -swing, "lle4": -swing, "rle4": swing})
        extra = ""
        if self.mode == "BeforeKickOff":
            if self.unum == 10:
                extra = f"(beam {PILE_SPOT[0]} {PILE_SPOT[1]} 0)"
            elif not self.beamed and self.unum in FORMATION:
                x, y = FORMATION[self.unum]
                extra = f"(beam {x} {y} 0)"
                self.beamed = True
        else:
            self.beamed = False
        if self.cycle % 3 == self.unum % 3:
            extra += f"(say {self.team[:3]}{self.unum}c{self.cycle % 1000})"
        body = "".join(f"({h} {v:.2f})" for h, v in speeds.items())
        self.send((body + extra + "(syn)").encode())

    @staticmethod
    def head_speed_at(cycle: int, flail: bool) -> float:
        period = 50 if flail else 40
        return 1 if (cycle // period) % 2 == 0 else -1

    def _check_flips(self) -> None:
        kept = []
        for sent, angle, direction in self.flips:
            if (self.angle - angle) * direction > 0.3:
                continue  # the flip shows: the command acted
            if self.cycle - sent > 6:
                self.counts["lost_commands"] += 1
                continue
            kept.append((sent, angle, direction))
        self.flips = kept


def team_main(host: str, port: int, team: str, leave_every: float, result: Any) -> None:
    """Eleven agents of one team, each answering the perception that reaches it (select)."""
    counts = {k: 0 for k in ("dropped", "split_prefixes", "oversize_frames", "bad_frames", "lost_commands",
                             "rejoins")}
    agents = [Agent(host, port, team, u, counts) for u in range(1, 12)]
    chooser = selectors.DefaultSelector()
    for agent in agents:
        chooser.register(agent.sock, selectors.EVENT_READ, agent)
    last_leave = 0.0
    try:
        while True:
            ready = chooser.select(timeout=30)
            if not ready:
                raise ConnectionError("no perception for 30 s")
            for key, _ in ready:
                agent = key.data
                try:
                    agent.act()
                except (ConnectionError, OSError):
                    counts["dropped"] += 1
                    raise
            if all(a.mode == "GameOver" for a in agents):
                break
            now = agents[0].cycle * 0.02
            if agents[0].mode == "PlayOn" and now - last_leave >= leave_every:
                last_leave = now
                leaver = agents[10]
                chooser.unregister(leaver.sock)
                leaver.sock.close()
                leaver.connect()  # join and leave: a new connection, scene, init, same unum
                chooser.register(leaver.sock, selectors.EVENT_READ, leaver)
                counts["rejoins"] += 1
    except (ConnectionError, OSError):
        pass
    finally:
        for agent in agents:
            agent.sock.close()
        result.put((team, counts))


def trainer_piles(host: str, monitor_port: int, stop: Any, every_s: float = 10.0) -> None:
    """Carry players 7-9 of both teams onto the ball every `every_s` seconds (wall clock)."""
    try:
        sock = socket.create_connection((host, monitor_port), timeout=10)
    except OSError:
        return
    sock.settimeout(0.05)
    last = time.monotonic()
    while not stop.is_set():
        try:
            while sock.recv(65536):
                pass
        except (TimeoutError, BlockingIOError):
            pass
        except OSError:
            return
        if time.monotonic() - last >= every_s:
            last = time.monotonic()
            for team in ("Left", "Right"):
                for unum in (7, 8, 9):
                    cmd = f"(agent (unum {unum}) (team {team}) (pos 0 0 0.4))".encode()
                    try:
                        sock.sendall(len(cmd).to_bytes(4, "big") + cmd)
                    except OSError:
                        return
    sock.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def check_log(path: Path, counts: dict[str, int]) -> None:
    """The log opens with the standard reader and every formation beam shows at a kick-off."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src" / "sim_master"))
    from mcap.reader import make_reader

    from sim_master.store.mcap_log import ReplayLogReader

    try:
        with open(path, "rb") as f:
            if make_reader(f).get_summary() is None:
                raise ValueError("no summary")
        cycles = ReplayLogReader(str(path)).cycles()
        previous = ""
        checked = False
        for cycle in cycles:
            mode = cycle.game_state.play_mode if cycle.game_state is not None else ""
            if mode == "PlayOn" and previous == "KickOff_Left" or (mode.startswith("KickOff") and previous
                                                                      == "BeforeKickOff"):
                if not checked:
                    _check_beams(cycle, counts)
                    checked = True
            previous = mode
    except Exception as exc:  # noqa: BLE001 - any failure to read the log counts
        counts["unreadable_logs"] += 1
        print(f"soak: log {path}: {type(exc).__name__}: {exc}", file=sys.stderr)


def _check_beams(cycle: Any, counts: dict[str, int]) -> None:
    gs = cycle.game_state
    sides = {gs.team_left: 1.0, gs.team_right: -1.0}
    for name, entity in cycle.snapshot.entities.items():
        team, _, player = name.partition("/p")
        if team not in sides or not player.isdigit() or int(player) not in FORMATION or int(player) in (7, 8, 9, 11):
            continue
        fx, fy = FORMATION[int(player)]
        tx, ty = fx * sides[team], fy * sides[team]
        if math.hypot(entity.position[0] - tx, entity.position[1] - ty) > 1.0:
            counts["lost_beams"] += 1
            print(f"soak: {name} at {entity.position[:2]} at the kick-off, beamed to ({tx}, {ty})", file=sys.stderr)


def play_match(index: int, args: argparse.Namespace, out: Path) -> dict[str, Any]:
    ports = {name: free_port() for name in ("agent", "monitor", "rcsssmj", "rcsssmj_monitor", "service")}
    log = out / f"match{index}.mcap"
    server_log = out / f"match{index}.log"
    cmd = [sys.executable, "-m", "sim_master.cli", "server", "--sync", "--half-time", str(args.half_time),
           "--kickoff-after", "1", "--log", str(log), "--simspark-port", str(ports["agent"]),
           "--simspark-monitor-port", str(ports["monitor"]), "--rcsssmj-port", str(ports["rcsssmj"]),
           "--rcsssmj-monitor-port", str(ports["rcsssmj_monitor"]), "--service-port", str(ports["service"]),
           "--web-port", "-1", "--seed", str(index)]
    if args.no_ros:
        cmd.append("--no-ros")
    env = dict(os.environ, ROS_DOMAIN_ID=str(100 + index % 100))
    counts = {k: 0 for k in ("server_exits", "slow_stops", "dropped", "lagging", "split_prefixes", "oversize_frames",
                             "bad_frames", "lost_commands", "lost_beams", "unreadable_logs")}
    started = time.monotonic()
    with open(server_log, "w") as err:
        server = subprocess.Popen(cmd, stdout=err, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", ports["agent"]), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        result: Any = mp.Queue()
        stop = mp.Event()
        teams = [mp.Process(target=team_main, args=("127.0.0.1", ports["agent"], name, args.leave_every, result))
                 for name in ("SoakLeft", "SoakRight")]
        for team in teams:
            team.start()
            time.sleep(2.0)  # the first team takes the left side
        trainer = mp.Process(target=trainer_piles, args=("127.0.0.1", ports["monitor"], stop))
        trainer.start()
        limit = time.monotonic() + args.match_timeout
        while any(t.is_alive() for t in teams) and time.monotonic() < limit:
            if server.poll() is not None:
                counts["server_exits"] += 1
                break
            time.sleep(0.5)
        stop.set()
        for team in teams:
            team.join(30)
            if team.is_alive():
                team.terminate()
        trainer.join(10)
        if trainer.is_alive():
            trainer.terminate()
        team_counts = {}
        while not result.empty():
            name, c = result.get()
            team_counts[name] = c
            for key in ("dropped", "split_prefixes", "oversize_frames", "bad_frames", "lost_commands"):
                counts[key] += c[key]
        if server.poll() is None:
            stopping = time.monotonic()
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                counts["slow_stops"] += 1
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
            stop_s = time.monotonic() - stopping
        else:
            stop_s = 0.0
    text = server_log.read_text(errors="replace")
    counts["lagging"] = text.count("lagging")
    faults = len(re.findall(r"physics fault", text))
    check_log(log, counts)
    return {"match": index, "wall_s": round(time.monotonic() - started, 1), "stop_s": round(stop_s, 2),
            "games_over": all(c.get("dropped", 1) == 0 for c in team_counts.values()) and len(team_counts) == 2,
            "rejoins": sum(c.get("rejoins", 0) for c in team_counts.values()), "physics_fault_lines": faults,
            **counts}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--half-time", type=float, default=300.0, help="s of game time per half (a full match: 300)")
    parser.add_argument("--hog", type=int, default=os.cpu_count() or 1, help="CPU hog processes beside the match")
    parser.add_argument("--leave-every", type=float, default=15.0, help="s of game time between leaves of #11")
    parser.add_argument("--match-timeout", type=float, default=7200.0, help="wall-clock s a match may take")
    parser.add_argument("--no-ros", action="store_true")
    parser.add_argument("--out", default="/tmp/soak")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.hog)]
    totals: dict[str, int] = {}
    try:
        for index in range(args.matches):
            row = play_match(index, args, out)
            print(json.dumps(row), flush=True)
            for key, value in row.items():
                if isinstance(value, int) and not isinstance(value, bool) and key != "match":
                    totals[key] = totals.get(key, 0) + value
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    print(json.dumps({"summary": True, "matches": args.matches, "half_time_s": args.half_time, "hogs": args.hog,
                      **totals}), flush=True)
    bad = [k for k in ("server_exits", "slow_stops", "dropped", "lagging", "split_prefixes", "oversize_frames",
                       "bad_frames", "lost_commands", "lost_beams", "unreadable_logs") if totals.get(k)]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
