"""The base team over TCP in the SimSpark dialect, as the league's agents connect to
rcssserver3d (port 3100) or to our server's SimSpark port: the agent's side of the wire.

Why here: the same players must be able to meet the league's teams on the reference server,
where there is no ROS. A perception (S-expressions) is read into the same `Percept` the server
builds, so `NaoBrain` cannot tell which way its percepts came; its speeds go back as hinge
effectors, its beams as `(beam x y rot)`, each answer closed by `(syn)` (sync mode).
"""
from __future__ import annotations

import re
import selectors
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from sim_bridge.framing import FrameDecoder, FramingError, encode_frame
from sim_bridge.sexp import Expr, parse_nested
from sim_contracts.percept import ForceResistance, GameStateView, Percept, Polar, SeenPlayer, Vision
from soccer_team.roster import type_of

NAO_SCENE = "rsg/agent/nao/nao_hetero.rsg"


def _floats(args: list[Expr]) -> tuple[float, ...]:
    return tuple(float(a) for a in args if isinstance(a, str))


def _field(items: list[Expr], name: str) -> list[Expr]:
    for item in items:
        if isinstance(item, list) and item and item[0] == name:
            return item[1:]
    return []


def _polar(items: list[Expr]) -> Polar | None:
    for item in items:
        if isinstance(item, list) and item and item[0] == "pol":
            if len(item) == 4 and isinstance(d := item[1], str) and isinstance(a := item[2], str) \
                    and isinstance(e := item[3], str):  # (pol d a e): every one the server sends
                return Polar(float(d), float(a), float(e))
            pol = item[1:]
            return Polar(*_floats(pol)[:3]) if len(pol) >= 3 else None
    return None


def decode_perception(message: bytes) -> Percept:
    """A SimSpark perception as a Percept (degrees, deg/s, m/s^2, m, N: the wire's units).
    A malformed message raises (ValueError, IndexError, TypeError or SexpError): the caller's
    fault boundary decides."""
    p = Percept(time=0.0, game=GameStateView(), gyro=(0.0, 0.0, 0.0), accel=(0.0, 0.0, 9.81),
                joint_names=[], joint_angles=[], joint_velocities=[])
    for item in parse_nested(message.decode("ascii", "replace")):
        name, args = item[0], item[1:]
        if name == "time":
            p.time = float(_floats(_field(args, "now"))[0])
        elif name == "GS":
            _game_state(p.game, args)
        elif name == "GYR":
            p.gyro = _vec3(_field(args, "rt"))
        elif name == "ACC":
            p.accel = _vec3(_field(args, "a"))
        elif name == "HJ":
            if len(item) == 3 and isinstance(n0 := item[1], list) and isinstance(ax0 := item[2], list) \
                    and len(n0) == 2 and len(ax0) == 2 and n0[0] == "n" and ax0[0] == "ax" \
                    and isinstance(n0[1], str) and isinstance(ax0[1], str):  # (HJ (n hj1) (ax 1.5)), every cycle
                p.joint_names.append(n0[1])
                p.joint_angles.append(float(ax0[1]))
                continue
            n = _field(args, "n")
            ax = _field(args, "ax")
            if n and ax and isinstance(n[0], str):
                p.joint_names.append(n[0])
                p.joint_angles.append(float(_floats(ax)[0]))
        elif name == "FRP":
            n = _field(args, "n")
            p.foot_resistance.append(ForceResistance(str(n[0]) if n else "", _vec3(_field(args, "c")),
                                                     _vec3(_field(args, "f"))))
        elif name == "See":
            p.vision = _vision(args)
    return p


def _vec3(args: list[Expr]) -> tuple[float, float, float]:
    v = _floats(args)
    return (v[0], v[1], v[2]) if len(v) >= 3 else (0.0, 0.0, 0.0)


def _game_state(g: GameStateView, args: list[Expr]) -> None:
    for item in args:
        if not isinstance(item, list) or len(item) < 2 or not isinstance(item[1], str):
            continue
        key, value = item[0], item[1]
        if key == "t":
            g.game_time = float(value)
        elif key == "pm":
            g.play_mode = value
        elif key == "sl":
            g.score_left = int(float(value))
        elif key == "sr":
            g.score_right = int(float(value))
        elif key == "unum":
            g.unum = int(float(value))
        elif key == "team":
            g.side = value


def _vision(args: list[Expr]) -> Vision:
    vision = Vision()
    for item in args:
        if not isinstance(item, list) or not item:
            continue
        kind, rest = item[0], item[1:]
        if kind == "P":
            team = _field(rest, "team")
            ident = _field(rest, "id")
            parts = {}
            for part in rest:
                if isinstance(part, list) and part and part[0] not in ("team", "id"):
                    polar = _polar(part[1:])
                    if polar is not None:
                        parts[str(part[0])] = polar
            vision.players.append(SeenPlayer(str(team[0]) if team else "", int(float(str(ident[0]))) if ident else 0,
                                             parts))
        elif kind == "L":
            ends = [Polar(*_floats(e[1:])[:3]) for e in rest if isinstance(e, list) and e and e[0] == "pol"]
            if len(ends) == 2:
                vision.lines.append((ends[0], ends[1]))
        elif isinstance(kind, str):
            polar = _polar(rest)
            if polar is not None:
                vision.objects[kind] = polar
    return vision


def encode_answer(speeds: dict[str, float], beam: tuple[float, float, float] | None = None) -> bytes:
    """One answer: the hinge speeds, a beam if any, then (syn). Hearing is not read: the base
    team does not talk yet."""
    parts = [f"({name} {speed:.4f})" for name, speed in speeds.items()]
    if beam is not None:
        parts.append(f"(beam {beam[0]:.3f} {beam[1]:.3f} {beam[2]:.2f})")
    parts.append("(syn)")
    return "".join(parts).encode("ascii")


class Brain(Protocol):
    """The part of NaoBrain (or any LocalBrain) an agent needs."""

    def act(self, percept: Percept) -> dict[str, float]: ...
    def beam_request(self) -> tuple[float, float, float] | None: ...
    def set_side(self, side: str) -> None: ...


@dataclass
class _Agent:
    unum: int
    sock: socket.socket
    brain: Brain | None = None
    frames: FrameDecoder = field(default_factory=FrameDecoder)  # the legacy ports' own framing and bound
    stage: str = "scene"  # scene -> init -> play
    side: str = ""  # as the server said after init (or at a change of ends)
    perceptions: int = 0
    connected: bool = True
    game: GameStateView = field(default_factory=GameStateView)  # the newest perception's


@dataclass(frozen=True, slots=True)
class TeamRun:
    """What a team's run came to, as its agents saw it."""

    answered: int  # perceptions answered, all agents
    connected: int  # agents still connected at the end
    players: int
    play_mode: str  # the last perception's (of any agent)
    game_time: float
    score: tuple[int, int]  # left, right
    side: str
    falls: dict[int, int]  # get-ups started, by shirt number (a fall the motion layer saw)
    kicks: dict[int, int]  # kicks made, by shirt number

    def as_dict(self) -> dict[str, object]:
        return {"answered": self.answered, "connected": self.connected, "players": self.players,
                "play_mode": self.play_mode, "game_time": round(self.game_time, 2), "score": list(self.score),
                "side": self.side, "falls": {str(k): v for k, v in sorted(self.falls.items())},
                "kicks": {str(k): v for k, v in sorted(self.kicks.items())}}


def play_team(host: str, port: int, team: str, players: int, make_brain: Callable[[str, int], Brain],
              *, stop: Callable[[], bool] = lambda: False, log: Callable[[str], None] = print,
              robot_types: Sequence[int] = (0,), until_game_over: bool = False) -> TeamRun:
    """Connect `players` agents to a SimSpark-dialect server and play until it closes the
    connections, `stop()` says so or (`until_game_over`) every agent saw GameOver. Player n
    asks for nao_hetero type `robot_types[n - 1]` (the last one for the rest), which `make_brain`
    must play too (roster.model_of: NaoBrain's `model`)."""
    selector = selectors.DefaultSelector()
    agents: list[_Agent] = []
    for unum in range(1, players + 1):
        sock = socket.create_connection((host, port), timeout=10)
        sock.settimeout(2.0)  # a server that stops reading holds an agent's answer this long at most
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        agent = _Agent(unum, sock)
        agents.append(agent)
        selector.register(sock, selectors.EVENT_READ, agent)
        sock.sendall(encode_frame(f"(scene {NAO_SCENE} {type_of(robot_types, unum)})".encode()))
    answered = 0
    open_agents = len(agents)
    while open_agents and not stop():
        if until_game_over and all(a.game.play_mode == "GameOver" for a in agents if a.connected):
            break
        for key, _ in selector.select(timeout=0.5):
            agent = key.data
            try:
                chunk = agent.sock.recv(1 << 16)
            except (BlockingIOError, InterruptedError, TimeoutError):
                continue
            except OSError:
                chunk = b""
            if not chunk:
                selector.unregister(agent.sock)
                agent.sock.close()
                agent.connected = False
                open_agents -= 1
                continue
            try:  # one agent's fault boundary: a bad message or a lost connection ends it alone
                messages = agent.frames.feed(chunk)
                if messages:
                    answered += _answer(agent, messages, team, make_brain, log)
            except (OSError, FramingError) as exc:  # a stream whose framing broke cannot be resynced
                log(f"{team} #{agent.unum}: connection lost ({exc})")
                selector.unregister(agent.sock)
                agent.sock.close()
                agent.connected = False
                open_agents -= 1
            except Exception as exc:  # noqa: BLE001 - a perception it cannot read: answer (syn), go on
                log(f"{team} #{agent.unum}: unreadable perception ({type(exc).__name__}: {exc})")
                try:
                    agent.sock.sendall(encode_frame(b"(syn)"))
                except OSError:
                    pass  # the next read finds the connection gone
    for agent in agents:
        try:
            agent.sock.close()
        except OSError:
            pass
    if not agents:
        return TeamRun(0, 0, 0, "", 0.0, (0, 0), "", {}, {})
    newest = max(agents, key=lambda a: a.game.game_time)
    falls = {a.unum: getattr(getattr(a.brain, "motion", None), "getups", 0) for a in agents}
    kicks = {a.unum: getattr(a.brain, "kicks_made", 0) for a in agents}
    return TeamRun(answered, sum(a.connected for a in agents), len(agents), newest.game.play_mode,
                   newest.game.game_time, (newest.game.score_left, newest.game.score_right), newest.side, falls, kicks)


_SIDE = re.compile(rb"\(unum (\d+)\) *\(team (left|right)\)")


def _answer(agent: _Agent, messages: list[bytes], team: str, make_brain: Callable[[str, int], Brain],
            log: Callable[[str], None]) -> int:
    """Answer the newest perception (a late agent skips the older ones, as the league's agents
    do), after reading the side from any of them: it is said once, after init and at a change."""
    for message in messages:
        found = _SIDE.search(message)
        if found:
            agent.unum, agent.side = int(found.group(1)), found.group(2).decode()
            if agent.brain is not None:
                agent.brain.set_side(agent.side)
    if agent.stage == "scene":
        agent.stage = "init"
        agent.sock.sendall(encode_frame(f"(init (unum {agent.unum})(teamname {team}))(syn)".encode()))
        return 0
    percept = decode_perception(messages[-1])
    agent.game = percept.game
    if agent.brain is None:
        if not agent.side:  # the answer to init names the side; wait for it
            agent.sock.sendall(encode_frame(b"(syn)"))
            return 0
        agent.brain = make_brain(agent.side, agent.unum)
        log(f"{team} #{agent.unum} plays {agent.side}")
    if agent.side == "left":  # SimSpark's GS names no teams: ours is known, the other is not
        percept.game.team_left = team
    else:
        percept.game.team_right = team
    speeds = agent.brain.act(percept)
    agent.sock.sendall(encode_frame(encode_answer(speeds, agent.brain.beam_request())))
    agent.perceptions += 1
    return 1
