#!/usr/bin/env python3
"""The base team's figures on the real engines, as JSON: walking speeds and falls per
direction, kick distance, get-up successes, and what one player's thinking costs per cycle.

    python bench/bench_team.py --engines ode gazebo --walk-seconds 60 --getups 10

Each figure comes from soccer_team.trial / getup_trials (one robot, the server's sync timing).
The player's cost is its `act` alone (localisation, strategy, walk, joint speeds), timed with
the process's CPU clock while a robot plays on ODE with vision every third cycle.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time

DIRECTIONS = {"forward": (1.0, 0.0, 0.0), "backward": (-1.0, 0.0, 0.0), "left": (0.0, 1.0, 0.0),
              "right": (0.0, -1.0, 0.0), "turn_left": (0.0, 0.0, 2.0), "turn_right": (0.0, 0.0, -2.0)}


def walking(engine: str, seconds: float) -> dict[str, dict[str, float | bool]]:
    from soccer_team.motion import MotionBrain
    from soccer_team.trial import walk_trial

    out: dict[str, dict[str, float | bool]] = {}
    for name, command in DIRECTIONS.items():
        r = walk_trial(MotionBrain, command, seconds, engine)
        fwd, side, turn = r.speeds
        out[name] = {"forward_m_s": round(fwd, 3), "sideways_m_s": round(side, 3),
                     "turn_deg_s": round(math.degrees(turn), 1), "fell": r.fell, "seconds": round(r.seconds, 1)}
        print(f"[bench_team] {engine} walk {name}: {out[name]}", file=sys.stderr, flush=True)
    return out


def kicking(engine: str) -> dict[str, float | bool]:
    from soccer_team.trial import kick_trial

    results = [kick_trial(foot, engine_name=engine) for foot in "lr"]
    return {"left_m": round(results[0].distance, 2), "right_m": round(results[1].distance, 2),
            "fell": any(r.fell for r in results)}


def getting_up(engine: str, trials: int) -> dict[str, str]:
    from soccer_team.getup_trials import getup_trial

    out = {}
    for side in ("front", "back"):
        # seeds from 10 on: the tuner laid its robots down with seeds 0-7
        stood = sum(getup_trial(side, variant, engine_name=engine).stood for variant in range(10, 10 + trials))
        out[side] = f"{stood}/{trials}"
    return out


def player_cost(cycles: int) -> dict[str, float]:
    """CPU per cycle of one NaoBrain's act while its robot plays (walks to the ball) on ODE."""
    from soccer_team.player import NaoBrain
    from soccer_team.trial import make_engine

    engine = make_engine("ode")
    engine.add_robot("a", "nao", -3.0, 1.0, 0.0)
    engine.set_label("a", "Lions", 9)
    engine.set_ball((0.0, 0.0, 0.042))
    brain = NaoBrain("left", 9)
    spent = 0.0
    from sim_contracts.percept import GameStateView

    game = GameStateView(play_mode="PlayOn", team_left="Lions", team_right="Tigers")
    for cycle in range(cycles):
        percept = engine.percept("a", vision=cycle % 3 == 0)
        percept.game = game
        t0 = time.process_time()
        speeds = brain.act(percept)
        spent += time.process_time() - t0
        engine.set_joint_velocities("a", speeds)
        engine.step()
    return {"cycles": cycles, "act_ms_per_cycle": round(spent / cycles * 1000, 3),
            "22_players_ms_per_cycle": round(22 * spent / cycles * 1000, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", nargs="+", default=["ode"])
    parser.add_argument("--walk-seconds", type=float, default=60.0)
    parser.add_argument("--getups", type=int, default=10, help="lying starts per side")
    parser.add_argument("--cost-cycles", type=int, default=1500)
    args = parser.parse_args()
    report: dict[str, object] = {}
    for engine in args.engines:
        report[engine] = {"walk": walking(engine, args.walk_seconds), "kick": kicking(engine),
                          "getup": getting_up(engine, args.getups)}
        print(f"[bench_team] {engine}: {json.dumps(report[engine])}", file=sys.stderr, flush=True)
    report["player_cost"] = player_cost(args.cost_cycles)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
