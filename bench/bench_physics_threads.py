"""ODE's step with 22 Naos on 1..N threads: time per step and the world's state hash after a
fixed number of cycles, per scenario, so speed and reproducibility show side by side.

Scenarios: `standing` (every joint swinging +-0.2 rad/s: awake, upright), `walking` (open-loop
stepping: hips, knees and ankles swing 0.3 rad at 1.25 Hz, left and right in opposition),
`flailing` (random
speeds, seeded: robots fall and get up-ish), `lying` (every joint driven one way, as agents that
fall do: robots collapse and lie with joints at their stops), `piled` (22 robots started 0.35 m
apart, flailing: they fall onto each other). The robots run in the engine itself (no agents,
no sockets): what is measured is the physics library's step (`library_step_ms`) and the
engine's whole cycle (`cycle_ms`).

One JSON object per line: scenario, threads, cycles, library_step_ms, cycle_ms, state_hash (every
body's pose and velocity, bit for bit),
pile_steps (steps whose pile was solved iteratively), and `same_as_1_thread`. Run twice with
the same arguments to see whether a threaded run repeats itself (`--repeat 2`)."""
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
from sim_physics.engine.ode.engine import OdeEngine

SCENARIOS = ("standing", "walking", "flailing", "lying", "piled")
STEP_PERIOD = 0.8  # s, walking's swing


def effectors(engine: OdeEngine, robot: str) -> list[str]:
    return [n.replace("lj", "le").replace("hj", "he").replace("aj", "ae") for n in engine.joint_names(robot)]


def walking_speeds(names: list[str], t: float) -> dict[str, float]:
    """Hip pitch, knee and ankle pitch of each leg along a 0.3 rad sine, the legs half a period apart."""
    w = 2 * np.pi / STEP_PERIOD
    speeds = dict.fromkeys(names, 0.0)
    for leg, phase in (("l", 0.0), ("r", np.pi)):
        swing = 0.3 * w * float(np.cos(w * t + phase))
        speeds[f"{leg}le3"], speeds[f"{leg}le4"], speeds[f"{leg}le5"] = swing, -2 * swing, swing
    return speeds


def run(scenario: str, threads: int, cycles: int, robots: int = 22) -> dict[str, object]:
    engine = OdeEngine("simspark_field", vision_noise=False, seed=1, step_threads=threads)
    gap = 0.35 if scenario == "piled" else 2.2
    for i in range(robots):
        row, col = divmod(i, 11)
        engine.add_robot(f"r{i}", "nao", col * gap - 5 * gap, row * (0.35 if scenario == "piled" else 4.0) - 2.0, 0.0)
    names = effectors(engine, "r0")
    rng = np.random.default_rng(7)
    lib0, t0 = engine.library_step_s, time.perf_counter()
    for k in range(cycles):
        for i in range(robots):
            if scenario == "standing":
                speeds = dict.fromkeys(names, 0.2 if k % 2 else -0.2)
            elif scenario == "walking":
                speeds = walking_speeds(names, k * 0.02)
            elif scenario == "lying":
                speeds = dict.fromkeys(names, 4.0)
            elif k % 10 == 0:
                speeds = {n: float(v) for n, v in zip(names, rng.uniform(-3, 3, len(names)))}
            else:
                continue
            engine.set_joint_velocities(f"r{i}", speeds)
        engine.step()
    wall = time.perf_counter() - t0
    return {"scenario": scenario, "threads": threads, "cycles": cycles, "robots": robots,
            "library_step_ms": round((engine.library_step_s - lib0) / cycles * 1000, 3),
            "cycle_ms": round(wall / cycles * 1000, 3), "state_hash": engine.exact_digest(),
            "pile_steps": int(getattr(engine._ode, "pile_steps", 0)), "cores": os.cpu_count()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenarios", nargs="*", default=list(SCENARIOS), choices=SCENARIOS)
    parser.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=2, help="runs per thread count (does it repeat itself?)")
    args = parser.parse_args()
    for scenario in args.scenarios:
        reference = None
        for threads in args.threads:
            for _ in range(args.repeat):
                row = run(scenario, threads, args.cycles)
                if threads == 1 and reference is None:
                    reference = row["state_hash"]
                row["same_as_1_thread"] = row["state_hash"] == reference if reference else None
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
