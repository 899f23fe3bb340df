"""The replay log's drawing records (visualization_msgs/MarkerArray-shaped, ros/drawings.py)
back to what the browser monitor draws (DrawingBoard.to_dict()'s shape). Duck-typed, as
snapshot_records.py: the replay reader's decoded records only look like the ROS messages.
Circles come back as the segments they were logged as (drawn the same)."""
from __future__ import annotations

from typing import Any, Final

PIXEL: Final = 0.01  # m per RoboViz pixel (ros/drawings.py)
LINE_LIST, LINE_STRIP, POINTS, SPHERE, SPHERE_LIST, TEXT = 5, 4, 8, 2, 7, 9  # visualization_msgs/Marker types


def _rgba(c: Any) -> list[int]:
    return [round(255 * v) for v in (c.r, c.g, c.b, c.a)]


def _xyz(p: Any) -> list[float]:
    return [round(p.x, 4), round(p.y, 4), round(p.z, 4)]


def _colours(m: Any, n: int) -> list[list[int]]:
    """Each of a marker's n points' colour: its own (`colors`) or the marker's."""
    own = list(getattr(m, "colors", []) or [])
    return [_rgba(own[i]) if i < len(own) else _rgba(m.color) for i in range(n)]


def drawings_from_record(msg: Any) -> dict[str, Any]:
    """Logs write a set's lines (circles and polygons as their segments), points and spheres
    as one marker each per size (ros/drawings.py); older logs one marker per shape (LINE_STRIP
    polygons, SPHERE): both read back."""
    sets: dict[str, list[dict[str, Any]]] = {}
    agents = []
    for m in msg.markers:
        if m.action != 0:  # DELETEALL opens every message
            continue
        if m.ns.startswith("agent/"):
            _, side, unum = m.ns.split("/", 2)
            if unum.isdigit():
                agents.append({"side": side, "unum": int(unum), "text": m.text, "color": _rgba(m.color)})
            continue
        shapes = sets.setdefault(m.ns, [])
        points = [_xyz(p) for p in m.points]
        colours = _colours(m, len(points))
        if m.type == LINE_LIST:
            shapes += [{"kind": "line", "points": points[i:i + 2], "size": 0.0, "width": m.scale.x / PIXEL,
                        "color": colours[i]} for i in range(0, len(points) - 1, 2)]
        elif m.type == LINE_STRIP:
            if len(points) > 2 and points[0] == points[-1]:
                points = points[:-1]
            shapes.append({"kind": "polygon", "points": points, "size": 0.0, "width": m.scale.x / PIXEL,
                           "color": _rgba(m.color)})
        elif m.type == POINTS:
            shapes += [{"kind": "point", "points": [p], "size": m.scale.x / PIXEL, "width": 0.0, "color": c}
                       for p, c in zip(points, colours, strict=True)]
        elif m.type == SPHERE_LIST:
            shapes += [{"kind": "sphere", "points": [p], "size": m.scale.x / 2, "width": 0.0, "color": c}
                       for p, c in zip(points, colours, strict=True)]
        elif m.type == SPHERE:
            shapes.append({"kind": "sphere", "points": [_xyz(m.pose.position)], "size": m.scale.x / 2, "width": 0.0,
                           "color": _rgba(m.color)})
        elif m.type == TEXT:
            shapes.append({"kind": "text", "points": [_xyz(m.pose.position)], "size": 0.0, "width": 0.0,
                           "text": m.text, "color": _rgba(m.color)})
        if not shapes:
            del sets[m.ns]
    return {"version": 0, "sets": sets, "agents": agents, "selected": None}
