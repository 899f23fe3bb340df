"""A ROS-native player in a process of its own, for tests that end it: joins through the
referee's init_agent, prints its namespace, then answers every percept with a joint command
that synchronizes, until it is killed."""
from __future__ import annotations

import sys

import rclpy
import rclpy.executors
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy

from sim_bridge.ros.qos import PERCEPT_QOS
from sim_msgs.msg import JointCommand, Percept
from sim_msgs.srv import InitAgent


def main(team: str, unum: int, referee: str) -> None:
    rclpy.init()
    node = Node(f"player_{team}_{unum}")
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    client = node.create_client(InitAgent, f"{referee}/init_agent")
    assert client.wait_for_service(timeout_sec=30), "no referee"
    future = client.call_async(InitAgent.Request(team=team, unum=unum, robot_model="nao"))
    executor.spin_until_future_complete(future, timeout_sec=30)
    reply = future.result()
    assert reply is not None and reply.success, reply
    ns = reply.player_namespace
    joints = node.create_publisher(JointCommand, f"{ns}/effectors/joint_command",
                                   QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE))
    node.create_subscription(Percept, f"{ns}/percept", lambda _m: joints.publish(
        JointCommand(mode=JointCommand.MODE_VELOCITY, names=["he1"], velocities=[0.1], synchronize=True)),
        PERCEPT_QOS)
    print(ns, flush=True)
    try:
        executor.spin()
    except (KeyboardInterrupt, rclpy.executors.ExternalShutdownException):
        pass


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
