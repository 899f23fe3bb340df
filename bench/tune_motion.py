#!/usr/bin/env python3
"""Tune the base team's get-ups and kick on the real engine: the cross-entropy method over the
key poses in soccer_team/getup.py and kick.py. A get-up is played on robots laid down in several
ways and scored by how upright and how high they stand a second and a half after the motion; a
kick by how far the ball goes forward from a few spots before the foot, a fall costing 5 m.

    python bench/tune_motion.py --motion front --generations 30 --out /tmp/front.json

Prints one JSON line per generation and writes the best table (seconds, angles) as JSON.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import fields

import numpy as np

Table = list[tuple[float, list[float]]]


def score(args: tuple[list[Table], str, list[int], str]) -> tuple[float, int]:
    tables, side, variants, model = args
    table = tables[-1]
    side = "front" if side == "after_roll" else side
    if side == "back":  # the roll and the poses after it, together
        from soccer_team.getup_trials import getup_trial

        results = [getup_trial("back", v, tables[1], roll=tables[0]) for v in variants]
        return sum(r.score for r in results) / len(results), sum(r.stood for r in results)
    if side == "kick":
        return kick_score(tables[0][0][1], variants, model)
    if side == "roll":
        from soccer_team.getup_trials import roll_trial

        results = [roll_trial(v, table) for v in variants]
        return sum(r[0] for r in results) / len(results), sum(r[1] for r in results)
    from soccer_team.getup_trials import getup_trial

    total, ok = 0.0, 0
    for variant in variants:
        result = getup_trial(side, variant, table)
        total += result.score
        ok += result.stood
    return total / len(variants), ok


SPOTS = [(0.19, 0.055), (0.17, 0.04), (0.21, 0.07), (0.18, 0.075), (0.20, 0.035)]


def kick_score(vector: list[float], variants: list[int], model: str = "nao0") -> tuple[float, int]:
    """Distance forward, less what went sideways; a fall costs 5 m. Variants move the ball
    (the spots set out as far as `model`'s hips are)."""
    from soccer_team.kick import KickParams, kick_spot
    from soccer_team.leg_kinematics import legs_of
    from soccer_team.trial import kick_trial

    params = KickParams.from_vector(vector)
    legs = legs_of(model)
    total, ok = 0.0, 0
    for v in variants:
        result = kick_trial("r", params, kick_spot(legs, SPOTS[v % len(SPOTS)]), model=model)
        total += result.distance - 0.5 * abs(result.sideways) - 5.0 * result.fell
        ok += result.distance >= 4.0 and not result.fell
    return total / len(variants), ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--motion", choices=("front", "roll", "after_roll", "back", "kick"), default="front",
                        help="back: the roll and the front's poses after it, together (--start: [roll, front]); "
                             "after_roll: the front's poses from where the roll leaves a robot only")
    parser.add_argument("--generations", type=int, default=30)
    parser.add_argument("--population", type=int, default=16)
    parser.add_argument("--variants", type=int, default=3, help="lying starts per candidate")
    parser.add_argument("--start", default="", help="JSON table to start from (default: getup.py's)")
    parser.add_argument("--after-roll", type=int, default=0,
                        help="front: also this many starts face down as the roll from the back leaves it")
    parser.add_argument("--fixed", type=int, default=-1,
                        help="leading key poses kept as they are (default: getup.FIXED's; kick: 0)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--model", default="nao0",
                        help="kick: the robot type (nao0 ... nao4); it starts from that type's kick "
                             "(kick.kick_params), and --start holds the type's own figures")
    parser.add_argument("--out", default="getup.json")
    args = parser.parse_args()
    if args.model != "nao0" and args.motion != "kick":
        parser.error("--model goes with --motion kick (the get-ups are tuned on type 0)")
    from soccer_team import getup, kick

    tables = {"front": [getup.FRONT], "roll": [getup.ROLL],
              "after_roll": [getup.FRONT], "back": [getup.ROLL, getup.FRONT]}
    start = json.loads(open(args.start).read()) if args.start else None
    if args.motion == "kick":  # KickParams' figures, as one row (its "time" is unused)
        names = [f.name for f in fields(kick.KickParams)]
        from soccer_team.leg_kinematics import legs_of

        defaults = kick.kick_params(args.model, legs_of(args.model))  # its own kick, or type 0's scaled
        values = [start.get(n, getattr(defaults, n)) for n in names] if start else list(defaults.vector())
        start = [[(0.0, values)]]
    elif start is not None and args.motion != "back":
        start = [start]
    segments: list[Table] = start or [[(s, list(a)) for s, a in t] for t in tables[args.motion]]
    widths = [len(t[0][1]) + 1 for t in segments]
    flat = np.concatenate([[v for s, a in t for v in (s, *a)] for t in segments])
    # which entries are durations (the first of each pose) and which pose each entry belongs to
    is_time = np.concatenate([np.arange(len(t) * w) % w == 0 for t, w in zip(segments, widths, strict=True)])
    lo = np.where(is_time, 0.06, -130.0)
    hi = np.where(is_time, 1.2, 130.0)
    sigma = np.where(is_time, 0.1, 20.0)
    if args.motion == "kick":  # metres and seconds: a fifth of each figure, 3 cm at least
        is_time[0] = False
        sigma = np.maximum(0.2 * np.abs(flat), 0.03)
        sigma[0] = 0.0
        lo, hi = np.full(len(flat), -0.4), np.full(len(flat), 1.2)
        lo[-5:] = 0.06  # the poses' times
    own = "after_roll" if args.motion == "back" else args.motion
    fixed = args.fixed if args.fixed >= 0 else getup.FIXED.get(own, 0)
    last = segments[-1]
    frozen = np.zeros(len(flat), dtype=bool)  # the last segment's leading poses that reach a known state
    frozen[len(flat) - len(last) * widths[-1]:len(flat) - (len(last) - fixed) * widths[-1]] = True
    if args.motion == "kick":
        frozen[0] = True  # the row's unused time
    sigma[frozen] = 0.0
    mean = flat
    rng = np.random.default_rng(args.seed)
    variants = list(range(args.variants)) + [100 + v for v in range(args.after_roll)]
    if args.motion == "after_roll":  # the front's get-up from where the roll leaves a robot only
        variants = [100 + v for v in range(args.variants)]

    def unflat(v: np.ndarray) -> list[Table]:
        out, at = [], 0
        for t, w in zip(segments, widths, strict=True):
            rows = range(at, at + len(t) * w, w)
            digits = 4 if args.motion == "kick" else 1
            out.append([(float(v[i]), [round(float(x), digits) for x in v[i + 1:i + w]]) for i in rows])
            at += len(t) * w
        return out

    best: tuple[float, list[Table], int] = (-1e9, segments, 0)
    started = time.monotonic()
    with ProcessPoolExecutor(args.workers) as pool:
        for gen in range(args.generations):
            samples = [mean] + [np.clip(mean + sigma * rng.standard_normal(len(mean)), lo, hi)
                                for _ in range(args.population - 1)]
            results = list(pool.map(score, [(unflat(s), args.motion, variants, args.model) for s in samples]))
            order = np.argsort([-r[0] for r in results])
            elite = np.array([samples[i] for i in order[: max(2, args.population // 4)]])
            mean = elite.mean(axis=0)
            floor = np.full(len(mean), 0.003) if args.motion == "kick" else np.where(is_time, 0.01, 1.0)
            sigma = np.maximum(0.7 * sigma + 0.3 * elite.std(axis=0), floor)
            sigma[frozen] = 0.0
            top = results[order[0]]
            if top[0] > best[0]:
                best = (top[0], unflat(samples[order[0]]), top[1])
            print(json.dumps({"generation": gen, "score": round(top[0], 3), "stood": f"{top[1]}/{len(variants)}",
                              "best": round(best[0], 3), "best_stood": best[2],
                              "s": round(time.monotonic() - started, 1)}),
                  flush=True)
            written: object = best[1] if args.motion == "back" else best[1][0]
            if args.motion == "kick":
                written = dict(zip([f.name for f in fields(kick.KickParams)], best[1][0][0][1], strict=True))
            with open(args.out, "w") as out:
                json.dump(written, out)
    print(json.dumps({"best": written}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
