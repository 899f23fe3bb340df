"""Bare-engine speed: cycles per second with 1..22 Nao robots standing on the field.

One JSON object per line: robots, cycles_per_s, mj_step_us (one physics substep),
overhead_pct (time outside mj_step), rss_mb. Target (issue): 22 robots >= 500 cycles/s."""
from __future__ import annotations

import argparse
import json
import resource
import time

import mujoco

from sim_master.engine.mujoco.engine import MujocoEngine
from sim_master.master.spawn import init_slot


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(robots: int, cycles: int) -> dict[str, float]:
    engine = MujocoEngine(vision_noise=False, seed=0)
    for i in range(robots):
        side = "left" if i % 2 == 0 else "right"
        x, y, yaw = init_slot(side, i // 2, engine.field.length, engine.field.width)
        engine.add_robot(f"r{i}", "nao0", x, y, yaw)
    for _ in range(50):  # settle
        engine.step()
    start = time.perf_counter()
    for _ in range(cycles):
        engine.step()
    elapsed = time.perf_counter() - start
    # Bare physics: the same number of mj_step calls without our per-cycle work.
    start = time.perf_counter()
    for _ in range(cycles * engine.substeps):
        mujoco.mj_step(engine.model, engine.data)
    bare = time.perf_counter() - start
    return {"robots": robots, "cycles_per_s": round(cycles / elapsed, 1),
            "mj_step_us": round(bare / (cycles * engine.substeps) * 1e6, 1),
            "overhead_pct": round(100 * (elapsed - bare) / elapsed, 1), "rss_mb": round(rss_mb(), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cycles", type=int, default=500)
    parser.add_argument("--robots", type=int, nargs="*", default=[1, 2, 6, 11, 22])
    args = parser.parse_args()
    for n in args.robots:
        print(json.dumps(measure(n, args.cycles)), flush=True)


if __name__ == "__main__":
    main()
