"""The match as visualization_msgs/MarkerArray, for RViz's and Foxglove's 3D views without
robot models: the field (carpet, lines, goals), the ball, and each robot as a column in its
team's colour with its number above it.

Why a module: the ROS node publishes it live and the replay log records it, from the same
conversion. Each message is whole: it starts with DELETEALL, so robots that left vanish and
a viewer that joins late gets the field with the next message."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

from sim_contracts.field import FieldSpec

if TYPE_CHECKING:
    from sim_master.master.adapters import CycleView

FRAME: Final = "world"
SIDE_COLOURS: Final = {"left": (0.2, 0.4, 1.0), "right": (1.0, 0.25, 0.2), "": (0.6, 0.6, 0.6)}
ROBOT_HEIGHT: Final = 0.5  # m: a column of a Nao's height, centred on its torso's x, y


@dataclass(frozen=True, slots=True)
class RobotMark:
    entity: str
    side: str  # left, right, or "" for a robot of nobody's team
    unum: int  # 0: none
    position: tuple[float, float, float]


def _colour(rgb: tuple[float, float, float], alpha: float = 1.0) -> ColorRGBA:
    return ColorRGBA(r=rgb[0], g=rgb[1], b=rgb[2], a=alpha)


def _marker(ns: str, marker_id: int, kind: int, stamp: Time) -> Marker:
    m = Marker()
    m.header.frame_id, m.header.stamp = FRAME, stamp
    m.ns, m.id, m.type, m.action = ns, marker_id, kind, Marker.ADD
    m.pose.orientation.w = 1.0
    return m


def field_markers(field: FieldSpec, stamp: Time) -> list[Marker]:
    carpet = _marker("field", 0, Marker.CUBE, stamp)
    carpet.pose.position.z = -0.005
    carpet.scale.x, carpet.scale.y, carpet.scale.z = field.length + 2.0, field.width + 2.0, 0.01
    carpet.color = _colour((0.1, 0.45, 0.15))
    lines = _marker("field", 1, Marker.LINE_LIST, stamp)
    lines.scale.x = 0.05
    lines.color = _colour((1.0, 1.0, 1.0))
    for x0, y0, x1, y1 in field.drawing_lines():
        lines.points += [Point(x=x0, y=y0, z=0.005), Point(x=x1, y=y1, z=0.005)]
    goals = _marker("field", 2, Marker.LINE_LIST, stamp)
    goals.scale.x = 0.08
    goals.color = _colour((1.0, 0.9, 0.2))
    hw, height = field.goal_width / 2, field.goal_height
    for sx in (-1.0, 1.0):
        x = sx * field.half_length
        corners = [Point(x=x, y=-hw, z=0.0), Point(x=x, y=-hw, z=height), Point(x=x, y=hw, z=height),
                   Point(x=x, y=hw, z=0.0)]
        goals.points += [corners[0], corners[1], corners[1], corners[2], corners[2], corners[3]]
    return [carpet, lines, goals]


def loop_markers(loop: CycleView, stamp: Time) -> MarkerArray:
    """The loop's world now: every robot with its player's side and number, if it has one."""
    return match_markers(*loop_marks(loop), stamp)


def loop_marks(loop: CycleView) -> tuple[FieldSpec, tuple[float, float, float], list[RobotMark]]:
    """What the markers show, read now (the markers may be built later, on another thread)."""
    engine = loop.engine
    players = {p.robot_id: p for p in loop.players.with_robots()}
    robots = []
    for robot_id in engine.robot_ids():
        player = players.get(robot_id)
        side, unum = (player.side, player.unum) if player is not None and player.registered else ("", 0)
        robots.append(RobotMark(robot_id, side, unum, engine.robot_pose(robot_id)[0]))
    return engine.field, engine.ball_position(), robots


def match_markers(field: FieldSpec, ball: tuple[float, float, float], robots: Iterable[RobotMark],
                  stamp: Time) -> MarkerArray:
    clear = Marker()
    clear.header.frame_id, clear.header.stamp, clear.action = FRAME, stamp, Marker.DELETEALL
    out = [clear, *field_markers(field, stamp)]
    sphere = _marker("ball", 0, Marker.SPHERE, stamp)
    sphere.pose.position.x, sphere.pose.position.y, sphere.pose.position.z = ball
    sphere.scale.x = sphere.scale.y = sphere.scale.z = 2 * field.ball_radius
    sphere.color = _colour((1.0, 1.0, 1.0))
    out.append(sphere)
    for i, robot in enumerate(sorted(robots, key=lambda r: r.entity)):
        x, y, _ = robot.position
        column = _marker("robots", i, Marker.CYLINDER, stamp)
        column.pose.position.x, column.pose.position.y, column.pose.position.z = x, y, ROBOT_HEIGHT / 2
        column.scale.x = column.scale.y = 0.2
        column.scale.z = ROBOT_HEIGHT
        column.color = _colour(SIDE_COLOURS.get(robot.side, SIDE_COLOURS[""]), 0.8)
        column.text = robot.entity
        out.append(column)
        label = _marker("numbers", i, Marker.TEXT_VIEW_FACING, stamp)
        label.pose.position.x, label.pose.position.y, label.pose.position.z = x, y, ROBOT_HEIGHT + 0.25
        label.scale.z = 0.35
        label.color = _colour((1.0, 1.0, 1.0))
        label.text = str(robot.unum) if robot.unum else robot.entity
        out.append(label)
    return MarkerArray(markers=out)
