"""The SimSpark perception encoder in Python: the reference the compiled one
(sim_hotpath.encode_simspark_percept) is checked against, byte for byte."""
from __future__ import annotations

from functools import lru_cache
from itertools import chain
from typing import Final

from sim_contracts.percept import Percept, Vision

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
    for name, numbers in vision.truth.items():  # ground truth, when offered
        pieces.append("(" + name.replace("%", "%%") + " %.2f" * len(numbers) + ")")
        values.extend(numbers)
    return ("(See " + " ".join(pieces) + ")") % tuple(values)


@lru_cache(maxsize=1024)
def _item(name: str) -> str:
    return "(%s (pol %%.2f %%.2f %%.2f))" % name.replace("%", "%%")


@lru_cache(maxsize=1024)
def _player(team: str, unum: int) -> str:
    return ("(P (team %s) (id %d) " % (team, unum)).replace("%", "%%")  # a template piece: % escaped


_LINE: Final = "(L (pol %.2f %.2f %.2f) (pol %.2f %.2f %.2f))"


def encode_percept(p: Percept) -> bytes:
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
