"""The worlds and robot models in worlds/ are what tools/gen_worlds.py writes: a figure
changed by hand in one file (and not in the generator) would be lost at the next run, so the
generator is the one source and this test holds the files to it."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[4]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_worlds", REPO / "tools" / "gen_worlds.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_generated_file_matches_the_generator() -> None:
    gen = _generator()
    expected = {f"models/nao{t}.sdf": gen.model_sdf(f"nao{t}", gen.nao_links(t), gen.NAO_FRICTION) for t in range(5)}
    expected["models/pusher.sdf"] = gen.pusher_sdf()
    for field in (gen.simspark_field(), gen.fifa_field(), gen.fifa7vs7_field()):
        expected[f"{field.name}.sdf"] = gen.world_sdf(field)
    expected["swarm_example.json"] = gen.swarm_config()
    stale = [name for name, text in expected.items() if (REPO / "worlds" / name).read_text() != text]
    assert not stale, f"worlds/ differs from tools/gen_worlds.py in {stale}: run python tools/gen_worlds.py"
