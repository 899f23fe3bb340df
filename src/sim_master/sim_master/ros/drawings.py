"""Agents' RoboViz drawings (sim_bridge/roboviz_draw.py) as visualization_msgs/MarkerArray: the
replay log keeps them so (a message whenever what is shown changes) and Foxglove's 3D panel
draws them beside the match's markers. One namespace per drawing set; texts over agents in the
namespace `agent/<side>/<unum>`, placed over the robot. Each message is whole (DELETEALL first).
store/drawing_records.py reads them back for the browser's replay."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Final

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

from sim_master.ros.markers import FRAME

if TYPE_CHECKING:
    from sim_master.master.loop import SimulationLoop

PIXEL: Final = 0.01  # m per RoboViz pixel of line width / point size, as drawn on the field
CIRCLE_SEGMENTS: Final = 32
TEXT_HEIGHT: Final = 0.2  # m


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


def drawings_to_markers(drawings: dict[str, Any], stamp: Time,
                        agent_positions: dict[tuple[str, int], tuple[float, float, float]]) -> MarkerArray:
    """`drawings`: DrawingBoard.to_dict(); `agent_positions`: where each annotated agent's robot is."""
    clear = Marker(action=Marker.DELETEALL)
    clear.header.frame_id = FRAME
    clear.header.stamp = stamp
    markers = [clear]
    for name, shapes in drawings["sets"].items():
        for i, s in enumerate(shapes):
            kind = s["kind"]
            if kind in ("line", "circle", "polygon"):
                m = _marker(stamp, name, i, Marker.LINE_LIST if kind == "line" else Marker.LINE_STRIP)
                if kind == "circle":
                    x, y, z = s["points"][0]
                    ring = [[x + s["size"] * math.cos(2 * math.pi * k / CIRCLE_SEGMENTS),
                             y + s["size"] * math.sin(2 * math.pi * k / CIRCLE_SEGMENTS), z]
                            for k in range(CIRCLE_SEGMENTS + 1)]
                    m.points = [_point(p) for p in ring]
                else:
                    points = s["points"] + ([s["points"][0]] if kind == "polygon" else [])
                    m.points = [_point(p) for p in points]
                m.scale.x = max(PIXEL, s.get("width", 1.0) * PIXEL)
            elif kind == "point":
                m = _marker(stamp, name, i, Marker.POINTS)
                m.points = [_point(s["points"][0])]
                m.scale.x = m.scale.y = max(PIXEL, s["size"] * PIXEL)
            elif kind == "sphere":
                m = _marker(stamp, name, i, Marker.SPHERE)
                m.pose.position = _point(s["points"][0])
                m.scale.x = m.scale.y = m.scale.z = 2 * s["size"]
            else:  # text
                m = _marker(stamp, name, i, Marker.TEXT_VIEW_FACING)
                m.pose.position = _point(s["points"][0])
                m.text = s.get("text", "")
                m.scale.z = TEXT_HEIGHT
            m.color = _colour(s["color"])
            markers.append(m)
    for a in drawings["agents"]:
        m = _marker(stamp, f"agent/{a['side']}/{a['unum']}", 0, Marker.TEXT_VIEW_FACING)
        x, y, z = agent_positions.get((a["side"], a["unum"]), (0.0, 0.0, 0.0))
        m.pose.position = Point(x=x, y=y, z=z + 0.45)
        m.text = a["text"]
        m.scale.z = TEXT_HEIGHT
        m.color = _colour(a["color"])
        markers.append(m)
    return MarkerArray(markers=markers)


def loop_drawings(loop: SimulationLoop, stamp: Time) -> MarkerArray | None:
    """The loop's agents' drawings as markers (None without a drawing port); agent texts go over
    their robots as they are now."""
    drawing = getattr(loop, "drawing", None)  # the drawing port, when open (server/draw_feed.py)
    if drawing is None:
        return None
    positions = {(p.side, p.unum): loop.engine.robot_pose(p.robot_id)[0] for p in loop.players.with_robots()}
    return drawings_to_markers(drawing.board.to_dict(), stamp, positions)


def drawings_version(loop: SimulationLoop) -> int:
    """What is shown of the agents' drawings, as a number that grows with every change (-1: no
    drawing port): a publisher compares it with the one it last sent."""
    drawing = getattr(loop, "drawing", None)
    return -1 if drawing is None else int(drawing.board.version)
