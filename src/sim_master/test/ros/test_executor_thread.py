"""The server's executor outlives entities destroyed from other threads while it waits (a
player's topics go when it leaves, from the loop's thread): rclpy's own spin() died of it
mid-bench, and every service of the server with it."""
from __future__ import annotations

import threading
from typing import Any

from rclpy.node import Node
from std_msgs.msg import Empty
from std_srvs.srv import Trigger

from sim_master.ros.executor_thread import ExecutorThread


def test_services_answer_after_entities_churn_under_the_executor(ros_caller: Any) -> None:
    context = ros_caller.node.context
    node = Node("churned", context=context)
    node.create_service(Trigger, "churned/alive", lambda _req, res: setattr(res, "success", True) or res)
    # as many entities as the server's node has: each wait-set build takes a while
    ballast = [node.create_publisher(Empty, f"churned/ballast{i}", 1) for i in range(150)]
    heard: list[int] = []
    node.create_subscription(Empty, "churned/busy", lambda _m: heard.append(1), 100)
    busy = ros_caller.node.create_publisher(Empty, "/churned/busy", 100)  # keeps the executor waking
    spinner = ExecutorThread(context)
    spinner.add(node)
    spinner.start()
    try:
        def churn() -> None:  # as players joining and leaving, from a thread of its own
            for i in range(600):
                busy.publish(Empty())
                pub = node.create_publisher(Empty, f"churn/p{i % 7}/percept", 10)
                sub = node.create_subscription(Empty, f"churn/p{i % 7}/sync", lambda _m: None, 10)
                node.destroy_publisher(pub)
                node.destroy_subscription(sub)

        worker = threading.Thread(target=churn)
        worker.start()
        worker.join(120)
        assert not worker.is_alive()
        assert spinner._thread.is_alive(), "the executor died"
        assert ros_caller.call(Trigger, "/churned/alive").success
        assert heard and ballast
    finally:
        spinner.stop()
        node.destroy_node()
