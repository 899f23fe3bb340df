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

import numpy as np

Table = list[tuple[float, list[float]]]


def score(args: tuple[Table, str, list[int]]) -> tuple[float, int]:
    table, side, variants = args
    side = "front" if side == "after_roll" else side
    if side == "kick":
        return kick_score(table, variants)
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


def kick_score(table: Table, variants: list[int]) -> tuple[float, int]:
    """Distance forward, less what went sideways; a fall costs 5 m. Variants move the ball."""
    from soccer_team.trial import kick_trial

    spots = [(0.17, 0.055), (0.15, 0.04), (0.19, 0.07), (0.16, 0.075), (0.18, 0.035)]
    total, ok = 0.0, 0
    for v in variants:
        result = kick_trial("r", tuple((s, tuple(a)) for s, a in table), spots[v % len(spots)])
        total += result.distance - 0.5 * abs(result.sideways) - 5.0 * result.fell
        ok += result.distance >= 4.0 and not result.fell
    return total / len(variants), ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--motion", choices=("front", "roll", "after_roll", "kick"), default="front")
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
    parser.add_argument("--out", default="getup.json")
    args = parser.parse_args()
    from soccer_team import getup, kick

    tables = {"front": getup.FRONT, "kick": kick.RIGHT_KICK, "roll": getup.ROLL,
              "after_roll": getup.AFTER_ROLL}
    table: Table = json.loads(open(args.start).read()) if args.start else \
        [(s, list(a)) for s, a in tables[args.motion]]
    flat = np.array([v for s, a in table for v in (s, *a)])
    width = len(table[0][1]) + 1
    lo = np.array([0.06 if i % width == 0 else -130.0 for i in range(len(flat))])
    hi = np.array([1.2 if i % width == 0 else 130.0 for i in range(len(flat))])
    sigma = np.array([0.1 if i % width == 0 else 20.0 for i in range(len(flat))])
    fixed = args.fixed if args.fixed >= 0 else getup.FIXED.get(args.motion, 0)
    sigma[: fixed * width] = 0.0  # the leading poses that reach a known state stay as they are
    mean = flat
    rng = np.random.default_rng(args.seed)
    variants = list(range(args.variants)) + [100 + v for v in range(args.after_roll)]
    if args.motion == "after_roll":  # the front's get-up from where the roll leaves a robot only
        variants = [100 + v for v in range(args.variants)]

    def unflat(v: np.ndarray) -> Table:
        return [(float(v[i]), [round(float(x), 1) for x in v[i + 1:i + width]]) for i in range(0, len(v), width)]

    best: tuple[float, Table, int] = (-1e9, table, 0)
    started = time.monotonic()
    with ProcessPoolExecutor(args.workers) as pool:
        for gen in range(args.generations):
            samples = [mean] + [np.clip(mean + sigma * rng.standard_normal(len(mean)), lo, hi)
                                for _ in range(args.population - 1)]
            results = list(pool.map(score, [(unflat(s), args.motion, variants) for s in samples]))
            order = np.argsort([-r[0] for r in results])
            elite = np.array([samples[i] for i in order[: max(2, args.population // 4)]])
            mean = elite.mean(axis=0)
            floor = np.where(np.arange(len(mean)) % width == 0, 0.01, 1.0)
            sigma = np.maximum(0.7 * sigma + 0.3 * elite.std(axis=0), floor)
            sigma[: fixed * width] = 0.0
            top = results[order[0]]
            if top[0] > best[0]:
                best = (top[0], unflat(samples[order[0]]), top[1])
            print(json.dumps({"generation": gen, "score": round(top[0], 3), "stood": f"{top[1]}/{len(variants)}",
                              "best": round(best[0], 3), "best_stood": best[2],
                              "s": round(time.monotonic() - started, 1)}),
                  flush=True)
            with open(args.out, "w") as out:
                json.dump(best[1], out)
    print(json.dumps({"best": best[1]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
