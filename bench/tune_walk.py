#!/usr/bin/env python3
"""Tune the base team's walk on the real engine: the cross-entropy method over WalkParams,
each candidate walked for a few seconds (soccer_team.trial), scored by the distance covered in
the wanted direction, less what it drifted, with a fall costing the rest of the trial.

    python bench/tune_walk.py --direction forward --generations 25 --out /tmp/walk.json

Prints one JSON line per generation (best score, its speeds) and writes the best parameters.
The defaults in soccer_team/walk.py come from runs of this script (docs/team.md).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import fields

import numpy as np

COMMANDS = {"forward": (1.0, 0.0, 0.0), "backward": (-1.0, 0.0, 0.0), "left": (0.0, 1.0, 0.0),
            "right": (0.0, -1.0, 0.0), "turn": (0.0, 0.0, 2.0), "turn_right": (0.0, 0.0, -2.0)}
# what is tuned, and the range a sample is kept in
RANGES = {"step_time": (0.12, 0.4), "height": (0.15, 0.205), "step_height": (0.005, 0.06), "sway": (0.0, 0.04),
          "width": (-0.005, 0.03), "lean": (-0.1, 0.35), "x_offset": (-0.04, 0.04), "max_x": (0.0, 0.14),
          "max_y": (0.0, 0.07), "max_turn": (0.0, 0.6), "gyro_pitch": (-0.3, 0.3), "gyro_roll": (-0.3, 0.3),
          "swing_shape": (0.3, 3.0), "accel": (0.1, 1.0)}


def score(args: tuple[dict[str, float], str, float, str, int, float]) -> tuple[float, dict[str, float]]:
    values, direction, seconds, engine, delay, drift_weight = args
    from soccer_team.motion import MotionBrain
    from soccer_team.trial import walk_trial
    from soccer_team.walk import WalkParams

    if direction == "all":  # every direction, each counted against the least speed
        total, parts = 0.0, {}
        for name, least in (("forward", 0.35), ("backward", 0.15), ("left", 0.15), ("right", 0.15),
                            ("turn", 0.52), ("turn_right", 0.52)):  # 60 deg/s scores 0.52 per s
            one, seen = score((values, name, seconds, engine, delay, drift_weight))
            total += min(one / (least * seconds), 1.6) if one > 0 else one / (least * seconds)
            parts[name] = seen
        return total, parts
    params = WalkParams(**values)
    command = COMMANDS[direction]
    result = walk_trial(lambda: MotionBrain(params, effector_delay=delay), command, seconds, engine, delay=delay)
    fwd, side, turn = result.forward, result.sideways, result.turned
    if direction in ("forward", "backward"):
        gain, drift = fwd * command[0], abs(side) + 0.3 * abs(turn)
    elif direction in ("left", "right"):
        gain, drift = side * command[1], abs(fwd) + 0.3 * abs(turn)
    else:
        gain, drift = turn * command[2] * 0.25, 0.5 * (abs(fwd) + abs(side))
    value = gain - drift_weight * drift
    if result.fell:
        value -= 1.0 + (seconds - result.seconds) * 0.2
    return value, {"forward": round(fwd / seconds, 3), "sideways": round(side / seconds, 3),
                   "turn_deg_s": round(math.degrees(turn) / seconds, 1), "fell": result.fell}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--direction", choices=[*sorted(COMMANDS), "all"], default="forward",
                        help="what a walk is scored on; all: every direction, each against the issue's least speed")
    parser.add_argument("--generations", type=int, default=20)
    parser.add_argument("--population", type=int, default=12)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--engine", default="ode")
    parser.add_argument("--start", default="", help="JSON file of WalkParams to start from")
    parser.add_argument("--tune", default=",".join(RANGES), help="the fields to tune (comma-separated)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--drift-weight", type=float, default=1.0, help="metres of gain a metre of drift costs")
    parser.add_argument("--delay", type=int, default=0,
                        help="cycles the answers act late (0: ROS-native and in-process players; 1: the SimSpark port)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="walk_params.json")
    args = parser.parse_args()
    from soccer_team.walk import WalkParams

    base = {f.name: getattr(WalkParams(), f.name) for f in fields(WalkParams)}
    if args.start:
        base.update(json.loads(open(args.start).read()))
    names = [n.strip() for n in args.tune.split(",") if n.strip()]
    for name in names:
        if name not in RANGES:
            print(f"tune_walk: no range for {name!r}; tunable: {', '.join(RANGES)}", file=sys.stderr)
            return 2
    lo = np.array([RANGES[n][0] for n in names])
    hi = np.array([RANGES[n][1] for n in names])
    mean = np.array([base[n] for n in names])
    sigma = (hi - lo) * 0.15
    rng = np.random.default_rng(args.seed)
    best: tuple[float, dict[str, float], dict[str, float]] = (-1e9, base, {})
    started = time.monotonic()
    with ProcessPoolExecutor(args.workers) as pool:
        for gen in range(args.generations):
            samples = [mean] + [np.clip(mean + sigma * rng.standard_normal(len(names)), lo, hi)
                                for _ in range(args.population - 1)]
            candidates = [{**base, **dict(zip(names, map(float, s), strict=True))} for s in samples]
            jobs = [(c, args.direction, args.seconds, args.engine, args.delay, args.drift_weight) for c in candidates]
            results = list(pool.map(score, jobs))
            order = np.argsort([-r[0] for r in results])
            elite = np.array([samples[i] for i in order[: max(2, args.population // 3)]])
            mean = elite.mean(axis=0)
            sigma = np.maximum(0.7 * sigma + 0.3 * elite.std(axis=0), (hi - lo) * 0.01)
            top = results[order[0]]
            if top[0] > best[0]:
                best = (top[0], candidates[order[0]], top[1])
            print(json.dumps({"generation": gen, "score": round(top[0], 3), "best": round(best[0], 3),
                              "at": best[2], "s": round(time.monotonic() - started, 1)}), flush=True)
            with open(args.out, "w") as out:
                json.dump(best[1], out, indent=1)
    print(json.dumps({"best_params": {n: round(best[1][n], 4) for n in names}, "result": best[2]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
