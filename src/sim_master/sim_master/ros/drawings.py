"""Agents' RoboViz drawings (sim_bridge/roboviz_draw.py) as visualization_msgs/MarkerArray: the
replay log keeps them so (a message whenever what is shown changes) and Foxglove's 3D panel
draws them beside the match's markers. One namespace per drawing set; texts over agents in the
namespace `agent/<side>/<unum>`, placed over the robot. Each message is whole (DELETEALL first).
store/drawing_records.py reads them back for the browser's replay.

Built on the drawing thread (server/draw_feed.py), not the loop's: each set's markers are
kept until that set changes, and the message is serialized there, so the loop only hands
finished bytes to the publisher and the log."""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Protocol

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point
from rclpy.serialization import serialize_message
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

from sim_master.ros.convert import stamp
from sim_master.ros.markers import FRAME

if TYPE_CHECKING:
    from sim_bridge.roboviz_draw import DrawingBoard

PIXEL: Final = 0.01  # m per RoboViz pixel of line width / point size, as drawn on the field
CIRCLE_SEGMENTS: Final = 32
TEXT_HEIGHT: Final = 0.2  # m
# Points in one /drawings message at most: building a point costs tens of microseconds in
# rclpy, and a circle is 64 of them; the sets beyond are left out of the message (the
# browser, which draws from the board itself, still shows them).
MAX_MARKER_POINTS: Final = 40000


def _colour(rgba: list[int]) -> ColorRGBA:
    return ColorRGBA(r=rgba[0] / 255, g=rgba[1] / 255, b=rgba[2] / 255, a=rgba[3] / 255)


def _point(p: list[float]) -> Point:
    return Point(x=float(p[0]), y=float(p[1]), z=float(p[2]))


def _marker(stamp: Time, ns: int | str, index: int, kind: int) -> Marker:
    m = Marker(type=kind, action=Marker.ADD, ns=str(ns), id=index)
    m.header.frame_id = FRAME
    m.header.stamp = stamp
    m.pose.orientation.w = 1.0
    return m


def _segments(s: dict[str, Any]) -> list[list[float]]:
    """A line, circle or polygon as the ends of its segments (a LINE_LIST's points)."""
    points = s["points"]
    if s["kind"] == "line":
        return points[:2] if len(points) >= 2 else []
    if s["kind"] == "circle":
        x, y, z = points[0]
        points = [[x + s["size"] * math.cos(2 * math.pi * k / CIRCLE_SEGMENTS),
                   y + s["size"] * math.sin(2 * math.pi * k / CIRCLE_SEGMENTS), z] for k in range(CIRCLE_SEGMENTS)]
    if len(points) < 2:
        return []
    ring = points + [points[0]]
    return [p for k in range(len(points)) for p in (ring[k], ring[k + 1])]


def _set_markers(stamp: Time, name: str, shapes: list[dict[str, Any]]) -> list[Marker]:
    """A set's shapes as few markers: one LINE_LIST per line width (lines, circles and polygons
    as segments), one POINTS per point size, one SPHERE_LIST per radius, each with a colour per
    point when its shapes differ; one text marker per text. Why grouped: a board of 20 000
    shapes is some hundreds of markers, not 20 000 (2 s to build and 5 MB a message)."""
    groups: dict[tuple[str, float], tuple[list[Point], list[ColorRGBA]]] = {}
    texts: list[Marker] = []
    for s in shapes:
        kind, points = s["kind"], s["points"]
        if not points:
            continue
        colour = _colour(s["color"])
        if kind in ("line", "circle", "polygon"):
            ends = _segments(s)
            key = ("line", max(PIXEL, s.get("width", 1.0) * PIXEL))
        elif kind == "point":
            ends, key = points[:1], ("point", max(PIXEL, s["size"] * PIXEL))
        elif kind == "sphere":
            ends, key = points[:1], ("sphere", 2 * s["size"])
        else:  # text
            m = _marker(stamp, name, 0, Marker.TEXT_VIEW_FACING)
            m.pose.position = _point(points[0])
            m.text = s.get("text", "")
            m.scale.z = TEXT_HEIGHT
            m.color = colour
            texts.append(m)
            continue
        group = groups.setdefault(key, ([], []))
        group[0].extend(_point(p) for p in ends)
        group[1].extend([colour] * len(ends))
    out = []
    types = {"line": Marker.LINE_LIST, "point": Marker.POINTS, "sphere": Marker.SPHERE_LIST}
    for (kind, scale), (points_, colours) in groups.items():
        if not points_:
            continue
        m = _marker(stamp, name, 0, types[kind])
        m.points = points_
        m.scale.x = scale
        if kind != "line":
            m.scale.y = scale
        if kind == "sphere":
            m.scale.z = scale
        m.color = colours[0]
        if any(c != colours[0] for c in colours):
            m.colors = colours
        out.append(m)
    out += texts
    for i, m in enumerate(out):
        m.id = i
    return out


def _agent_markers(stamp: Time, agents: list[dict[str, Any]],
                   positions: dict[tuple[str, int], tuple[float, float, float]]) -> list[Marker]:
    out = []
    for a in agents:
        m = _marker(stamp, f"agent/{a['side']}/{a['unum']}", 0, Marker.TEXT_VIEW_FACING)
        x, y, z = positions.get((a["side"], a["unum"]), (0.0, 0.0, 0.0))
        m.pose.position = Point(x=float(x), y=float(y), z=float(z) + 0.45)
        m.text = a["text"]
        m.scale.z = TEXT_HEIGHT
        m.color = _colour(a["color"])
        out.append(m)
    return out


def _clear(stamp: Time) -> Marker:
    clear = Marker(action=Marker.DELETEALL)
    clear.header.frame_id = FRAME
    clear.header.stamp = stamp
    return clear


class MarkerRenderer:
    """The board as one serialized MarkerArray, rebuilding only the sets that changed."""

    def __init__(self) -> None:
        self._sets: dict[str, tuple[int, list[Marker]]] = {}  # name -> (set version, its markers)
        self.left_out = 0  # sets not in the last message (beyond MAX_MARKER_POINTS)

    def __call__(self, board: DrawingBoard, positions: dict[tuple[str, int], tuple[float, float, float]],
                 sim_time: float) -> bytes:
        t = stamp(sim_time)
        drawn = board.to_dict()
        versions = board.shown_versions()
        kept: dict[str, tuple[int, list[Marker]]] = {}
        markers = [_clear(t)]
        points = 0
        self.left_out = 0
        for name, shapes in drawn["sets"].items():
            entry = self._sets.get(name)
            if entry is None or entry[0] != versions.get(name):
                cost = sum(2 * CIRCLE_SEGMENTS if s["kind"] == "circle" else 2 * len(s["points"]) for s in shapes)
                if points + cost > MAX_MARKER_POINTS:
                    self.left_out += 1
                    continue
                entry = (versions.get(name, -1), _set_markers(t, name, shapes))
            size = sum(len(m.points) for m in entry[1])
            if points + size > MAX_MARKER_POINTS:
                self.left_out += 1
                continue
            points += size
            kept[name] = entry
            markers += entry[1]
        self._sets = kept
        markers += _agent_markers(t, drawn["agents"], positions)
        return bytes(serialize_message(MarkerArray(markers=markers)))


MARKERS: Final = "markers"  # the drawing feed's key of the serialized MarkerArray


class ShownDrawings(Protocol):
    """What a drawing feed shows now (server/draw_feed.py's DrawingView)."""

    @property
    def version(self) -> int: ...
    @property
    def rendered(self) -> dict[str, Any]: ...


class DrawingSource(Protocol):
    """The agents' drawings as the server's drawing feed offers them (server/draw_feed.py):
    what is shown, and a renderer added to its drawing thread."""

    @property
    def view(self) -> ShownDrawings: ...
    def renderer(self, key: str, make: Callable[[], Callable[[Any, dict[tuple[str, int],
                                                              tuple[float, float, float]], float], Any]]) -> None: ...


def marker_view(feed: DrawingSource | None) -> tuple[int, bytes] | None:
    """The agents' drawings as (version, serialized MarkerArray), drawn on the feed's thread
    (`feed`: the server's DrawingFeed, server/draw_feed.py, or None without a drawing port);
    None before the first is drawn. The first call asks for them."""
    if feed is None:
        return None
    feed.renderer(MARKERS, MarkerRenderer)
    view = feed.view
    drawn = view.rendered.get(MARKERS)
    return (view.version, drawn) if isinstance(drawn, bytes) else None
