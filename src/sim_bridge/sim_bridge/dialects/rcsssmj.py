"""rcsssmj 0.2 agent dialect (port 60000).

Perception: time, GS, quat, pos, GYR, ACC, HJ (ax/vx in deg, deg/s), MIC, See (every 2nd
cycle); numbers truncated and printed as Python prints floats, like the reference. Actions:
`(init <model> <team> <unum>)`, 6-element motor nodes with q/dq in degrees, SPK, beam,
syn. Any message counts as the agent's sync."""
from __future__ import annotations

import base64
import binascii
import math
from functools import lru_cache
from typing import Final

import numpy as np

from sim_bridge.sexp import integer, number, predicates
from sim_contracts.commands import Beam, Command, InitPlayer, JointTargets, Say, Syn
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


_NAMED: Final = frozenset(("syn", "init", "beam", "SPK"))  # not motors


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


class RcsssmjDialect:
    name: Final = "rcsssmj"
    vision_interval: Final = 2
    any_message_syncs: Final = True
    effector_delay: Final = 1  # measured on the reference (see Dialect)

    def parse_actions(self, payload: bytes) -> tuple[list[Command], list[str]]:
        pairs, errors = predicates(payload, "utf-8")
        commands: list[Command] = []
        targets: dict[str, tuple[float, float, float, float, float]] = {}
        for name, args in pairs:
            if len(args) == 5 and name not in _NAMED:  # motor: (he1 q dq kp kd tau), the common case
                try:
                    # a nested list is no number: the unpacking then fails like a bad atom
                    q, dq, kp, kd, tau = (float(a) for a in args if not isinstance(a, list))
                except (ValueError, TypeError):
                    errors.append(f"bad ({name} ...): expected 5 numbers")
                    continue
                if not all(map(math.isfinite, (q, dq, kp, kd, tau))):
                    errors.append(f"bad ({name} ...): non-finite number")
                    continue
                targets[name] = (math.radians(q), math.radians(dq), kp, kd, tau)
                continue
            try:
                if name == "syn":
                    commands.append(Syn())
                elif name == "init":
                    if len(args) != 3:
                        raise ValueError("init needs <model> <team> <unum>")
                    commands.append(InitPlayer(str(args[1]), abs(integer(args[2], -999, 999)) % 100, str(args[0])))
                elif name == "beam":
                    if len(args) != 3:
                        raise ValueError("beam needs x y theta")
                    x, y, theta = (number(a) for a in args)
                    commands.append(Beam(x, y, theta))
                elif name == "SPK":
                    if len(args) < 3:
                        raise ValueError("SPK needs <speaker> <volume> <base64>")
                    raw = base64.b64decode(str(args[2]), validate=True)
                    commands.append(Say(raw.decode("latin-1")))
                elif len(args) == 5:
                    q, dq, kp, kd, tau = (number(a) for a in args)
                    targets[name] = (math.radians(q), math.radians(dq), kp, kd, tau)
                else:
                    errors.append(f"unknown action node ({name} ...)")
            except (ValueError, binascii.Error) as exc:
                errors.append(f"bad ({name} ...): {exc}")
        if targets:
            commands.append(JointTargets(targets))
        return commands, errors

    def encode_percept(self, p: Percept) -> bytes:
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
