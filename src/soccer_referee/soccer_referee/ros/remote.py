"""The referee's contract with a simulation in another process, as sim_msgs messages.

Why: the referee judges through `WorldView` (soccer_referee.world). In one process that is
the engine itself; across processes the simulation sends what the view reads each cycle
(`RefereeWorld`) and the referee sends back what it changed (`RefereeMove`s). Both ends use
the functions here, so the view and its messages are written down once. Pure functions and
one recording world, no Node."""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Vector3

from sim_msgs.msg import PlayerRef, PlayerState, RefereeMove, RefereeWorld
from sim_msgs.srv import RefereeCommand
from soccer_referee.commands import (
    DropBall,
    KickOff,
    MoveAgent,
    MoveBall,
    SetPlayMode,
    SetScore,
    SetTime,
)
from soccer_referee.commands import (
    RefereeCommand as Command,
)
from soccer_referee.world import PlayerId, PlayerView, Side, Vec3, WorldView, as_side

# The simulation's side of the link: a hidden node in the simulation's namespace, the one
# publisher the judge takes `referee_world` from (ros/senders.py).
LINK_NODE: Final = "_soccersim_referee_link"


def _vec(v: Sequence[float]) -> Vector3:
    return Vector3(x=float(v[0]), y=float(v[1]), z=float(v[2]))


def _tuple(v: Vector3) -> Vec3:
    return (float(v.x), float(v.y), float(v.z))


def _ref(player: PlayerId) -> PlayerRef:
    return PlayerRef(side=player[0], unum=int(player[1]))


def world_to_msg(world: WorldView, cycle: int, stamp: Time, dt: float) -> RefereeWorld:
    """What the referee's view reads of `world` after a cycle."""
    msg = RefereeWorld(cycle=cycle, stamp=stamp, dt=float(dt), ball_position=_vec(world.ball_position()),
                       ball_velocity=_vec(world.ball_velocity()))
    msg.players = [PlayerState(side=p.side, unum=p.unum, position=_vec(p.position), velocity=_vec(p.velocity),
                               yaw_deg=float(p.yaw_deg), can_fall=p.can_fall) for p in world.players()]
    msg.touchers = [_ref(p) for p in world.ball_touchers()]
    msg.contacts = [_ref(p) for pair in world.player_contacts() for p in pair]
    return msg


class MessageWorld:
    """A `WorldView` of the last `RefereeWorld` received; the referee's placements are
    recorded as `RefereeMove`s for the simulation to make (`take_moves`)."""

    def __init__(self) -> None:
        self._msg = RefereeWorld()
        self._moves: list[RefereeMove] = []

    def update(self, msg: RefereeWorld) -> None:
        self._msg = msg

    def take_moves(self) -> list[RefereeMove]:
        moves, self._moves = self._moves, []
        return moves

    def ball_position(self) -> Vec3:
        return _tuple(self._msg.ball_position)

    def ball_velocity(self) -> Vec3:
        return _tuple(self._msg.ball_velocity)

    def players(self) -> Sequence[PlayerView]:
        return [PlayerView(as_side(p.side), int(p.unum), _tuple(p.position), _tuple(p.velocity), float(p.yaw_deg),
                           bool(p.can_fall)) for p in self._msg.players if p.side in ("left", "right")]

    def ball_touchers(self) -> Sequence[PlayerId]:
        return [(as_side(p.side), int(p.unum)) for p in self._msg.touchers if p.side in ("left", "right")]

    def player_contacts(self) -> Sequence[tuple[PlayerId, PlayerId]]:
        refs = [(as_side(p.side), int(p.unum)) for p in self._msg.contacts if p.side in ("left", "right")]
        return list(zip(refs[0::2], refs[1::2], strict=False))

    def move_ball(self, position: Vec3, velocity: Vec3 = (0.0, 0.0, 0.0)) -> None:
        self._moves.append(RefereeMove(kind=RefereeMove.BALL, position=_vec(position), velocity=_vec(velocity)))
        self._msg.ball_position, self._msg.ball_velocity = _vec(position), _vec(velocity)

    def move_player(self, side: Side, unum: int, x: float, y: float, yaw_deg: float | None, *,
                    z: float | None = None, upright: bool = False,
                    orientation: tuple[float, float, float, float] | None = None,
                    zero_joints: bool = False, beside: bool = False) -> None:
        move = RefereeMove(kind=RefereeMove.PLAYER, position=_vec((x, y, 0.0 if z is None else z)), side=side,
                           unum=unum, keep_yaw=yaw_deg is None, yaw_deg=float(yaw_deg or 0.0), has_z=z is not None,
                           upright=upright, has_orientation=orientation is not None, zero_joints=zero_joints,
                           beside=beside)
        if orientation is not None:
            move.orientation = [float(v) for v in orientation]
        self._moves.append(move)
        for p in self._msg.players:
            if p.side == side and p.unum == unum:
                p.position.x, p.position.y = float(x), float(y)


def apply_moves(moves: Sequence[RefereeMove], world: WorldView) -> list[str]:
    """Make an external referee's placements in the simulation's world; returns why any
    could not be made (numbers not finite, outside the world, an unknown kind); `world` checks
    each placement as it checks the referee's own (master/referee_world.py)."""
    problems: list[str] = []
    for m in moves:
        numbers = [m.position.x, m.position.y, m.position.z, m.velocity.x, m.velocity.y, m.velocity.z, m.yaw_deg,
                   *m.orientation]
        if not all(math.isfinite(v) for v in numbers):
            problems.append("a referee move with numbers that are not finite")
            continue
        try:
            if m.kind == RefereeMove.BALL:
                world.move_ball(_tuple(m.position), _tuple(m.velocity))
            elif m.kind == RefereeMove.PLAYER and m.side in ("left", "right"):
                o = m.orientation
                orientation = (float(o[0]), float(o[1]), float(o[2]), float(o[3])) if m.has_orientation else None
                world.move_player(as_side(m.side), int(m.unum), m.position.x, m.position.y,
                                  None if m.keep_yaw else m.yaw_deg, z=m.position.z if m.has_z else None,
                                  upright=m.upright, orientation=orientation,
                                  zero_joints=m.zero_joints, beside=m.beside)
            else:
                problems.append(f"a referee move of unknown kind {m.kind}")
        except ValueError as exc:
            problems.append(str(exc))
    return problems


def command_request(command: Command) -> RefereeCommand.Request:
    """A referee command as an external referee's request (its fields in order)."""
    req = RefereeCommand.Request()
    if isinstance(command, KickOff):
        req.kind, req.side = "kick_off", command.side or ""
    elif isinstance(command, SetPlayMode):
        req.kind, req.name = "set_play_mode", command.name
    elif isinstance(command, DropBall):
        req.kind = "drop_ball"
    elif isinstance(command, MoveBall):
        req.kind, req.numbers = "move_ball", [float(v) for v in (*command.position, *command.velocity)]
    elif isinstance(command, MoveAgent):
        req.kind, req.side, req.unum = "move_agent", command.side, int(command.unum)
        req.numbers = [float(command.x), float(command.y), float(command.rotation or 0.0), float(command.z or 0.0),
                       *(float(v) for v in (command.orientation or (1.0, 0.0, 0.0, 0.0)))]
        req.flags = [command.rotation is not None, command.z is not None, command.upright,
                     command.orientation is not None, command.zero_joints]
    elif isinstance(command, SetTime):
        req.kind, req.numbers = "set_time", [float(command.time)]
    elif isinstance(command, SetScore):
        req.kind, req.numbers = "set_score", [float(command.left), float(command.right)]
    else:
        raise ValueError(f"not a referee command: {command!r}")
    return req


def unregister_request(side: str, unum: int) -> RefereeCommand.Request:
    return RefereeCommand.Request(kind="unregister", side=side, unum=int(unum))


def command_from_request(req: RefereeCommand.Request) -> Command | tuple[str, int] | str:
    """The command a request carries, ("side", unum) for an unregister, or why it is none."""
    n, f = list(req.numbers), list(req.flags)
    kind = req.kind
    if kind == "kick_off":
        return KickOff(req.side or None)
    if kind == "set_play_mode":
        return SetPlayMode(req.name)
    if kind == "drop_ball":
        return DropBall()
    if kind == "move_ball" and len(n) == 6:
        return MoveBall((n[0], n[1], n[2]), (n[3], n[4], n[5]))
    if kind == "move_agent" and len(n) == 8 and len(f) == 5:
        return MoveAgent(req.side, int(req.unum), n[0], n[1], n[2] if f[0] else None, n[3] if f[1] else None,
                         f[2], (n[4], n[5], n[6], n[7]) if f[3] else None, f[4])
    if kind == "set_time" and len(n) == 1:
        return SetTime(n[0])
    if kind == "set_score" and len(n) == 2 and all(v.is_integer() for v in n):
        return SetScore(int(n[0]), int(n[1]))
    if kind == "unregister":
        return (req.side, int(req.unum))
    return f"not a referee command: kind {kind[:40]!r} with {len(n)} numbers and {len(f)} flags"
