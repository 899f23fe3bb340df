"""Bare-engine speed: cycles per second with 1..22 Nao robots standing on the field, for
each physics engine in one run (MuJoCo, gz-physics with DART, ODE). Standing Naos on ODE fall
asleep after a few cycles (bodies auto-disabled at rest, as on rcssserver3d), so its figures
are those of a resting team; bench_sync.py drives every joint.

One JSON object per line: engine, robots, cycles_per_s (engine.step(): physics and the
engine's own per-cycle work), step_us (one bare physics step: mj_step, or one DART step
through gz-physics, one dWorldStep), steps_per_cycle, overhead_pct (time outside the bare physics steps),
rss_mb. Targets (issues): MuJoCo 22 robots >= 500 cycles/s; gz-physics 22 robots >= 200."""
from __future__ import annotations

import argparse
import json
import resource
import time
from collections.abc import Callable

from sim_physics.engine.factory import PHYSICS_ENGINES, physics_engine

from sim_master.master.spawn import init_slot


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bare_step(engine: object) -> tuple[Callable[[], None], int]:
    """One bare physics step of the engine, and how many make a cycle."""
    from sim_physics.engine.articulated import ArticulatedEngine
    from sim_physics.engine.mujoco.engine import MujocoEngine

    if isinstance(engine, MujocoEngine):
        import mujoco

        model, data = engine.model, engine.data
        return (lambda: mujoco.mj_step(model, data)), engine.substeps
    assert isinstance(engine, ArticulatedEngine)  # gz-physics or ODE
    world = engine._physics
    return (lambda: world.step(1)), engine.substeps


def measure(kind: str, robots: int, cycles: int) -> dict[str, float | str]:
    engine = physics_engine(kind, "simspark_field", vision_noise=False, seed=0)
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
    step, per_cycle = bare_step(engine)
    start = time.perf_counter()
    for _ in range(cycles * per_cycle):
        step()
    bare = time.perf_counter() - start
    return {"engine": kind, "robots": robots, "cycles_per_s": round(cycles / elapsed, 1),
            "step_us": round(bare / (cycles * per_cycle) * 1e6, 1), "steps_per_cycle": per_cycle,
            "overhead_pct": round(100 * max(0.0, elapsed - bare) / elapsed, 1), "rss_mb": round(rss_mb(), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cycles", type=int, default=500)
    parser.add_argument("--robots", type=int, nargs="*", default=[1, 11, 22])
    engines = [k for k in PHYSICS_ENGINES if k != "auto"]  # auto is one of these per robot league
    parser.add_argument("--engine", nargs="*", default=engines, choices=engines)
    args = parser.parse_args()
    for kind in args.engine:
        for n in args.robots:
            print(json.dumps(measure(kind, n, args.cycles)), flush=True)


if __name__ == "__main__":
    main()
