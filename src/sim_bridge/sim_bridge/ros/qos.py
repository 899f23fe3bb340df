"""The QoS of a player's percept topic, written once for every publisher and subscriber.

Why reliable: in sync mode a cycle waits for each player's answer to its percept, so a percept
lost on the way (best effort drops under load: a test's ROS player got 139 of 200) holds the
match for the sync timeout and leaves the player lagging. The server publishes percepts
reliably, keeping the last few: a subscriber that asks for reliable delivery gets every one
(ours do); one that asks for best effort (SensorDataQoS, as sensor topics usually are) still
matches and gets them as best effort."""
from __future__ import annotations

from typing import Final

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

PERCEPT_QOS: Final = QoSProfile(depth=5, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                                durability=DurabilityPolicy.VOLATILE)
