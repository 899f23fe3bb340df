"""A user's rclpy probe, as its own process: finds every topic in the domain for a few
seconds, subscribes to each with its own type (latched ones as latched), and prints one line
per topic with the number of messages it received; stderr is the test's to read."""
from __future__ import annotations

import importlib
import sys
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy


def get_message(type_name: str) -> type:
    """`pkg/msg/Name` as its Python class."""
    package, kind, name = type_name.split("/")
    module = importlib.import_module(f"{package}.{kind}")
    if kind == "action" and name.endswith("_FeedbackMessage"):  # an action's feedback topic
        feedback: type = getattr(module, name.removesuffix("_FeedbackMessage")).Impl.FeedbackMessage
        return feedback
    message: type = getattr(module, name)  # generated classes, found by name
    return message


def main() -> int:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 4.0
    rclpy.init()
    node = Node("topic_probe")
    counts: dict[str, int] = {}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for topic, types in node.get_topic_names_and_types():
            if topic in counts or topic.startswith("/topic_probe"):
                continue
            counts[topic] = 0
            infos = node.get_publishers_info_by_topic(topic)
            latched = any(i.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL for i in infos)
            qos = QoSProfile(depth=10,
                             reliability=ReliabilityPolicy.RELIABLE if latched else ReliabilityPolicy.BEST_EFFORT,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL if latched else DurabilityPolicy.VOLATILE)

            def count(_msg: object, topic: str = topic) -> None:
                counts[topic] += 1

            node.create_subscription(get_message(types[0]), topic, count, qos)
        rclpy.spin_once(node, timeout_sec=0.05)
    for topic, n in sorted(counts.items()):
        print(f"{topic} {n}", flush=True)
    node.destroy_node()
    rclpy.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
