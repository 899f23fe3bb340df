"""What the browser monitor draws, as JSON messages on /ws (the page's whole contract):

- `scene` (sent on connect and when it changes): mode (live or replay), whether this client
  may send commands, the field's figures and its drawing (the same segments as the PNG
  pictures), and per robot model its links with their shapes (box, sphere, cylinder,
  capsule: size in m, pose in the link frame as x y z and w x y z).
- `frame` (every 2nd cycle): times, game state, new fouls, the ball, and per robot its
  side, number, model, base pose and its links' world poses, flat, in the scene's link
  order (7 numbers per link; a link without a pose is sent at the robot's base).
  When agents draw (RoboViz's UDP protocol) a frame also carries `drawings` whenever they
  changed: the shown sets by name, each a list of shapes (kind circle/line/point/sphere/
  polygon/text, points in m, size, width, rgba colour, text), texts over agents, the selected
  agent.
- `timeline` (replay only): the log's time span, its goals and fouls, pause and speed.

The page sends `{"cmd": ...}` back: replay controls (play, pause, step, seek, speed) and,
from an allowed client, referee commands."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import numpy as np
from sim_physics.engine.league import model_league
from sim_physics.world.spec import ModelSpec, Shape

from sim_contracts.field import FieldSpec

if TYPE_CHECKING:
    from sim_master.master.adapters import CycleView


class JsonText(str):
    """A value already encoded as JSON (e.g. agents' drawings, encoded off the loop's thread):
    a frame splices it in as it is."""


@dataclass(slots=True)
class WebFrame:
    time: float
    game_time: float
    half: int
    play_mode: str
    team_left: str
    team_right: str
    score_left: int
    score_right: int
    ball: tuple[float, float, float]
    # id, side, unum, model, league, physics (what it runs on), x, y, z, yaw_deg, links
    robots: list[dict[str, Any]] = field(default_factory=list)
    fouls: list[dict[str, Any]] = field(default_factory=list)  # time, type, side, unum (new ones only)
    # say messages since the last frame: time, side, unum, team, message, heard_by (unums)
    said: list[dict[str, Any]] = field(default_factory=list)
    # agents' debug drawings (RoboViz protocol) when they changed: version, sets {name: shapes},
    # agents [{side, unum, text, color}], selected [side, unum]; None: unchanged
    drawings: dict[str, Any] | JsonText | None = None
    paused: bool = False  # the simulation is held (service, page or ROS): the page says so
    mode: str = "live"  # or "replay": the page says which it shows
    kind: str = "frame"

    def to_dict(self) -> dict[str, Any]:
        """Shallow (dataclasses.asdict deep-copies every number: 12 ms a frame at 22 robots)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def to_json(self) -> str:
        data = self.to_dict()
        drawings = data.get("drawings")
        if isinstance(drawings, JsonText):
            data["drawings"] = None
            text = json.dumps(data, separators=(",", ":"))
            return text.replace('"drawings":null', f'"drawings":{drawings}', 1)
        return json.dumps(data, separators=(",", ":"))


def field_message(spec: FieldSpec) -> dict[str, Any]:
    return {"length": spec.length, "width": spec.width, "goal_width": spec.goal_width,
            "goal_depth": spec.goal_depth, "goal_height": spec.goal_height, "penalty_depth": spec.penalty_depth,
            "penalty_width": spec.penalty_width, "center_radius": spec.center_radius,
            "ball_radius": spec.ball_radius, "lines": [[round(v, 4) for v in seg] for seg in spec.drawing_lines()]}


def _shape(shape: Shape) -> dict[str, Any]:
    pose = shape.pose
    return {"type": shape.geometry.shape, "size": [round(v, 5) for v in shape.geometry.size],
            "pos": [round(float(v), 5) for v in pose.pos], "quat": [round(float(v), 6) for v in pose.quat()]}


def model_message(spec: ModelSpec) -> dict[str, Any]:
    """The links of a model with what the page draws for each (visuals, else collisions)."""
    return {"links": [{"name": link.name, "shapes": [_shape(s) for s in (link.visuals or link.collisions)
                                                     if s.geometry.shape != "plane"]} for link in spec.links]}


def scene_message(mode: str, spec: FieldSpec, models: dict[str, ModelSpec], commands: bool) -> dict[str, Any]:
    return {"kind": "scene", "mode": mode, "commands": commands, "field": field_message(spec),
            "models": {key: model_message(m) for key, m in sorted(models.items())}}


class LinkRows:
    """Where each robot's links are in the engine's frame list, found once per change of that
    list (robots joining or leaving), so a frame costs a few array operations per robot."""

    def __init__(self) -> None:
        self._names: list[str] | None = None
        self._rows: dict[tuple[str, str], np.ndarray] = {}

    def rows(self, spec: ModelSpec, entity: str, names: list[str]) -> np.ndarray:
        if names != self._names:
            self._names, self._rows = list(names), {}
        key = (entity, spec.name)
        rows = self._rows.get(key)
        if rows is None:
            index = {name: i for i, name in enumerate(names)}
            rows = self._rows[key] = np.array([index.get(f"{entity}/{link.name}", -1) for link in spec.links],
                                              dtype=np.int64)
        return rows


def link_poses(rows: np.ndarray, poses: np.ndarray, base: list[float]) -> list[float]:
    """The entity's links' world poses in the model's link order, flat, rounded for the wire
    (`poses` already rounded); a link the engine has no frame for is sent at the base."""
    if rows.size == 0:
        return []
    picked = poses[np.maximum(rows, 0)]
    if (rows < 0).any():
        picked[rows < 0] = base
    return picked.ravel().tolist()


def yaw_deg(quat: tuple[float, float, float, float]) -> float:
    w, x, y, z = quat
    return math.degrees(math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))


def frame_from_server(server: CycleView, fouls: list[dict[str, Any]], link_rows: LinkRows | None = None, *,
                      said: list[dict[str, Any]] | None = None,
                      drawings: dict[str, Any] | JsonText | None = None) -> WebFrame:
    """A frame of a running SingleModeServer (called on its loop thread)."""
    s = server.referee.state
    engine = server.engine
    ball = engine.ball_position()
    names, poses = engine.frames()
    poses = np.round(poses, 4)
    link_rows = link_rows or LinkRows()
    robots = []
    for p in server.players.with_robots():
        (x, y, z), quat = engine.robot_pose(p.robot_id)
        base = [round(x, 4), round(y, 4), round(z, 4), *(round(v, 4) for v in quat)]
        robots.append({"id": p.robot_id, "side": p.side, "unum": p.unum, "model": p.model,
                       "league": model_league(engine, p.model), "physics": engine.physics,
                       "x": round(x, 3), "y": round(y, 3), "z": round(z, 3), "yaw_deg": round(yaw_deg(quat), 1),
                       "links": link_poses(link_rows.rows(engine.model_spec(p.model), p.robot_id, names), poses,
                                           base)})
    return WebFrame(
        time=round(engine.time, 2), game_time=round(s.game_time, 2), half=s.half, play_mode=s.play_mode.value,
        team_left=s.team_left, team_right=s.team_right, score_left=s.score_left, score_right=s.score_right,
        ball=(round(ball[0], 3), round(ball[1], 3), round(ball[2], 3)), robots=robots, fouls=fouls,
        said=said or [], drawings=drawings, paused=server.paused)
