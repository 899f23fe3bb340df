"""An rcsssmj agent's first perception shows its robot as spawned and never stepped, as
rcssservermj 0.2.1's does (it activates an agent at the start of a cycle and sends that cycle's
perceptions before its step): the recorded `perception_T1_first.txt` has the exact spawn pose,
every joint at 0 with speed 0, GYR and ACC 0. The second perception is one step later."""
from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sim_bridge.clients import RcsssmjAgent

# rcssservermj 0.2.1, left #2 T1 on its first perception, captured on the real server
SAMPLE = Path(__file__).resolve().parents[3] / "sim_bridge" / "test" / "samples" / "perception_T1_first.txt"
ITEMS = {"pos": re.compile(r"\(pos \(n torso_pos\) \(p ([^)]*)\)\)"),
         "quat": re.compile(r"\(quat \(n torso_quat\) \(q ([^)]*)\)\)"),
         "GYR": re.compile(r"\(GYR \(n torso_gyro\) \(rt ([^)]*)\)\)"),
         "ACC": re.compile(r"\(ACC \(n torso_acc\) \(a ([^)]*)\)\)")}
JOINT = re.compile(r"\(HJ \(n (\w+)\)\(ax ([^)]*)\)\(vx ([^)]*)\)\)")
NOW = re.compile(r"\(time \(now ([0-9.]+)\)\)")


def _numbers(text: str) -> list[float]:
    return [float(v) for v in text.split()]


def _now(msg: str) -> float:
    found = NOW.search(msg)
    assert found is not None, msg[:100]
    return float(found.group(1))


def _items(msg: str) -> dict[str, list[float]]:
    found = {name: r.search(msg) for name, r in ITEMS.items()}
    assert all(found.values()), msg[:300]
    return {name: _numbers(m.group(1)) for name, m in found.items() if m}


def test_first_perception_is_the_unstepped_spawn(running_server: Callable[..., Any]) -> None:
    text = SAMPLE.read_text()
    recorded = _items(text)
    assert {float(ax) for _, ax, _ in JOINT.findall(text)} == {0.0}
    with running_server(world="fifa7vs7_field", rules="ssim") as server:  # the recording's field
        agent = RcsssmjAgent("127.0.0.1", server.agent_servers["rcsssmj"].port, "Alpha", 2, model="T1")
        agent.join()
        first = agent.act().decode()
        second = agent.act().decode()
        agent.close()
    ours = _items(first)
    assert ours == recorded, (ours, recorded)  # exact: nothing has moved it yet
    joints = JOINT.findall(first)
    assert len(joints) == 23 and all(float(ax) == 0.0 and float(vx) == 0.0 for _, ax, vx in joints)
    # one step later it has started to fall limp: speeds, and time moved one cycle
    assert any(float(vx) != 0.0 for _, _, vx in JOINT.findall(second)) or _items(second)["ACC"] != [0.0, 0.0, 0.0]
    now1, now2 = (_now(m) for m in (first, second))
    assert round(now2 - now1, 3) == 0.02


@pytest.mark.parametrize("engine", ["auto", "ode", "gazebo"])
def test_a_robot_joining_after_the_step_leaves_the_others_percepts_whole(
        running_server: Callable[..., Any], engine: str) -> None:
    """The others' percepts of the cycle a robot joins in are the step's: position, ACC and
    joint speeds carry on (no cleared sensors or contacts), on every engine."""
    with running_server(world="fifa7vs7_field", rules="ssim", engine=engine) as server:
        port = server.agent_servers["rcsssmj"].port
        first = RcsssmjAgent("127.0.0.1", port, "Alpha", 1, model="T1")
        first.join()
        before = [_items(first.act().decode()) for _ in range(150)][-4:]  # limp: fallen, lying still
        late = RcsssmjAgent("127.0.0.1", port, "Alpha", 3, model="T1")
        late.join()
        around = [_items(first.act().decode()) for _ in range(4)]
        assert _items(late.act().decode())["GYR"] == [0.0, 0.0, 0.0]
        first.close()
        late.close()
    track = before + around
    for a, b in zip(track, track[1:]):
        assert max(abs(p - q) for p, q in zip(a["pos"], b["pos"])) < 0.05, (a, b)
        assert 8.0 < sum(v * v for v in b["ACC"]) ** 0.5 < 12.0, b  # gravity, at rest


def test_a_reused_robot_body_shows_its_new_spawn_first(running_server: Callable[..., Any]) -> None:
    """On MuJoCo a leaving robot's body is parked and reused by the next agent of its model:
    that agent's first perception is its own spawn, not what the parked body last read."""
    with running_server(world="fifa7vs7_field", rules="ssim") as server:
        port = server.agent_servers["rcsssmj"].port
        leaver = RcsssmjAgent("127.0.0.1", port, "Alpha", 1, model="T1")
        leaver.join()
        for _ in range(20):
            leaver.act()
        leaver.close()
        builds = server.loop.engine.builds
        deadline = time.monotonic() + 10
        loop = server.loop
        while loop.calls.call(lambda: len(list(loop.players.with_robots()))) and time.monotonic() < deadline:
            time.sleep(0.02)
        comer = RcsssmjAgent("127.0.0.1", port, "Alpha", 2, model="T1")
        comer.join()
        first = comer.act().decode()
        comer.close()
        assert server.loop.engine.builds == builds  # the parked body was reused, no rebuild
    assert _items(first) == _items(SAMPLE.read_text())
    assert all(float(ax) == 0.0 and float(vx) == 0.0 for _, ax, vx in JOINT.findall(first))


def test_a_beam_sent_with_the_init_lands_in_real_time(running_server: Callable[..., Any]) -> None:
    """Real-time mode reads messages between cycles: a beam in the init's message waits for
    the robot's join after the step and lands (it was lost when taken before the join)."""
    with running_server(world="fifa7vs7_field", rules="ssim", sync=False, realtime=True) as server:
        port = server.agent_servers["rcsssmj"].port
        for unum, (x, y) in enumerate([(-3.0, 2.0), (-7.0, -4.0), (-2.0, 6.0)], start=1):
            agent = RcsssmjAgent("127.0.0.1", port, "Alpha", unum, model="T1")
            agent.send(f"(init T1 Alpha {unum})(beam {x} {y} 0)")
            pos = [0.0, 0.0, 0.0]
            for _ in range(15):
                pos = _items(agent.act().decode())["pos"]
            agent.close()
            assert abs(pos[0] - x) < 0.2 and abs(pos[1] - y) < 0.2, (unum, pos)
