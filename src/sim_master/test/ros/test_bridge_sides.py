"""bridge_node tells a SimSpark agent its side in the first GS after its init and again only
when the side in its percepts changes (a rule book that changes ends at half time): before,
it blanked the side in every percept after the first, so its agents never learned the change.
Real parts: the bridge with its rclpy node, its agent port and a TCP agent."""
from __future__ import annotations

import re
import socket
import struct
import time
from typing import Any

from builtin_interfaces.msg import Time
from rclpy.node import Node

from sim_bridge.agent_server import AgentServer
from sim_bridge.dialects.simspark import SimSparkDialect
from sim_bridge.ros.percepts import percept_to_msg
from sim_bridge.ros.standalone import BridgedAgent, StandaloneBridge
from sim_contracts.agents import SIMSPARK_RULES, AgentConnected
from sim_contracts.percept import GameStateView, Percept


def _receive(sock: socket.socket) -> bytes:
    size = struct.unpack(">I", sock.recv(4, socket.MSG_WAITALL))[0]
    return sock.recv(size, socket.MSG_WAITALL)


def test_the_bridge_tells_its_agent_a_changed_side(ros_context: Any) -> None:
    node = Node("bridge_sides_test", context=ros_context)
    server = AgentServer(SimSparkDialect())
    server.start()
    client = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    try:
        agent_id = None
        deadline = time.monotonic() + 5
        while agent_id is None and time.monotonic() < deadline:
            agent_id = next((e.agent_id for e in server.poll(0.05) if isinstance(e, AgentConnected)), None)
        assert agent_id is not None
        bridge = StandaloneBridge(node, {"simspark": server}, "soccer_referee", "soccersim")
        agent = BridgedAgent(agent_id, server, SIMSPARK_RULES, namespace="/Alpha/p1", side="left", unum=1)
        bridge.agents[agent_id] = agent
        told = []
        for cycle, side in enumerate(("left", "left", "right", "right"), start=1):
            percept = Percept(time=0.02 * cycle, game=GameStateView(play_mode="BeforeKickOff"), gyro=(0, 0, 0),
                              accel=(0, 0, 0), joint_names=[], joint_angles=[], joint_velocities=[])
            bridge._percept(agent, percept_to_msg(percept, Time(sec=0, nanosec=20_000_000 * cycle), side, 1))
            told.append(re.findall(rb"\(team (left|right)\)", _receive(client)))
        assert told == [[b"left"], [], [b"right"], []]
        # bytes nobody can read (any participant may publish there): refused, said, nothing else
        bridge._percept(agent, b"\x00\x01\x00\x00" + b"\xff" * 40)
        bridge._percept(agent, b"")
        percept = Percept(time=1.0, game=GameStateView(play_mode="PlayOn"), gyro=(0, 0, 0), accel=(0, 0, 0),
                          joint_names=[], joint_angles=[], joint_velocities=[])
        bridge._percept(agent, percept_to_msg(percept, Time(sec=1, nanosec=0), "right", 1))
        assert b"(pm PlayOn)" in _receive(client)  # the next good percept is the next one it gets
        bridge.close()
    finally:
        client.close()
        node.destroy_node()


def test_the_bridge_rules_an_init_as_the_server_does(ros_context: Any) -> None:
    """The separate bridge asks the referee for a join exactly when the composed server would
    join the agent (PlayerRules.init_refusal, one rule for both): a SimSpark init before its
    scene is ignored, a second init too; the scene's robot type names the model."""
    from sim_contracts.agents import RCSSSMJ_RULES
    from sim_contracts.commands import InitPlayer, Scene

    assert SIMSPARK_RULES.init_refusal(has_robot=False, joined=False, joining=False) == "init before scene ignored"
    assert RCSSSMJ_RULES.init_refusal(has_robot=False, joined=False, joining=False) is None
    assert "again" in (SIMSPARK_RULES.init_refusal(has_robot=True, joined=True, joining=False) or "")
    assert "again" in (RCSSSMJ_RULES.init_refusal(has_robot=True, joined=False, joining=True) or "")
    assert SIMSPARK_RULES.init_model("", SIMSPARK_RULES.scene_model(3)) == "nao3"
    assert RCSSSMJ_RULES.init_model("T1", None) == "T1"

    node = Node("bridge_init_test", context=ros_context)
    server = AgentServer(SimSparkDialect())
    try:
        bridge = StandaloneBridge(node, {"simspark": server}, "no_referee_here", "soccersim")
        agent = BridgedAgent("simspark-1", server, SIMSPARK_RULES)
        bridge.agents[agent.agent_id] = agent
        bridge._commands(agent, [InitPlayer("Alpha", 1)])
        assert not agent.joining and agent.init is None  # before its scene: ignored, as the server ignores it
        bridge._commands(agent, [Scene("rsg/agent/nao/nao_hetero.rsg", 3)])
        bridge._commands(agent, [InitPlayer("Alpha", 1)])
        assert agent.joining and agent.model == "nao3"  # now it asks (when the referee answers)
        bridge.close()
    finally:
        node.destroy_node()


def test_the_bridge_says_an_agents_complaints_within_its_budget(ros_context: Any,
                                                                caplog: Any) -> None:
    """The separate bridge speaks about agents through the loop's AgentLog (one budget rule):
    an agent that repeats an init the rules refuse 500 times is said once, and what it causes
    in all stays within the per-agent burst."""
    from sim_contracts.agent_log import BURST
    from sim_contracts.commands import InitPlayer

    node = Node("bridge_budget_test", context=ros_context)
    server = AgentServer(SimSparkDialect())
    server.start()
    try:
        bridge = StandaloneBridge(node, {"simspark": server}, "soccer_referee", "soccersim")
        agent = BridgedAgent("A1", server, SIMSPARK_RULES)  # no scene yet: SimSpark refuses its init
        bridge.agents["A1"] = agent
        with caplog.at_level("WARNING"):
            for _ in range(500):
                bridge._join(agent, InitPlayer(team="Alpha", unum=1))
        said = [r.getMessage() for r in caplog.records if "A1" in r.getMessage()]
        assert len(said) == 1, said
        refusal = agent.rules.init_refusal(has_robot=False, joined=False, joining=False)
        assert refusal is not None and refusal in said[0]
        for i in range(500):  # distinct complaints: the burst, then the rate
            bridge.agent_log.warn("A1", f"complaint {i}")
        assert len([r for r in caplog.records if "A1" in r.getMessage()]) <= 1 + BURST + 2
        bridge.close()
    finally:
        server.close()
        node.destroy_node()
