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


def test_generated_hostile_input_on_the_new_surfaces_leaves_the_match_playing() -> None:
    """A seeded sample of tools/fuzz_surfaces.py (issue 42): the draw port's datagrams, the
    page's WebSocket frames, a ROS player's effector topics and the join, beam, play-mode and
    move services over DDS, every gRPC method, and damaged replay logs, while a good agent plays."""
    import fuzz_surfaces

    result = fuzz_surfaces.fuzz_surfaces(per_surface=600, seed=20261128)
    assert result["server_alive"]
    assert result["internal_errors"] == 0, result["internal_error_samples"]
    assert result["replay_escaped_count"] == 0, result["replay_escaped"]
    assert result["inputs"] == {"draw": 600, "web": 600, "dds": 600, "grpc": 600, "replay": 600}
    codes = result["grpc_codes"]
    assert "INTERNAL" not in codes and "UNKNOWN" not in codes, codes  # every refusal is the API's own
    assert codes.get("INVALID_ARGUMENT", 0) > 50 and codes.get("OK", 0) > 50, codes
    assert result["refusals_logged"] > 20, "the inputs did not reach the checks"
    assert result["good_cycles_after_fuzz"] >= 10, result


def test_the_surface_generators_are_reproducible_and_hostile() -> None:
    import random

    import fuzz_surfaces

    a = [fuzz_surfaces.draw_datagram(random.Random(3)) for _ in range(3)]
    assert a == [fuzz_surfaces.draw_datagram(random.Random(3)) for _ in range(3)]
    rng = random.Random(5)
    drawn = b"".join(fuzz_surfaces.draw_datagram(rng) for _ in range(3000))
    for hostile in (b"1e400", b"nan", b"\x01\x04\x00", b"\x00\x00\x00"):
        assert hostile in drawn, hostile
    pages = [fuzz_surfaces.page_frame(rng) for _ in range(3000)]
    assert any(isinstance(p, str) and p.startswith("[" * 50) for p in pages)
    assert any(isinstance(p, bytes) for p in pages)
