"""What the browser monitor draws, as JSON: time, game state, new fouls, field, ball, robots."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any


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
    robots: list[dict[str, Any]] = field(default_factory=list)  # id, side, unum, model, x, y, z, yaw_deg
    fouls: list[dict[str, Any]] = field(default_factory=list)  # time, type, side, unum (new ones only)
    field: dict[str, float] = field(default_factory=dict)
    mode: str = "live"  # or "replay": the page says which it shows

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))


def frame_from_server(server: Any, fouls: list[dict[str, Any]]) -> WebFrame:
    """A frame of a running SingleModeServer (called on its loop thread)."""
    s = server.referee.state
    f = server.engine.field
    robots = []
    for p in server.players.with_robots():
        (x, y, z), _ = server.engine.robot_pose(p.robot_id)
        robots.append({"id": p.robot_id, "side": p.side, "unum": p.unum, "model": p.model,
                       "x": round(x, 3), "y": round(y, 3), "z": round(z, 3),
                       "yaw_deg": round(server.engine.robot_yaw(p.robot_id), 1)})
    return WebFrame(
        time=round(server.engine.time, 2), game_time=round(s.game_time, 2), half=s.half, play_mode=s.play_mode.value,
        team_left=s.team_left, team_right=s.team_right, score_left=s.score_left, score_right=s.score_right,
        ball=tuple(round(v, 3) for v in server.engine.ball_position()),
        robots=robots, fouls=fouls,
        field={"length": f.length, "width": f.width, "goal_width": f.goal_width, "goal_depth": f.goal_depth,
               "penalty_depth": f.penalty_depth, "penalty_width": f.penalty_width,
               "center_radius": f.center_radius, "ball_radius": f.ball_radius})
