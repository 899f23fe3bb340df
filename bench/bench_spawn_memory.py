"""Memory of spawn + delete pairs (issue 42: +7 kB a pair with no plateau, 1208 pairs): an
in-process server spawns an entity from SDF text (a new text each time, or the same one) and
deletes it, `--pairs` times, and prints one JSON line per engine with the server's RSS every
250 pairs (flat after warm-up: a spawned model is let go with its last entity)."""
from __future__ import annotations

import argparse
import json

import psutil

from sim_master.master.config import ServerConfig
from sim_master.server.in_thread import serving

SDF = ('<sdf version="1.9"><model name="box{i}"><link name="l"><inertial><mass>1</mass></inertial>'
       '<collision name="c"><geometry><box><size>0.1 0.1 0.1</size></box></geometry></collision></link></model></sdf>')


def run(engine: str, pairs: int, vary: bool) -> dict[str, object]:
    config = ServerConfig(sync=False, realtime=False, simspark_port=None, rcsssmj_port=None,
                          simspark_monitor_port=None, rcsssmj_monitor_port=None, service_port=None, ros=False,
                          vision_noise=False, web_port=None, draw_port=None, engine=engine)
    proc = psutil.Process()
    rss: list[tuple[int, float]] = []
    with serving(config) as server:
        loop = server.loop
        for i in range(pairs + 1):
            text = SDF.format(i=i if vary else 0)
            out = loop.calls.call(lambda t=text: loop.entities.spawn_entity("thing", "", False, (1.0, 1.0, 0.3),
                                                                            (1.0, 0.0, 0.0, 0.0), resource_string=t))
            if out.error:
                raise RuntimeError(out.text)
            error = server.loop.calls.call(lambda: server.loop.entities.delete_entity("thing"))
            if error:
                raise RuntimeError(error)
            if i % 250 == 0:
                rss.append((i, round(proc.memory_info().rss / 1e6, 2)))
    after_warmup = [mb for n, mb in rss if n >= 250]
    return {"bench": "spawn_memory", "engine": engine, "pairs": pairs, "new_sdf_each_time": vary,
            "rss_mb_every_250": rss, "growth_kb_per_pair_after_250":
                round((after_warmup[-1] - after_warmup[0]) * 1000 / max(1, pairs - 250), 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--engines", nargs="*", default=["ode", "mujoco"])
    args = parser.parse_args()
    for engine in args.engines:
        for vary in (True, False):
            print(json.dumps(run(engine, args.pairs, vary)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
