"""`--ground-truth`: a SimSpark agent's See carries mypos, myorien and ballpos in its team's
frame (rcssserver3d's vision perceptor options), and nothing of them without the option."""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sim_bridge.clients import LegacyClient

ITEM = {name: re.compile(rb"\(" + name.encode() + rb"((?: -?[0-9.]+)+)\)") for name in ("mypos", "myorien", "ballpos")}


def _truth(agent: LegacyClient, cycles: int = 8) -> dict[str, list[float]]:
    """The ground truth of the first See within `cycles` perceptions."""
    for _ in range(cycles):
        agent.send("(syn)")
        msg = agent.receive()
        if b"(See" in msg:
            return {name: [float(v) for v in m.group(1).split()] for name, r in ITEM.items() if (m := r.search(msg))}
    raise AssertionError("no See")


def _join(port: int, team: str, x: float, y: float, rot: float) -> LegacyClient:
    agent = LegacyClient("127.0.0.1", port)
    agent.send("(scene rsg/agent/nao/nao_hetero.rsg 0)")
    agent.receive()
    agent.send(f"(init (unum 1)(teamname {team}))(beam {x} {y} {rot})(syn)")
    agent.receive()
    return agent


def test_ground_truth_in_the_teams_frame(running_server: Callable[..., Any]) -> None:
    with running_server(ground_truth=("mypos", "myorien", "ballpos")) as server:
        port = server.agent_servers["simspark"].port
        left, right = _join(port, "Lefts", -4.0, 2.0, 30.0), _join(port, "Rights", -6.0, -1.0, 0.0)
        truth_left, truth_right = _truth(left), _truth(right)
        assert abs(truth_left["mypos"][0] + 4.0) < 0.1 and abs(truth_left["mypos"][1] - 2.0) < 0.1
        assert abs(truth_left["myorien"][0] - 30.0) < 3.0
        # the right team's own frame: beamed to (-6, -1) of its half, it reads (-6, -1)
        (x, y, _), _ = server.loop.engine.robot_pose(server.loop.players.by_player("right", 1).robot_id)
        assert abs(x - 6.0) < 0.1 and abs(y - 1.0) < 0.1  # the field's frame
        assert abs(truth_right["mypos"][0] + 6.0) < 0.1 and abs(truth_right["mypos"][1] + 1.0) < 0.1
        assert abs(truth_right["myorien"][0]) < 3.0
        for truth in (truth_left, truth_right):
            assert [round(v, 1) for v in truth["ballpos"][:2]] == [0.0, 0.0]  # at the centre spot
        left.close()
        right.close()
    with running_server() as server:
        agent = _join(server.agent_servers["simspark"].port, "Plain", -4.0, 2.0, 0.0)
        assert _truth(agent) == {}  # off by default, as on rcssserver3d
        agent.close()
