"""The design's nodes in the ROS graph: the composed server shows the simulation, the referee
and the bridge as three nodes, each with its own services and topics."""
from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any


def test_the_server_graph_holds_three_nodes_with_their_roles(running_server: Callable[..., Any],
                                                             ros_caller: Any) -> None:
    ns = "/three_" + uuid.uuid4().hex[:8]  # its own: earlier servers in this process leave names behind
    with running_server(["--ros-args", "-r", f"__ns:={ns}"], ros=True, sync=False, realtime=True):
        node = ros_caller.node
        wanted = {("soccersim", ns), ("soccer_referee", ns), ("soccer_bridge", ns)}
        ros_caller.spin_until(lambda: wanted <= set(node.get_node_names_and_namespaces()),
                              "the three nodes in the graph", timeout=60)  # discovery on a loaded machine

        def services(name: str) -> set[str]:
            return {s for s, _ in node.get_service_names_and_types_by_node(name, ns)}

        def published(name: str) -> set[str]:
            return {t for t, _ in node.get_publisher_names_and_types_by_node(name, ns)}

        ros_caller.spin_until(lambda: f"{ns}/soccer_referee/init_agent" in services("soccer_referee")
                              and f"{ns}/soccersim/spawn_entity" in services("soccersim"), "the services", timeout=60)
        referee, simulation = services("soccer_referee"), services("soccersim")
        assert {f"{ns}/soccer_referee/{s}" for s in ("init_agent", "beam_agent", "set_play_mode", "move_entity")} \
            <= referee
        assert {f"{ns}/soccersim/{s}" for s in ("add_player", "beam_player", "spawn_entity", "delete_entity",
                                                 "set_entity_state")} <= simulation
        assert not any(s.endswith("/init_agent") for s in simulation)  # each role in its own node
        ros_caller.spin_until(lambda: {f"{ns}/game_state", f"{ns}/game_events"} <= published("soccer_referee")
                              and f"{ns}/clock" in published("soccersim"), "the topics", timeout=60)
        assert f"{ns}/game_state" not in published("soccersim") and f"{ns}/clock" not in published("soccer_referee")
