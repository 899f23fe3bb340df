"""The base team over TCP in the SimSpark dialect, as the league's agents connect to
rcssserver3d (port 3100) or to our server's SimSpark port: the agent's side of the wire.

Why here: the same players must be able to meet the league's teams on the reference server,
where there is no ROS. A perception (S-expressions) is read into the same `Percept` the server
builds, so `NaoBrain` cannot tell which way its percepts came; its speeds go back as hinge
effectors, its beams as `(beam x y rot)`, each answer closed by `(syn)` (sync mode).
"""
from __future__ import annotations

import selectors
import socket
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from sim_bridge.sexp import Expr, parse_nested
from sim_contracts.percept import ForceResistance, GameStateView, Percept, Polar, SeenPlayer, Vision

NAO_SCENE = "rsg/agent/nao/nao_hetero.rsg"


def _floats(args: list[Expr]) -> tuple[float, ...]:
    return tuple(float(a) for a in args if isinstance(a, str))


def _field(items: list[Expr], name: str) -> list[Expr]:
    for item in items:
        if isinstance(item, list) and item and item[0] == name:
            return item[1:]
    return []


def _polar(items: list[Expr]) -> Polar | None:
    pol = _field(items, "pol")
    return Polar(*_floats(pol)[:3]) if len(pol) >= 3 else None


def decode_perception(message: bytes) -> Percept:
    """A SimSpark perception as a Percept (degrees, deg/s, m/s^2, m, N: the wire's units)."""
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
            parts = {str(part[0]): polar for part in rest
                     if isinstance(part, list) and part and part[0] not in ("team", "id")
                     and (polar := _polar(part[1:])) is not None}
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


def frame(payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + payload


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
    buf: bytearray = field(default_factory=bytearray)
    stage: str = "scene"  # scene -> init -> play
    perceptions: int = 0


def play_team(host: str, port: int, team: str, players: int, make_brain: Callable[[str, int], Brain],
              *, stop: Callable[[], bool] = lambda: False, log: Callable[[str], None] = print,
              robot_type: int = 0) -> int:
    """Connect `players` agents to a SimSpark-dialect server and play until it closes the
    connections or `stop()` says so; the perceptions answered."""
    selector = selectors.DefaultSelector()
    agents: list[_Agent] = []
    for unum in range(1, players + 1):
        sock = socket.create_connection((host, port), timeout=10)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        agent = _Agent(unum, sock)
        agents.append(agent)
        selector.register(sock, selectors.EVENT_READ, agent)
        sock.sendall(frame(f"(scene {NAO_SCENE} {robot_type})".encode()))
    answered = 0
    open_agents = len(agents)
    while open_agents and not stop():
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
                open_agents -= 1
                continue
            agent.buf += chunk
            message = _last_whole_message(agent.buf)
            if message is None:
                continue
            answered += _answer(agent, message, team, make_brain, log)
    for agent in agents:
        try:
            agent.sock.close()
        except OSError:
            pass
    return answered


def _last_whole_message(buf: bytearray) -> bytes | None:
    """The newest whole message in `buf` (older ones are dropped: a late agent answers the
    newest perception, as the league's agents do)."""
    newest = None
    while len(buf) >= 4:
        (size,) = struct.unpack_from(">I", buf)
        if len(buf) < 4 + size:
            break
        newest = bytes(buf[4:4 + size])
        del buf[:4 + size]
    return newest


def _answer(agent: _Agent, message: bytes, team: str, make_brain: Callable[[str, int], Brain],
            log: Callable[[str], None]) -> int:
    if agent.stage == "scene":
        agent.stage = "init"
        agent.sock.sendall(frame(f"(init (unum {agent.unum})(teamname {team}))(syn)".encode()))
        return 0
    percept = decode_perception(message)
    if agent.brain is None:
        if not percept.game.side:  # the answer to init names the side; wait for it
            agent.sock.sendall(frame(b"(syn)"))
            return 0
        agent.brain = make_brain(percept.game.side, percept.game.unum or agent.unum)
        log(f"{team} #{percept.game.unum or agent.unum} plays {percept.game.side}")
    elif percept.game.side:
        agent.brain.set_side(percept.game.side)
    speeds = agent.brain.act(percept)
    agent.sock.sendall(frame(encode_answer(speeds, agent.brain.beam_request())))
    agent.perceptions += 1
    return 1
