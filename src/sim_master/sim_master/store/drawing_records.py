"""The replay log's drawing records (visualization_msgs/MarkerArray-shaped, ros/drawings.py)
back to what the browser monitor draws (DrawingBoard.to_dict()'s shape). Duck-typed, as
snapshot_records.py: the replay reader's decoded records only look like the ROS messages.
Circles come back as the closed line they were logged as (drawn the same)."""
from __future__ import annotations

from typing import Any, Final

PIXEL: Final = 0.01  # m per RoboViz pixel (ros/drawings.py)
LINE_LIST, LINE_STRIP, POINTS, SPHERE, TEXT = 5, 4, 8, 2, 9  # visualization_msgs/Marker types


def _rgba(c: Any) -> list[int]:
    return [round(255 * v) for v in (c.r, c.g, c.b, c.a)]


def _xyz(p: Any) -> list[float]:
    return [round(p.x, 4), round(p.y, 4), round(p.z, 4)]


def drawings_from_record(msg: Any) -> dict[str, Any]:
    sets: dict[str, list[dict[str, Any]]] = {}
    agents = []
    for m in msg.markers:
        if m.action != 0:  # DELETEALL opens every message
            continue
        colour = _rgba(m.color)
        if m.ns.startswith("agent/"):
            _, side, unum = m.ns.split("/", 2)
            if unum.isdigit():
                agents.append({"side": side, "unum": int(unum), "text": m.text, "color": colour})
            continue
        shape: dict[str, Any]
        if m.type == LINE_LIST:
            points = [_xyz(p) for p in m.points]
            shape = {"kind": "line", "points": points[:2], "size": 0.0, "width": m.scale.x / PIXEL}
        elif m.type == LINE_STRIP:
            points = [_xyz(p) for p in m.points]
            if len(points) > 2 and points[0] == points[-1]:
                points = points[:-1]
            shape = {"kind": "polygon", "points": points, "size": 0.0, "width": m.scale.x / PIXEL}
        elif m.type == POINTS and len(m.points):
            shape = {"kind": "point", "points": [_xyz(m.points[0])], "size": m.scale.x / PIXEL, "width": 0.0}
        elif m.type == SPHERE:
            shape = {"kind": "sphere", "points": [_xyz(m.pose.position)], "size": m.scale.x / 2, "width": 0.0}
        elif m.type == TEXT:
            shape = {"kind": "text", "points": [_xyz(m.pose.position)], "size": 0.0, "width": 0.0, "text": m.text}
        else:
            continue
        shape["color"] = colour
        sets.setdefault(m.ns, []).append(shape)
    return {"version": 0, "sets": sets, "agents": agents, "selected": None}
