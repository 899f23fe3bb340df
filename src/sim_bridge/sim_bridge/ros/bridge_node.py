"""The legacy bridge as a ROS 2 node: its TCP agents on their player topics.

Why a node of its own: the design gives the bridge its own role in the graph. In the
composed server (the default: one process, one executor) the agent ports are the loop's
transports and this node shows each joined TCP agent as a ROS player would be seen: its
percepts on `/<team>/p<unum>/percept` and its joint commands on
`.../effectors/joint_command`, published only while somebody listens, for ROS tools. Run
alone (`ros2 run sim_bridge bridge_node`, standalone.py) the bridge turns each TCP agent
into a ROS-native player of a simulation in another process."""
from __future__ import annotations

import time
from typing import Final

import rclpy
from rclpy.node import Node
from rclpy.publisher import Publisher
from rclpy.qos import QoSProfile, ReliabilityPolicy

from sim_bridge.ros.audience import REFRESH_S
from sim_bridge.ros.lean_reader import NO_PUB_EVENTS
from sim_bridge.ros.qos import PERCEPT_QOS
from sim_msgs.msg import JointCommand
from sim_msgs.msg import Percept as PerceptMsg

NODE_NAME: Final = "soccer_bridge"
RELIABLE: Final = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)


class BridgeNode:
    """Mirror topics of the joined TCP agents, by agent."""

    def __init__(self, context: rclpy.Context, name: str = NODE_NAME, *, namespace: str | None = None,
                 ports: dict[str, int] | None = None, cli_args: list[str] | None = None) -> None:
        """cli_args: this node's own ROS arguments instead of the process's (a composed node
        must not take the node name given to the process)."""
        self.node = Node(name, context=context, namespace=namespace, cli_args=cli_args,
                         use_global_arguments=cli_args is None)
        for dialect, port in sorted((ports or {}).items()):  # where the legacy agents connect (read-only)
            self.node.declare_parameter(f"{dialect}_port", port)
        self._mirrors: dict[str, tuple[str, Publisher, Publisher]] = {}  # agent -> (namespace, percept, command)
        self._looked = -1e9  # when the mirrors' subscribers were last asked for
        self._wanted: tuple[set[str], set[str]] = (set(), set())

    def _publishers(self, agent_id: str, namespace: str) -> tuple[Publisher, Publisher]:
        pubs = self._mirrors.get(agent_id)
        if pubs is None or pubs[0] != namespace:
            if pubs is not None:
                self.forget(agent_id)
            # no QoS event handlers (lean_reader.NO_PUB_EVENTS): 44 of them were walked in Python
            # at every wake of the server's executor
            pubs = (namespace, self.node.create_publisher(PerceptMsg, f"{namespace}/percept", PERCEPT_QOS,
                                                          event_callbacks=NO_PUB_EVENTS),
                    self.node.create_publisher(JointCommand, f"{namespace}/effectors/joint_command", RELIABLE,
                                               event_callbacks=NO_PUB_EVENTS))
            self._mirrors[agent_id] = pubs
            self._looked = -1e9  # a new agent's topics: look at once
        return pubs[1], pubs[2]

    def _listened(self) -> tuple[set[str], set[str]]:
        """The agents whose percepts, and whose commands, somebody listens to: asked of DDS
        for every mirror at once a few times a second (per agent per cycle it was a tenth of
        a 22-agent cycle's ROS cost)."""
        now = time.monotonic()
        if now - self._looked >= REFRESH_S:
            self._looked = now
            self._wanted = ({a for a, (_, p, _c) in self._mirrors.items() if p.get_subscription_count() > 0},
                            {a for a, (_, _p, c) in self._mirrors.items() if c.get_subscription_count() > 0})
        return self._wanted

    def wants_percepts(self, agent_id: str, namespace: str) -> bool:
        """Somebody listens to this agent's percepts (build the message only then)."""
        self._publishers(agent_id, namespace)
        return agent_id in self._listened()[0]

    def wants_commands(self, agent_id: str, namespace: str) -> bool:
        """Somebody listens to this agent's joint commands (build the message only then)."""
        self._publishers(agent_id, namespace)
        return agent_id in self._listened()[1]

    def mirror_percept(self, agent_id: str, namespace: str, msg: PerceptMsg) -> None:
        self._publishers(agent_id, namespace)[0].publish(msg)

    def mirror_command(self, agent_id: str, namespace: str, msg: JointCommand) -> None:
        self._publishers(agent_id, namespace)[1].publish(msg)

    def forget(self, agent_id: str) -> None:
        pubs = self._mirrors.pop(agent_id, None)
        if pubs is not None:
            self.node.destroy_publisher(pubs[1])
            self.node.destroy_publisher(pubs[2])

    def destroy(self) -> None:
        self.node.destroy_node()
