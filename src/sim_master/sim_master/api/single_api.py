"""The core API's rules over a single-mode loop: each call is a function run on the loop's
thread (the server hands it there) that answers a soccersim.v1 message or raises ApiError.

Why here and not in the servicers: the checks are the other surfaces' own (the referee's
`command_problem` and its host, the entity services, entity_query, the control's pause and
step), so a value refused on the service port or over ROS is refused here with the same
words; this module only picks the status code."""
from __future__ import annotations

import math
import threading
from typing import TYPE_CHECKING, Final

from sim_physics.snapshot import EntitySnapshot

from sim_contracts import names
from sim_master.api import convert
from sim_master.api.errors import ApiError, Code
from sim_master.api.world_view import WorldRead
from sim_master.master import entity_query
from sim_master.master.loop import MAX_STEP_CYCLES
from sim_master.master.stepping import PausedStepping
from soccer_referee.checks import command_problem
from soccer_referee.commands import (
    DropBall,
    KickOff,
    MoveBall,
    RefereeCommand,
    SetPlayMode,
    SetScore,
    entity_move,
)
from soccersim_api.v1 import soccersim_pb2 as pb

if TYPE_CHECKING:
    from sim_master.master.loop import SimulationLoop

MAX_NAME: Final = 256  # characters of an entity, team or play-mode name
MIN_SPEED, MAX_SPEED = 0.1, 10.0  # real-time factors SetSpeed takes
# the entity services' spawn errors (entity_services.SpawnOutcome) as status codes; the rest
# (name_invalid, invalid_pose, parse_error, unsupported_format) are INVALID_ARGUMENT
SPAWN_CODES: Final[dict[str, Code]] = {"name_not_unique": "ALREADY_EXISTS", "no_resource": "NOT_FOUND",
                                       "failed": "FAILED_PRECONDITION"}


def check_steps(cycles: int) -> None:
    if not 1 <= cycles <= MAX_STEP_CYCLES:
        raise ApiError("INVALID_ARGUMENT", f"cycles must be in 1..{MAX_STEP_CYCLES}")


def start_steps(control: PausedStepping, cycles: int, what: str) -> threading.Event:
    """Step while paused (the single loop's or a distributed lockstep's): the event is set
    when the cycles ran."""
    check_steps(cycles)
    if not control.paused:
        raise ApiError("FAILED_PRECONDITION", f"{what} is not paused")
    if control.stepping:
        raise ApiError("FAILED_PRECONDITION", "a step request is still running")
    return control.step_paused(cycles)


def finite(*values: float) -> None:
    if not all(math.isfinite(v) for v in values):
        raise ApiError("INVALID_ARGUMENT", "numbers must be finite")


def short(text: str, what: str) -> str:
    if len(text) > MAX_NAME:
        raise ApiError("INVALID_ARGUMENT", f"{what} longer than {MAX_NAME} characters")
    return text


class SingleApi:
    """The calls of soccersim.v1 a single-mode server answers (on the loop's thread)."""

    def __init__(self, loop: SimulationLoop) -> None:
        self.loop = loop

    # ------------------------------------------------------------------ simulation
    def state(self) -> pb.SimulationState:
        loop = self.loop
        c = loop.config
        realtime = c.realtime and not c.sync
        return pb.SimulationState(
            state=pb.SimulationState.STATE_PAUSED if loop.paused else pb.SimulationState.STATE_PLAYING,
            cycle=loop.engine.cycle, stamp=loop.engine.time, sync=c.sync,
            real_time_factor=loop.control.speed if realtime else 0.0, cycles_per_s=loop.stats.cycles_per_s(),
            players=len(loop.players), engine=c.engine, mode="single")

    def pause(self) -> pb.SimulationState:
        self.loop.control.pause()
        return self.state()

    def resume(self) -> pb.SimulationState:
        self.loop.control.play()
        return self.state()

    def check_steps(self, cycles: int) -> None:
        check_steps(cycles)

    def start_steps(self, cycles: int) -> threading.Event:
        """The event set when they ran (the caller waits off the loop's thread)."""
        return start_steps(self.loop.control, cycles, "simulation")

    def reset(self, state: bool, spawned: bool) -> pb.SimulationState:
        if not state and not spawned:
            state = spawned = True
        error = self.loop.entities.reset(state=state, spawned=spawned)
        if error is not None:
            raise ApiError("FAILED_PRECONDITION", error)
        return self.state()

    def set_speed(self, factor: float) -> pb.SimulationState:
        finite(factor)
        c = self.loop.config
        if c.sync or not c.realtime:
            raise ApiError("FAILED_PRECONDITION", "sync mode runs as fast as its agents answer: no speed to set")
        if not MIN_SPEED <= factor <= MAX_SPEED:
            raise ApiError("INVALID_ARGUMENT", f"real_time_factor must be in {MIN_SPEED:g}..{MAX_SPEED:g}")
        self.loop.control.speed = factor
        return self.state()

    # ------------------------------------------------------------------ entities
    def entity(self, entity: EntitySnapshot) -> pb.Entity:
        d = entity_query.describe(self.loop, entity.name)
        return pb.Entity(state=convert.entity_state(entity),
                         info=pb.EntityInfo(category=d.category, tags=d.tags, description=d.description))

    def read_world(self) -> WorldRead:
        """The state and what each entity is, for world_view.py to list off this thread."""
        loop = self.loop
        entities = [names.BALL, *loop.engine.robot_ids()]
        return WorldRead(loop.engine.capture(), {n: entity_query.describe(loop, n) for n in entities})

    def get_entity(self, name: str) -> pb.Entity:
        found = self.loop.engine.snapshot().entities.get(short(name, "name"))
        if found is None:
            raise ApiError("NOT_FOUND", f"no entity named {name[:80]!r}")
        return self.entity(found)

    def set_entity_state(self, req: pb.SetEntityStateRequest) -> pb.Entity:
        name = short(req.name, "name")
        current = self.loop.engine.snapshot().entities.get(name)
        if current is None:
            raise ApiError("NOT_FOUND", f"no entity named {name[:80]!r}")
        p, q = req.pose.position, req.pose.orientation
        v, w = req.twist.linear, req.twist.angular
        finite(p.x, p.y, p.z, q.w, q.x, q.y, q.z, v.x, v.y, v.z, w.x, w.y, w.z)
        has_pose, has_twist = req.HasField("pose"), req.HasField("twist")
        norm = math.sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z)
        if has_pose and norm < 1e-9:
            raise ApiError("INVALID_ARGUMENT", "orientation must be a quaternion (not all zero)")
        new = EntitySnapshot(
            name=name,
            position=(p.x, p.y, p.z) if has_pose else current.position,
            orientation=(q.w / norm, q.x / norm, q.y / norm, q.z / norm) if has_pose else current.orientation,
            linear_velocity=(v.x, v.y, v.z) if has_twist else current.linear_velocity,
            angular_velocity=(w.x, w.y, w.z) if has_twist else current.angular_velocity)
        error = self.loop.entities.set_entity_state(name, new)
        if error is not None:
            code: Code = "FAILED_PRECONDITION" if error.startswith("the referee holds") else "INVALID_ARGUMENT"
            raise ApiError(code, error)
        return self.get_entity(name)

    def spawn(self, req: pb.SpawnEntityRequest) -> pb.Entity:
        p, q = req.pose.position, req.pose.orientation
        orientation = (q.w, q.x, q.y, q.z) if req.pose.HasField("orientation") else (1.0, 0.0, 0.0, 0.0)
        outcome = self.loop.entities.spawn_entity(short(req.name, "name"), req.uri, req.allow_renaming,
                                                  (p.x, p.y, p.z), orientation, resource_string=req.sdf)
        if not outcome.ok:
            raise ApiError(SPAWN_CODES.get(outcome.error, "INVALID_ARGUMENT"), f"{outcome.error}: {outcome.text}")
        return self.get_entity(outcome.text)

    def delete(self, name: str) -> pb.DeleteEntityResponse:
        if name == names.BALL:
            raise ApiError("FAILED_PRECONDITION", "the ball belongs to the world")
        error = self.loop.entities.delete_entity(short(name, "name"))
        if error is not None:
            raise ApiError("NOT_FOUND", error)
        return pb.DeleteEntityResponse()

    # ------------------------------------------------------------------ game
    def game_state(self) -> pb.GameState:
        return convert.game_state(self.loop.referee.state, self.loop.engine.time)

    def referee(self, command: RefereeCommand) -> pb.GameState:
        """Values the referee never takes are the caller's mistake (INVALID_ARGUMENT, the referee
        host's own check); what the game does not allow now is FAILED_PRECONDITION."""
        problem = command_problem(command, self.loop.referee.field)
        if problem:
            raise ApiError("INVALID_ARGUMENT", problem)
        error = self.loop.control.referee_command(command)
        if error is not None:
            raise ApiError("FAILED_PRECONDITION", error)
        return self.game_state()

    def set_play_mode(self, mode: str) -> pb.GameState:
        return self.referee(SetPlayMode(short(mode, "play_mode")))

    def kick_off(self, side: str) -> pb.GameState:
        return self.referee(KickOff(short(side, "side") or None))

    def drop_ball(self) -> pb.GameState:
        return self.referee(DropBall())

    def move_ball(self, req: pb.MoveBallRequest) -> pb.GameState:
        p, v = req.position, req.velocity
        return self.referee(MoveBall((p.x, p.y, p.z), (v.x, v.y, v.z)))

    def move_player(self, req: pb.MovePlayerRequest) -> pb.GameState:
        """The trainer's move (rcssserver3d's monitor agent command), as move_entity makes it."""
        team = short(req.team, "team")
        side = self.loop.referee.registry.side_of(team)
        if not side or self.loop.players.by_player(side, req.unum) is None:
            raise ApiError("NOT_FOUND", f"no player {team[:64]} #{req.unum}")
        command = entity_move(names.player_entity(team, req.unum), (req.x, req.y, 0.0), req.rotation_deg,
                              (0.0, 0.0, 0.0), self.loop.referee.registry.side_of)
        if isinstance(command, str):
            raise ApiError("NOT_FOUND", command)
        return self.referee(command)

    def set_score(self, left: int, right: int) -> pb.GameState:
        return self.referee(SetScore(left, right))

    def players(self) -> pb.ListPlayersResponse:
        return pb.ListPlayersResponse(players=[
            pb.Player(agent=p.agent_id, team=p.team or "", side=p.side or "", unum=p.unum or 0, model=p.model or "",
                      entity=p.robot_id or "") for p in self.loop.players])
