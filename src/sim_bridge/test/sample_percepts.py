"""Rebuilds Percept objects from captured reference messages (test data helper)."""
from __future__ import annotations

from pathlib import Path

from sim_bridge.sexp import parse_flat
from sim_contracts.percept import ForceResistance, GameStateView, Heard, Percept, Polar, SeenPlayer, Vision

SAMPLES = Path(__file__).parent / "samples"


def simspark_messages(name: str) -> list[bytes]:
    """The messages of one agent_*_msgs.txt sample (one per '=== message' block)."""
    text = (SAMPLES / name).read_text()
    blocks = text.split("=== message")[1:]
    return [b.split("\n", 1)[1].strip().encode() for b in blocks]


def _pol(expr: list) -> Polar:
    return Polar(float(expr[1]), float(expr[2]), float(expr[3]))


def percept_from_simspark(msg: bytes) -> Percept:
    p = Percept(time=0.0, game=GameStateView(), gyro=(0, 0, 0), accel=(0, 0, 0), joint_names=[],
                joint_angles=[], joint_velocities=[])
    for expr in parse_flat(msg.decode()):
        name = expr[0]
        if name == "time":
            p.time = float(expr[1][1])
        elif name == "GS":
            fields = {e[0]: e[1] for e in expr[1:]}
            p.game = GameStateView(play_mode=fields["pm"], game_time=float(fields["t"]),
                                   score_left=int(fields["sl"]), score_right=int(fields["sr"]),
                                   unum=int(fields.get("unum", 0)), side=fields.get("team", ""))
        elif name == "hear":
            team, t, where, message = expr[1], float(expr[2]), expr[3], expr[4]
            p.heard.append(Heard(t, 0.0 if where == "self" else float(where), message,
                                 from_self=where == "self", team=team))
        elif name == "GYR":
            p.gyro = tuple(float(v) for v in expr[2][1:])
        elif name == "ACC":
            p.accel = tuple(float(v) for v in expr[2][1:])
        elif name == "HJ":
            p.joint_names.append(expr[1][1])
            p.joint_angles.append(float(expr[2][1]))
            p.joint_velocities.append(0.0)
        elif name == "FRP":
            p.foot_resistance.append(ForceResistance(
                expr[1][1], tuple(float(v) for v in expr[2][1:]), tuple(float(v) for v in expr[3][1:])))
        elif name == "See":
            p.vision = Vision()
            for item in expr[1:]:
                if item[0] == "P":
                    fields = {e[0]: e for e in item[1:]}
                    parts = {e[0]: _pol(e[1]) for e in item[1:] if e[0] not in ("team", "id")}
                    p.vision.players.append(SeenPlayer(fields["team"][1], int(fields["id"][1]), parts))
                elif item[0] == "L":
                    p.vision.lines.append((_pol(item[1]), _pol(item[2])))
                else:
                    p.vision.objects[item[0]] = _pol(item[1])
    return p


def percept_from_rcsssmj(msg: bytes) -> Percept:
    p = Percept(time=0.0, game=GameStateView(), gyro=(0, 0, 0), accel=(0, 0, 0), joint_names=[],
                joint_angles=[], joint_velocities=[])
    for expr in parse_flat(msg.decode()):
        name = expr[0]
        if name == "time":
            p.time = float(expr[1][1])
        elif name == "GS":
            f = {e[0]: e[1] for e in expr[1:]}
            p.game = GameStateView(play_mode=f["pm"], game_time=float(f["t"]), score_left=int(f["sl"]),
                                   score_right=int(f["sr"]), team_left=f.get("tl", ""), team_right=f.get("tr", ""))
        elif name == "quat":
            p.torso_quaternion = tuple(float(v) for v in expr[2][1:])
        elif name == "pos":
            p.torso_position = tuple(float(v) for v in expr[2][1:])
        elif name == "GYR":  # torso frame (x forward, y left) -> Percept's SimSpark body axes
            x, y, z = (float(v) for v in expr[2][1:])
            p.gyro = (-y, x, z)
        elif name == "ACC":
            x, y, z = (float(v) for v in expr[2][1:])
            p.accel = (-y, x, z)
        elif name == "HJ":
            p.joint_names.append(expr[1][1].removeprefix("q_"))
            p.joint_angles.append(float(expr[2][1]))
            p.joint_velocities.append(float(expr[3][1]))
        elif name == "MIC":
            import base64
            for item in expr[2:]:
                p.heard.append(Heard(0.0, float(item[0]), base64.b64decode(item[1]).decode("latin-1"),
                                     from_teammate=False))
        elif name == "See":
            p.vision = Vision()
            for item in expr[1:]:
                if item[0] == "P":
                    fields = {e[0]: e for e in item[1:]}
                    parts = {e[0]: _pol(e[1]) for e in item[1:] if e[0] not in ("team", "id")}
                    p.vision.players.append(SeenPlayer(fields["team"][1], int(fields["id"][1]), parts))
                else:
                    p.vision.objects[item[0]] = _pol(item[1])
    return p
