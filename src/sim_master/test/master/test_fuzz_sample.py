"""A seeded sample of tools/fuzz_ports.py in every test run: thousands of generated hostile
inputs on both agent ports, both monitor ports and the service port, while one good agent
per dialect plays. No input may reach an unforeseen exception, stop the server or cost a
good agent a cycle. The long run (100 000+ inputs) is the tool itself."""
from __future__ import annotations

import fuzz_ports  # tools/ on pythonpath (pytest.ini)


def test_generated_hostile_input_on_every_port_leaves_the_match_playing() -> None:
    result = fuzz_ports.fuzz_match(per_port=800, seed=20261124)
    assert result["server_alive"]
    assert result["internal_errors"] == 0, result["internal_error_samples"]
    assert result["mujoco_warnings"] == 0 and result["physics_faults"] == 0, "a hostile number reached the physics"
    assert result["inputs"] == dict.fromkeys(result["inputs"], 800) and len(result["inputs"]) == 5
    assert result["refusals_logged"] > 20, "the inputs did not reach the parsers"
    assert result["good_cycles_after_fuzz"] >= 10, result
    assert all(n >= result["cycles"] - 2 for n in result["good_agents_cycles"]), result


def test_generator_is_reproducible_and_hostile() -> None:
    import random

    a = [fuzz_ports.message(random.Random(7)) for _ in range(3)]
    b = [fuzz_ports.message(random.Random(7)) for _ in range(3)]
    assert a == b
    rng = random.Random(1)
    sample = b"".join(fuzz_ports.message(rng) for _ in range(2000))
    for hostile in (b"1e400", b"nan", b"inf", b"(((((", b"\x00"):
        assert hostile in sample, hostile
