"""The engine seen through the referee's WorldView: players by (side, unum).

Every placement a referee makes reaches the engine here, whichever referee it is (the one in
this process, or a verdict from another over DDS), so the field's placement check lives here
too: a move the engine cannot take raises ValueError and changes nothing."""
from __future__ import annotations

from collections.abc import Sequence

from sim_physics.engine.node import SimulationNode

from soccer_referee.world import PlayerId, PlayerView, Side, Vec3, as_side


class EngineWorld:
    """`robots` maps (side, unum) to the engine's robot id; the master keeps it current."""

    def __init__(self, engine: SimulationNode, robots: dict[tuple[str, int], str]) -> None:
        self.engine = engine
        self.robots = robots

    def _player_of(self) -> dict[str, PlayerId]:
        return {rid: (as_side(side), unum) for (side, unum), rid in self.robots.items()}

    def ball_position(self) -> Vec3:
        return self.engine.ball_position()

    def ball_velocity(self) -> Vec3:
        return self.engine.ball_velocity()

    def players(self) -> Sequence[PlayerView]:
        out = []
        for (side, unum), rid in self.robots.items():
            pos, _ = self.engine.robot_pose(rid)
            out.append(PlayerView(as_side(side), unum, pos, self.engine.robot_velocity(rid),
                                  self.engine.robot_yaw(rid), self.engine.robot_model(rid) != "pusher"))
        return out

    def ball_touchers(self) -> Sequence[PlayerId]:
        player_of = self._player_of()
        return [player_of[r] for r in self.engine.ball_touchers() if r in player_of]

    def player_contacts(self) -> Sequence[tuple[PlayerId, PlayerId]]:
        player_of = self._player_of()
        return [(player_of[a], player_of[b]) for a, b in self.engine.robot_contacts()
                if a in player_of and b in player_of]

    def move_ball(self, position: Vec3, velocity: Vec3 = (0.0, 0.0, 0.0)) -> None:
        problem = self.engine.field.placement_problem(position, velocity)
        if problem:
            raise ValueError(f"ball not moved: {problem}")
        self.engine.set_ball(position, velocity)

    def move_player(self, side: Side, unum: int, x: float, y: float, yaw_deg: float | None, *,
                    z: float | None = None, upright: bool = False,
                    orientation: tuple[float, float, float, float] | None = None,
                    zero_joints: bool = False, beside: bool = False) -> None:
        rid = self.robots.get((side, unum))
        problem = self.engine.field.placement_problem((x, y, 0.0 if z is None else z), (), yaw_deg, orientation)
        if problem:
            raise ValueError(f"{side} #{unum} not moved: {problem}")
        if rid is not None:  # the referee carries; only a beam lifts
            self.engine.carry_robot(rid, x, y, yaw_deg, z=z, upright=upright, orientation=orientation,
                                    zero_joints=zero_joints, beside=beside)
