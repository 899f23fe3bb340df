"""Sync mode perceives the agent ports' players while ODE steps (rcssserver3d's order; the
loop's docstring): every percept, its answer and the answer's effect come at the same cycle as
when they are perceived after the step (`--sequential-step`), only sooner.

One SimSpark agent answers each percept by its time alone (a beam, a say, then every joint
swinging), once on each order. Keyed by the state each percept shows (the overlapped order's
first percept is the state the agent's robot was created in, one before the sequential
order's first), every percept's body (time, game state, gyro, ACC, joints, feet, what was
heard) is the same bytes; only vision, every third percept of a connection, falls one cycle
earlier (it starts with the first percept)."""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from sim_bridge.clients import SimSparkAgent

NOW = re.compile(rb"\(time \(now ([0-9.]+)\)\)")
SEE = re.compile(rb"\(See .*?\)(?=\(HJ|\(GYR|\(ACC|\(FRP|\(hear|$)")
ANNOUNCE = re.compile(rb"\(unum \d+\) \(team \w+\) ")
CYCLE = 0.02
LAST = 110


def _answer(key: int) -> tuple[dict[str, float], str]:
    """What the agent sends in answer to the percept of state `key` (its join is state 0)."""
    if key == 10:
        return {}, "(beam -2.0 1.0 30.0)"
    if key == 15:
        return {}, "(say hello)"
    if 25 <= key:
        return {"he1": 2.0 * math.sin(key / 5), "lle3": 1.5 * math.sin(key / 7), "rae1": -3.0 * math.cos(key / 4),
                "lle4": -1.0 if key % 20 < 10 else 1.0}, ""
    return {}, ""


def _first_difference(a: bytes, b: bytes) -> tuple[bytes, bytes]:
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return a[max(0, at - 80):at + 80], b[max(0, at - 80):at + 80]


def _play(running_server: Callable[..., Any], overlapped: bool) -> dict[int, bytes]:
    """Every percept's body, keyed by the state it shows (0: the first after the robot's join)."""
    bodies: dict[int, bytes] = {}
    with running_server(engine="ode", overlap_step=overlapped) as server:
        agent = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Order", 1)
        first = agent.join()
        found = NOW.search(first)
        assert found is not None, first[:200]
        start = round(float(found.group(1)) / CYCLE) + (1 if overlapped else 0)
        while True:
            msg = agent.receive()
            found = NOW.search(msg)
            assert found is not None, msg[:200]
            key = round(float(found.group(1)) / CYCLE) - start
            bodies[key] = NOW.sub(b"", ANNOUNCE.sub(b"", SEE.sub(b"", msg)))  # the run's clock apart
            if key >= LAST:
                break
            speeds, extra = _answer(key)
            agent.send("".join(f"({n} {v:.4f})" for n, v in speeds.items()) + extra + "(syn)")
        agent.close()
    return bodies


def test_percepts_while_stepping_are_the_percepts_after_the_step(running_server: Callable[..., Any]) -> None:
    overlapped = _play(running_server, True)
    sequential = _play(running_server, False)
    keys = range(1, LAST + 1)
    assert all(k in overlapped and k in sequential for k in keys), "a state was not perceived on one order"
    differing = [k for k in keys if overlapped[k] != sequential[k]]
    assert not differing, (differing[:5], _first_difference(overlapped[differing[0]], sequential[differing[0]]))
    assert any(b"(hear" in overlapped[k] for k in keys), "the say was not heard"
    head = re.compile(rb"\(HJ \(n hj1\) \(ax ([-0-9.]+)\)\)")
    angles = {found.group(1) for k in range(30, LAST) if (found := head.search(overlapped[k]))}
    assert len(angles) > 10, "the head did not swing"
