"""The rcsssmj perception encoder in Python: the reference the compiled one
(sim_hotpath.encode_rcsssmj_percept) is checked against, byte for byte."""
from __future__ import annotations

import base64
from functools import lru_cache
from typing import Final

import numpy as np

from sim_contracts.percept import Percept

MAX_HEARD_BYTES: Final = 10


def _trunc_all(values: list[float], digits: int | np.ndarray) -> list[str]:
    """Truncate like numpy's trunc and print like Python (keeps -0.0, as the reference),
    many numbers at once; digits per number or one for all."""
    a = np.asarray(values, dtype=float)
    scale = 10.0 ** np.asarray(digits)
    cut = (np.trunc(np.round(np.abs(a) * scale, 6)) / scale).tolist()
    return [("-" if neg else "") + str(v) for neg, v in zip(np.signbit(a).tolist(), cut)]


@lru_cache(maxsize=64)
def _header_digits(n_joints: int) -> np.ndarray:
    """Digits of one perception's numbers in _encode order: time 2, game time 3, quat and
    pos 3, gyro and acc 2, then every joint angle and speed 2."""
    return np.array([2, 3] + [3] * 7 + [2] * 6 + [2] * (2 * n_joints), dtype=float)


def rcsssmj_order(names: list[str]) -> list[int]:
    """Indices of joints in rcsssmj's HJ order: head, left arm, right arm, left leg, right leg."""
    def key(i: int) -> tuple[int, int]:
        n = names[i]
        for g, prefix in enumerate(("hj", "laj", "raj", "tj", "llj", "rlj")):
            if n.startswith(prefix):
                return (g, i)
        return (9, i)
    return sorted(range(len(names)), key=key)


@lru_cache(maxsize=64)
def _order(names: tuple[str, ...]) -> list[int]:
    return rcsssmj_order(list(names))


def encode_percept(p: Percept) -> bytes:
    g = p.game
    n = len(p.joint_names)
    # GYR and ACC in the torso frame (x forward, y left, z up), as rcsssmj's MuJoCo sensors;
    # Percept carries them in SimSpark's body axes (x right, y forward, z up).
    (gx, gy, gz), (ax, ay, az) = p.gyro, p.accel
    t = _trunc_all([p.time, g.game_time, *p.torso_quaternion, *p.torso_position, gy, -gx, gz, ay, -ax, az,
                    *p.joint_angles, *p.joint_velocities], _header_digits(n))
    out = [f"(time (now {t[0]}))", f"(GS (t {t[1]})(pm {g.play_mode})"]
    if g.team_left:
        out.append(f"(tl {g.team_left})")
    if g.team_right:
        out.append(f"(tr {g.team_right})")
    out.append(f"(sl {g.score_left})(sr {g.score_right}))")
    out.append("(quat (n torso_quat) (q %s %s %s %s))(pos (n torso_pos) (p %s %s %s))"
               "(GYR (n torso_gyro) (rt %s %s %s))(ACC (n torso_acc) (a %s %s %s))" % tuple(t[2:15]))
    angles, speeds = t[15:15 + n], t[15 + n:]
    for i in _order(tuple(p.joint_names)):
        out.append(f"(HJ (n q_{p.joint_names[i]})(ax {angles[i]})(vx {speeds[i]}))")
    heard = [
        h for h in p.heard if not h.from_self and len(h.message.encode("latin-1", "replace")) <= MAX_HEARD_BYTES
    ]
    if heard:
        items = "".join(f"({int(round(h.direction))} "
                        f"{base64.b64encode(h.message.encode('latin-1', 'replace')).decode()})" for h in heard)
        out.append(f"(MIC hear {items})")
    if p.vision is not None:
        v = p.vision
        polars = list(v.objects.values()) + [pol for pl in v.players for pol in pl.parts.values()]
        nums = _trunc_all([x for pol in polars for x in (pol.distance, pol.azimuth, pol.elevation)], 2)
        pols = [f"(pol {nums[3 * i]} {nums[3 * i + 1]} {nums[3 * i + 2]})" for i in range(len(polars))]
        seen = [f"({name} {pols[i]})" for i, name in enumerate(v.objects)]
        k = len(v.objects)
        for player in v.players:
            parts = "".join(f"({part} {pols[k + j]})" for j, part in enumerate(player.parts))
            k += len(player.parts)
            seen.append(f"(P (team {player.team})(id {player.unum}){parts})")
        out.append("(See " + "".join(seen) + ")")
    return "".join(out).encode()
