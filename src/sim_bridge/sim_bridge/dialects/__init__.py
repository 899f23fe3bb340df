"""The legacy wire dialects: SimSpark/rcssserver3d and rcsssmj.

Why a registry: the server's agent ports, the separate bridge's and the ROS node's mirrored
players are made for every dialect named here; adding one is its module and a line below."""
from __future__ import annotations

from sim_bridge.dialects.base import Dialect


def all_dialects() -> dict[str, Dialect]:
    """One of each dialect, by name, in the order their ports open."""
    from sim_bridge.dialects.rcsssmj import RcsssmjDialect
    from sim_bridge.dialects.simspark import SimSparkDialect

    dialects: list[Dialect] = [SimSparkDialect(), RcsssmjDialect()]
    return {d.name: d for d in dialects}
