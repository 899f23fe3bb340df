"""An agent's `(scene rsg/agent/nao/nao_hetero.rsg T)` picks its robot: FC Portugal's team gives
unums 9-11 type 4 (toes), and a type-4 robot must report the toe joints llj7/rlj7 in its
percepts as rcssserver3d's nao_hetero does, the other types not."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sim_bridge.clients import LegacyClient


def _joint_names(msg: bytes) -> set[str]:
    names = set()
    for part in msg.split(b"(HJ (n ")[1:]:
        names.add(part.split(b")", 1)[0].decode())
    return names


def test_each_type_gets_its_robot_and_joints(running_server: Callable[..., Any]) -> None:
    with running_server() as server:
        port = server.agent_servers["simspark"].port
        agents = []
        for robot_type in range(5):
            agent = LegacyClient("127.0.0.1", port)
            agent.send(f"(scene rsg/agent/nao/nao_hetero.rsg {robot_type})")
            agent.receive()
            agent.send(f"(init (unum {robot_type + 1})(teamname Types))(syn)")
            agents.append(agent)
        for robot_type, agent in enumerate(agents):
            joints = _joint_names(agent.receive())
            player = server.loop.players.by_player("left", robot_type + 1)
            assert player is not None and player.model == f"nao{robot_type}"
            toes = {"llj7", "rlj7"} <= joints
            assert toes == (robot_type == 4), (robot_type, sorted(joints))
            assert len(joints) == (24 if robot_type == 4 else 22)
        for agent in agents:
            agent.close()
