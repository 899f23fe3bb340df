"""Messages on a topic taken only from the publishers of named nodes.

Why: the simulation and an external referee talk over two topics (`referee_world`,
`referee_verdict`) that any DDS participant in the domain may publish on. Without DDS
security (docs/security.md) a participant cannot be proven to be who it says, but it can be
told apart: each message carries its publisher's GID, and the ROS graph says which node owns
that publisher. A message from any other publisher is dropped, so a stray or hostile
participant must at least impersonate the node by name, which the graph shows. The check
costs a dictionary lookup per message; the graph is asked again only for a publisher not
known yet (at most every `ASK_EVERY_S`: DDS may match a publisher before the graph names its
node, so its first messages can be dropped), and a publisher the graph gives to another node
is refused without asking again for `REFRESH_S`."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any, Final

REFRESH_S: Final = 0.5
ASK_EVERY_S: Final = 0.02
MAX_REFUSED: Final = 1024  # unknown publishers remembered (refused without asking the graph)


def _gid(info: Any) -> bytes | None:
    gid = info.get("publisher_gid") if isinstance(info, dict) else None
    data = gid.get("data") if isinstance(gid, dict) else None
    return bytes(data)[:16] if data is not None else None


def split_node_name(name: str, namespace: str = "/") -> tuple[str, str]:
    """('/ns', 'node') of a node name; a relative name is in `namespace`."""
    if not name.startswith("/"):
        name = f"{namespace.rstrip('/')}/{name}"
    ns, _, base = name.rpartition("/")
    return (ns or "/"), base


class TrustedSenders:
    """`allows(message_info)`: the message came from a publisher of one of `nodes` (node
    names, relative ones in `namespace`); `endpoints(topic)` lists (node namespace, node name,
    gid) of the topic's publishers."""

    def __init__(self, topic: str, nodes: Iterable[str],
                 endpoints: Callable[[str], Iterable[tuple[str, str, bytes]]], namespace: str = "/") -> None:
        self.topic = topic
        self._nodes = {split_node_name(n, namespace) for n in nodes}
        self._endpoints = endpoints
        self._trusted: set[bytes] = set()
        self._refused: dict[bytes, float] = {}
        self._asked_at = -1e9
        self.dropped = 0

    def _refresh(self) -> set[bytes]:
        """Learn the trusted publishers from the graph; returns every publisher it names."""
        self._asked_at = time.monotonic()
        named = set()
        for ns, name, gid in self._endpoints(self.topic):
            named.add(gid[:16])
            if (ns, name) in self._nodes:
                self._trusted.add(gid[:16])
                self._refused.pop(gid[:16], None)
        return named

    def allows(self, info: Any) -> bool:
        gid = _gid(info)
        if gid is None:  # an RMW that gives no publisher: nothing to tell them apart by
            return True
        if gid in self._trusted:
            return True
        now = time.monotonic()
        refused_at = self._refused.get(gid)
        if (refused_at is None or now - refused_at >= REFRESH_S) and now - self._asked_at >= ASK_EVERY_S:
            named = self._refresh()
            if gid in self._trusted:
                return True
            if gid in named:  # another node's: refused without asking again for a while
                if len(self._refused) >= MAX_REFUSED:
                    self._refused.clear()
                self._refused[gid] = now
        self.dropped += 1
        return False


def node_endpoints(node: Any) -> Callable[[str], list[tuple[str, str, bytes]]]:
    """The publishers of a topic as (node namespace, node name, gid), from an rclpy node's graph."""

    def endpoints(topic: str) -> list[tuple[str, str, bytes]]:
        full = node.resolve_topic_name(topic)
        return [(e.node_namespace, e.node_name, bytes(e.endpoint_gid)) for e in node.get_publishers_info_by_topic(full)]

    return endpoints
