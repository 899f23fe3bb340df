"""Names and QoS of the distributed data plane."""
from __future__ import annotations

from typing import Final

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

from sim_distributed.barrier import NODE_ID_LIVE  # starts RegisterNode.error when the id's node is still heard

__all__ = ["GLOBAL", "LATCHED", "NODE_ID_LIVE", "REGISTER", "RELIABLE", "STATUS", "STEP_DONE", "STEP_START"]

STEP_START: Final = "/sim/step_start"
STEP_DONE: Final = "/sim/step_done"
GLOBAL: Final = "/sim/global_snapshot"
STATUS: Final = "/sim/node_status"
REGISTER: Final = "/sim/register_node"

RELIABLE: Final = QoSProfile(depth=50, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE)
LATCHED: Final = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                            durability=DurabilityPolicy.TRANSIENT_LOCAL)
