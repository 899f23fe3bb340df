"""Ground truth in a player's vision, as rcssserver3d's vision perceptor adds it when asked
(SenseMyPos, SenseMyOrien, SenseBallPos; off by default there and here): learning setups and
agents whose walk reads them (yohsin3d's) get them with `--ground-truth mypos,myorien,ballpos`.

In the team's frame, as everything an agent sees: its own goal at -x, so the right team's
x and y are turned by 180 degrees. mypos is the torso's position (rcssserver3d: the vision
perceptor's parent, the head: a few cm off in x and y); myorien the torso's heading in
degrees, 0 along +x, counter-clockwise."""
from __future__ import annotations

import math
from typing import Final, Protocol

GROUND_TRUTH: Final = ("mypos", "myorien", "ballpos")

Vec3 = tuple[float, float, float]


class _Engine(Protocol):
    def robot_pose(self, robot_id: str) -> tuple[Vec3, tuple[float, float, float, float]]: ...
    def ball_position(self) -> Vec3: ...


def ground_truth(engine: _Engine, robot_id: str, side: str, items: tuple[str, ...]) -> dict[str, tuple[float, ...]]:
    """The asked items for one robot, in its team's frame."""
    turn = side == "right"
    out: dict[str, tuple[float, ...]] = {}
    if "mypos" in items or "myorien" in items:
        (x, y, z), (w, qx, qy, qz) = engine.robot_pose(robot_id)
        if "mypos" in items:
            out["mypos"] = (-x, -y, z) if turn else (x, y, z)
        if "myorien" in items:
            yaw = math.degrees(math.atan2(2 * (w * qz + qx * qy), 1 - 2 * (qy * qy + qz * qz)))
            yaw = yaw + 180.0 if turn else yaw
            out["myorien"] = ((yaw + 180.0) % 360.0 - 180.0,)
    if "ballpos" in items:
        bx, by, bz = engine.ball_position()
        out["ballpos"] = (-bx, -by, bz) if turn else (bx, by, bz)
    return {name: out[name] for name in GROUND_TRUTH if name in out}  # the reference's order
