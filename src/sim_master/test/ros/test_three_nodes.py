"""The design's nodes in the ROS graph: the composed server shows the simulation, the referee
and the bridge as three nodes, each with its own services and topics."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any


def test_the_server_graph_holds_three_nodes_with_their_roles(running_server: Callable[..., Any],
                                                             ros_caller: Any) -> None:
    with running_server(ros=True, sync=False, realtime=True):
        node = ros_caller.node
        wanted = {"soccersim", "soccer_referee", "soccer_bridge"}
        ros_caller.spin_until(lambda: wanted <= {n for n, _ in node.get_node_names_and_namespaces()},
                              "the three nodes in the graph", timeout=60)  # discovery on a loaded machine

        def services(name: str) -> set[str]:
            return {s for s, _ in node.get_service_names_and_types_by_node(name, "/")}

        def published(name: str) -> set[str]:
            return {t for t, _ in node.get_publisher_names_and_types_by_node(name, "/")}

        ros_caller.spin_until(lambda: "/soccer_referee/init_agent" in services("soccer_referee")
                              and "/soccersim/spawn_entity" in services("soccersim"), "the services", timeout=60)
        referee, simulation = services("soccer_referee"), services("soccersim")
        assert {"/soccer_referee/init_agent", "/soccer_referee/beam_agent", "/soccer_referee/set_play_mode",
                "/soccer_referee/move_entity"} <= referee
        assert {"/soccersim/add_player", "/soccersim/beam_player", "/soccersim/spawn_entity",
                "/soccersim/delete_entity", "/soccersim/set_entity_state"} <= simulation
        assert not any(s.endswith("/init_agent") for s in simulation)  # each role in its own node
        ros_caller.spin_until(lambda: {"/game_state", "/game_events"} <= published("soccer_referee")
                              and "/clock" in published("soccersim"), "the topics", timeout=60)
        assert "/game_state" not in published("soccersim") and "/clock" not in published("soccer_referee")
