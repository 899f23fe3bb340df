"""SimSpark / rcssserver3d 0.7 agent dialect (port 3100).

Perception order and number format follow the captured samples: time, GS, hear, GYR,
ACC, HJ hj1, HJ hj2, See, the other HJ with each foot's FRP after its lj5 (toe FRP after
lj7), two decimals everywhere."""
from __future__ import annotations

import math
import re
from functools import lru_cache
from itertools import chain
from typing import Final

from sim_bridge.sexp import integer, number, predicates
from sim_contracts.commands import Beam, Command, InitPlayer, JointVelocities, Pass, Say, Scene, Syn
from sim_contracts.percept import Percept, Vision

_RSG_TYPE: Final = re.compile(r"nao_hetero\.rsg$|nao\.rsg$")
_FRP_AFTER: Final = {"rlj5": "rf", "llj5": "lf", "rlj7": "rf1", "llj7": "lf1"}


def encode_vision(vision: Vision) -> str:
    """The See of one vision: one template (names in place, %.2f for the numbers) and one
    %-format over all of its numbers, since a See holds about a hundred items."""
    pieces = [_item(name) for name in vision.objects]
    values = list(chain.from_iterable(vision.objects.values()))
    for player in vision.players:
        pieces.append(_player(player.team, player.unum) + " ".join([_item(part) for part in player.parts]) + ")")
        values.extend(chain.from_iterable(player.parts.values()))
    for a, b in vision.lines:
        pieces.append(_LINE)
        values.extend(a)
        values.extend(b)
    return ("(See " + " ".join(pieces) + ")") % tuple(values)


@lru_cache(maxsize=1024)
def _item(name: str) -> str:
    return "(%s (pol %%.2f %%.2f %%.2f))" % name.replace("%", "%%")


@lru_cache(maxsize=1024)
def _player(team: str, unum: int) -> str:
    return ("(P (team %s) (id %d) " % (team, unum)).replace("%", "%%")  # a template piece: % escaped


_LINE: Final = "(L (pol %.2f %.2f %.2f) (pol %.2f %.2f %.2f))"


_NAMED: Final = frozenset(("syn", "scene", "init", "beam", "say", "pass"))  # not hinge effectors


class SimSparkDialect:
    name: Final = "simspark"
    vision_interval: Final = 3
    any_message_syncs: Final = False
    effector_delay: Final = 1  # measured on the reference (see Dialect)

    def parse_actions(self, payload: bytes) -> tuple[list[Command], list[str]]:
        pairs, errors = predicates(payload, "ascii")
        commands: list[Command] = []
        speeds: dict[str, float] = {}
        for name, args in pairs:
            if len(args) == 1 and name not in _NAMED and type(args[0]) is str:  # hinge: (he1 1.5)
                try:
                    value = float(args[0])
                except ValueError:
                    errors.append(f"bad ({name} ...): not a number: {args[0]!r}")
                    continue
                if math.isfinite(value):
                    speeds[name] = value
                else:
                    errors.append(f"bad ({name} ...): non-finite joint speed {args[0]}")
                continue
            try:
                if name == "syn":
                    commands.append(Syn())
                elif name == "scene":
                    rsg = str(args[0]) if args else ""
                    robot_type = integer(args[1], 0, 4) if len(args) > 1 else 0
                    commands.append(Scene(rsg, robot_type))
                elif name == "init":
                    fields = {a[0]: a[1] for a in args if isinstance(a, list) and len(a) == 2}
                    unum = integer(fields.get("unum", "0"), 0, 99)
                    commands.append(InitPlayer(str(fields.get("teamname", "")), unum))
                elif name == "beam":
                    if len(args) != 3:
                        raise ValueError("beam needs x y rotation")
                    x, y, rot = (number(a) for a in args)
                    commands.append(Beam(x, y, rot))
                elif name == "say":
                    commands.append(Say(" ".join(str(a) for a in args)))
                elif name == "pass":
                    commands.append(Pass())
                elif len(args) == 1 and not isinstance(args[0], list):
                    value = number(args[0])  # hinge effector: (he1 1.5)
                    if not math.isfinite(value):
                        raise ValueError(f"non-finite joint speed {args[0]}")
                    speeds[name] = value
                else:
                    errors.append(f"unknown effector ({name} ...)")
            except (ValueError, IndexError) as exc:
                errors.append(f"bad ({name} ...): {exc}")
        if speeds:
            commands.append(JointVelocities(speeds))
        return commands, errors

    def encode_percept(self, p: Percept) -> bytes:
        g = p.game
        out = ["(time (now %.2f))" % p.time, "(GS "]
        if g.unum:
            out.append(f"(unum {g.unum}) (team {g.side}) ")
        out.append("(sl %d) (sr %d) (t %.2f) (pm %s))" % (g.score_left, g.score_right, g.game_time, g.play_mode))
        for h in p.heard:
            where = "self" if h.from_self else "%.2f" % h.direction
            out.append(f"(hear {h.team} {h.time:.2f} {where} {h.message})")
        out.append("(GYR (n torso) (rt %.2f %.2f %.2f))" % p.gyro)
        out.append("(ACC (n torso) (a %.2f %.2f %.2f))" % p.accel)
        frp = {f.name: f for f in p.foot_resistance}
        segments = _joint_segments(tuple(p.joint_names))
        angles = p.joint_angles
        for start, end, template, after in segments:
            out.append(template % tuple(angles[start:end]))
            if after == "See":
                if p.vision is not None:
                    out.append(encode_vision(p.vision))
            elif after in frp:
                f = frp[after]
                out.append("(FRP (n %s) (c %.2f %.2f %.2f) (f %.2f %.2f %.2f))" % (after, *f.center, *f.force))
        return "".join(out).encode()


@lru_cache(maxsize=64)
def _joint_segments(names: tuple[str, ...]) -> list[tuple[int, int, str, str]]:
    """The HJ list cut where See (after the 2nd joint) or an FRP (after lj5/lj7) goes:
    (start, end, one %-template for the angles of joints start..end-1, what follows)."""
    cuts: list[tuple[int, str]] = [] if len(names) >= 2 else [(len(names), "See")]
    for i, name in enumerate(names):
        if i == 1:
            cuts.append((i + 1, "See"))
        if name in _FRP_AFTER:
            cuts.append((i + 1, _FRP_AFTER[name]))
    segments, start = [], 0
    for end, after in sorted(cuts) + [(len(names), "")]:
        template = "".join("(HJ (n %s) (ax %%.2f))" % n for n in names[start:end])
        segments.append((start, end, template, after))
        start = end
    return segments


def robot_type_of(rsg: str, robot_type: int) -> int:
    """rsg/agent/nao/nao.rsg is type 0; nao_hetero.rsg takes the type argument."""
    return 0 if rsg.endswith("nao.rsg") else robot_type
