"""ROS names for teams and players (a team name may hold characters ROS names cannot)."""
from __future__ import annotations

import re

_INVALID = re.compile(r"[^A-Za-z0-9_]")


def ros_token(text: str) -> str:
    token = _INVALID.sub("_", text) or "_"
    return token if not token[0].isdigit() else "_" + token


def player_namespace(team: str, unum: int, node_namespace: str = "/") -> str:
    """A player's topics' namespace under the server's namespace, e.g. /match1/Alpha/p7."""
    return f"{node_namespace.rstrip('/')}/{ros_token(team)}/p{unum}"


def ros_entity_path(entity: str) -> str:
    """An entity's name as a relative topic path, segment by segment (Alpha/p7 -> Alpha/p7):
    where its robot_description is, beside its frames' prefix."""
    return "/".join(ros_token(part) for part in entity.split("/") if part)
