"""The ROS simulation standard (simulation_interfaces 2.1) served by the server's node.

One handler per service, as ros_gz does: each reads its request, hands the work to the
loop (LoopCalls, so engine and referee stay single-threaded) and answers with the
standard's result codes. `GetSimulatorFeatures` lists exactly what is handled here, so a
generic tool can ask before it calls. Entity names follow `sim_contracts.names`.
"""
from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeVar

from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from sim_physics.snapshot import EntitySnapshot

from sim_contracts import names
from sim_master.master import entity_query
from sim_master.master.entity_services import SpawnOutcome
from sim_master.master.loop import MAX_STEP_CYCLES
from sim_master.ros.convert import stamp
from sim_master.ros.service_guard import guarded
from simulation_interfaces.action import SimulateSteps
from simulation_interfaces.msg import (
    Bounds,
    EntityCategory,
    EntityFilters,
    EntityInfo,
    EntityState,
    Resource,
    Result,
    SimulationState,
    SimulatorFeatures,
    Spawnable,
    SpawnResult,
    TagsFilter,
)
from simulation_interfaces.srv import (
    DeleteEntity,
    GetEntities,
    GetEntitiesStates,
    GetEntityInfo,
    GetEntityState,
    GetSimulationState,
    GetSimulatorFeatures,
    GetSpawnables,
    ResetSimulation,
    SetEntityState,
    SetSimulationState,
    SpawnEntities,
    SpawnEntity,
    StepSimulation,
)

if TYPE_CHECKING:
    from sim_master.master.loop import SimulationLoop

T = TypeVar("T")
STEP_TIMEOUT_S: Final = 120.0
ACTION_CHUNK: Final = 10  # SimulateSteps steps this many cycles between feedbacks and cancel checks
MAX_SPAWN_BATCH: Final = 64  # entities per spawn_entities call (each is built on the loop's thread)
FEATURES: Final = (
    SimulatorFeatures.SPAWNING, SimulatorFeatures.DELETING, SimulatorFeatures.ENTITY_TAGS,
    SimulatorFeatures.ENTITY_CATEGORIES, SimulatorFeatures.SPAWNING_RESOURCE_STRING,
    SimulatorFeatures.SPAWNING_ENTITIES,
    SimulatorFeatures.ENTITY_STATE_GETTING, SimulatorFeatures.ENTITY_STATE_SETTING,
    SimulatorFeatures.ENTITY_INFO_GETTING, SimulatorFeatures.SPAWNABLES, SimulatorFeatures.SIMULATION_RESET,
    SimulatorFeatures.SIMULATION_RESET_STATE, SimulatorFeatures.SIMULATION_RESET_SPAWNED,
    SimulatorFeatures.SIMULATION_STATE_GETTING, SimulatorFeatures.SIMULATION_STATE_SETTING,
    SimulatorFeatures.SIMULATION_STATE_PAUSE, SimulatorFeatures.STEP_SIMULATION_SINGLE,
    SimulatorFeatures.STEP_SIMULATION_MULTIPLE, SimulatorFeatures.STEP_SIMULATION_ACTION,
)
SPAWN_CODES: Final = {
    "name_invalid": SpawnEntity.Response.NAME_INVALID, "name_not_unique": SpawnEntity.Response.NAME_NOT_UNIQUE,
    "invalid_pose": SpawnEntity.Response.INVALID_POSE, "no_resource": SpawnEntity.Response.NO_RESOURCE,
    "parse_error": SpawnEntity.Response.RESOURCE_PARSE_ERROR,
    "unsupported_format": SpawnEntity.Response.UNSUPPORTED_FORMAT, "failed": Result.RESULT_OPERATION_FAILED,
}


def result(code: int, message: str = "") -> Result:
    return Result(result=code, error_message=message)


# the standard's categories of entity_query's
CATEGORY: Final = {entity_query.ROBOT: EntityCategory.CATEGORY_ROBOT,
                   entity_query.DYNAMIC_OBJECT: EntityCategory.CATEGORY_DYNAMIC_OBJECT}
CATEGORY_NAME: Final = {v: k for k, v in CATEGORY.items()}


def to_state(entity: EntitySnapshot, t: float) -> EntityState:
    msg = EntityState()
    msg.header.stamp = stamp(t)
    msg.header.frame_id = "world"
    p, o = msg.pose.position, msg.pose.orientation
    p.x, p.y, p.z = entity.position
    o.w, o.x, o.y, o.z = entity.orientation
    lin, ang = msg.twist.linear, msg.twist.angular
    lin.x, lin.y, lin.z = entity.linear_velocity
    ang.x, ang.y, ang.z = entity.angular_velocity
    return msg


class SimulationServices:
    """Registers the standard's services and action on `node` (relative names: they follow
    the node's namespace and name, e.g. /soccersim/spawn_entity)."""

    def __init__(self, loop: SimulationLoop, node: Node) -> None:
        self.loop = loop
        self._stopped_at = -1  # the cycle a STOPPED transition left the simulation at
        group = ReentrantCallbackGroup()
        handlers: list[tuple[Any, str, Callable[[Any, Any], Any]]] = [
            (GetSimulatorFeatures, "get_simulator_features", self._features),
            (SpawnEntity, "spawn_entity", self._spawn), (SpawnEntities, "spawn_entities", self._spawn_many),
            (DeleteEntity, "delete_entity", self._delete),
            (GetEntities, "get_entities", self._entities), (GetEntitiesStates, "get_entities_states", self._states),
            (GetEntityInfo, "get_entity_info", self._info), (GetEntityState, "get_entity_state", self._state),
            (SetEntityState, "set_entity_state", self._set_state), (GetSpawnables, "get_spawnables", self._spawnables),
            (StepSimulation, "step_simulation", self._step), (ResetSimulation, "reset_simulation", self._reset),
            (GetSimulationState, "get_simulation_state", self._get_sim_state),
            (SetSimulationState, "set_simulation_state", self._set_sim_state),
        ]
        self.services = [node.create_service(t, f"~/{n}", guarded(n, cb), callback_group=group)
                         for t, n, cb in handlers]
        self.action = ActionServer(node, SimulateSteps, "~/simulate_steps", self._simulate_steps,
                                   goal_callback=self._accept_steps, cancel_callback=lambda _: CancelResponse.ACCEPT,
                                   callback_group=group)

    def _call(self, fn: Callable[[], T], timeout: float = 10.0, *, at_boundary: bool = False) -> T:
        return self.loop.calls.call(fn, timeout, at_boundary=at_boundary)

    # ------------------------------------------------------------------ features, spawning
    def _features(self, _req: GetSimulatorFeatures.Request,
                      res: GetSimulatorFeatures.Response) -> GetSimulatorFeatures.Response:
        res.features.features = list(FEATURES)
        res.features.spawn_formats = ["sdf"]
        res.features.custom_info = ("soccersim: RoboCup 3D soccer; entity names: ball, <team>/p<unum>, spawned "
                                    "names; resets keep simulation time")
        return res

    def _spawn(self, req: SpawnEntity.Request, res: SpawnEntity.Response) -> SpawnEntity.Response:
        res.result, res.entity_name = self._spawn_one(req)
        return res

    def _spawn_many(self, req: SpawnEntities.Request, res: SpawnEntities.Response) -> SpawnEntities.Response:
        """Each request as spawn_entity would answer it; all of them are tried, and the call
        fails (ENTITIES_SPAWN_FAILED) when any one did."""
        if len(req.spawn_requests) > MAX_SPAWN_BATCH:
            res.result = result(Result.RESULT_OPERATION_FAILED, f"at most {MAX_SPAWN_BATCH} entities per call")
            return res
        for one in req.spawn_requests:
            outcome, name = self._spawn_one(one)
            res.results.append(SpawnResult(result=outcome, entity_name=name))
        failed = [r for r in res.results if r.result.result != Result.RESULT_OK]
        res.result = result(Result.RESULT_OK) if not failed else result(
            SpawnEntities.Response.ENTITIES_SPAWN_FAILED,
            f"{len(failed)} of {len(res.results)} failed; first: {failed[0].result.error_message}")
        return res

    def _spawn_one(self, req: Any) -> tuple[Result, str]:
        if req.entity_namespace:
            return result(SpawnEntity.Response.NAMESPACE_INVALID, "entity namespaces are not supported"), ""
        if req.initial_pose.header.frame_id not in ("", "world"):
            return result(SpawnEntity.Response.INVALID_POSE, "initial_pose must be in the world frame"), ""
        pose = req.initial_pose.pose
        q = pose.orientation
        resource = req.entity_resource
        outcome: SpawnOutcome = self._call(lambda: self.loop.entities.spawn_entity(
            req.name, resource.uri, req.allow_renaming, (pose.position.x, pose.position.y, pose.position.z),
            (q.w, q.x, q.y, q.z), resource_string=resource.resource_string))
        if outcome.ok:
            return result(Result.RESULT_OK), outcome.text
        return result(SPAWN_CODES[outcome.error], outcome.text), ""

    def _delete(self, req: DeleteEntity.Request, res: DeleteEntity.Response) -> DeleteEntity.Response:
        if req.entity == names.BALL:
            res.result = result(Result.RESULT_OPERATION_FAILED, "the ball belongs to the world")
            return res
        error = self._call(lambda: self.loop.entities.delete_entity(req.entity))
        res.result = result(Result.RESULT_OK) if error is None else result(Result.RESULT_NOT_FOUND, error)
        return res

    def _spawnables(self, _req: GetSpawnables.Request, res: GetSpawnables.Response) -> GetSpawnables.Response:
        from sim_physics.world.sdf_loader import available_models

        res.spawnables = [Spawnable(entity_resource=Resource(uri=f"model://{m}"), description=f"robot model {m}",
                                    spawn_bounds=Bounds(type=Bounds.TYPE_EMPTY)) for m in available_models()]
        res.result = result(Result.RESULT_OK)
        return res

    # ------------------------------------------------------------------ entities
    def _select(self, filters: EntityFilters) -> tuple[list[str], list[EntitySnapshot], float] | Result:
        bounds = filters.bounds
        if bounds.type not in (Bounds.TYPE_EMPTY, Bounds.TYPE_BOX, Bounds.TYPE_SPHERE):
            return result(Result.RESULT_FEATURE_UNSUPPORTED, "bounds: box and sphere only")
        known = frozenset(CATEGORY_NAME[c.category] for c in filters.categories if c.category in CATEGORY_NAME)
        query = entity_query.EntityQuery(
            filters.filter, known, frozenset(filters.tags.tags), filters.tags.filter_mode == TagsFilter.FILTER_MODE_ALL,
            functools.partial(_inside, bounds))
        if filters.categories and not known:  # only categories no entity here has: nothing is picked
            return [], [], self._call(lambda: self.loop.engine.time)
        try:
            pattern = query.compiled()
        except entity_query.QueryError as exc:
            return result(Result.RESULT_OPERATION_FAILED, str(exc))

        def pick() -> tuple[list[str], list[EntitySnapshot], float]:
            chosen, _, t = entity_query.select(self.loop, query, pattern)
            return [e.name for e in chosen], chosen, t

        return self._call(pick)

    def _entities(self, req: GetEntities.Request, res: GetEntities.Response) -> GetEntities.Response:
        selected = self._select(req.filters)
        if isinstance(selected, Result):
            res.result = selected
            return res
        res.entities, res.result = selected[0], result(Result.RESULT_OK)
        return res

    def _states(self, req: GetEntitiesStates.Request, res: GetEntitiesStates.Response) -> GetEntitiesStates.Response:
        selected = self._select(req.filters)
        if isinstance(selected, Result):
            res.result = selected
            return res
        found, entities, t = selected
        res.entities, res.states = found, [to_state(e, t) for e in entities]
        res.result = result(Result.RESULT_OK)
        return res

    def _info(self, req: GetEntityInfo.Request, res: GetEntityInfo.Response) -> GetEntityInfo.Response:
        def look() -> entity_query.Described | None:
            if req.entity != names.BALL and req.entity not in self.loop.engine.robot_ids():
                return None
            return entity_query.describe(self.loop, req.entity)

        described = self._call(look)
        if described is None:
            res.result = result(Result.RESULT_NOT_FOUND, f"no entity named {req.entity!r}")
            return res
        res.info = EntityInfo(category=EntityCategory(category=CATEGORY[described.category]),
                              description=described.description, tags=list(described.tags))
        res.result = result(Result.RESULT_OK)
        return res

    def _state(self, req: GetEntityState.Request, res: GetEntityState.Response) -> GetEntityState.Response:
        found = self._call(lambda: (self.loop.engine.snapshot().entities.get(req.entity), self.loop.engine.time))
        entity, t = found
        if entity is None:
            res.result = result(Result.RESULT_NOT_FOUND, f"no entity named {req.entity!r}")
        else:
            res.result, res.state = result(Result.RESULT_OK), to_state(entity, t)
        return res

    def _set_state(self, req: SetEntityState.Request, res: SetEntityState.Response) -> SetEntityState.Response:
        if req.set_acceleration:
            res.result = result(Result.RESULT_FEATURE_UNSUPPORTED, "accelerations cannot be set")
            return res
        if req.state.header.frame_id not in ("", "world"):
            res.result = result(SetEntityState.Response.INVALID_POSE, "the state must be in the world frame")
            return res
        p, o = req.state.pose.position, req.state.pose.orientation
        lin, ang = req.state.twist.linear, req.state.twist.angular
        values = (p.x, p.y, p.z, o.w, o.x, o.y, o.z, lin.x, lin.y, lin.z, ang.x, ang.y, ang.z)
        if not all(math.isfinite(v) for v in values):
            res.result = result(SetEntityState.Response.INVALID_POSE, "the state must be finite")
            return res

        def apply() -> str | None:
            current = self.loop.engine.snapshot().entities.get(req.entity)
            if current is None:
                return f"no entity named {req.entity!r}"
            new = EntitySnapshot(
                name=req.entity,
                position=(p.x, p.y, p.z) if req.set_pose else current.position,
                orientation=_unit((o.w, o.x, o.y, o.z)) if req.set_pose else current.orientation,
                linear_velocity=(lin.x, lin.y, lin.z) if req.set_twist else current.linear_velocity,
                angular_velocity=(ang.x, ang.y, ang.z) if req.set_twist else current.angular_velocity)
            return self.loop.entities.set_entity_state(req.entity, new)

        error = self._call(apply)
        if error is None:
            res.result = result(Result.RESULT_OK)
        elif error.startswith("no entity"):
            res.result = result(Result.RESULT_NOT_FOUND, error)
        elif error.startswith("the referee holds"):
            res.result = result(Result.RESULT_INCORRECT_STATE, error)
        else:  # outside the world, too fast: refused before it reaches the physics
            res.result = result(SetEntityState.Response.INVALID_POSE, error)
        return res

    # ------------------------------------------------------------------ simulation state
    def _step(self, req: StepSimulation.Request, res: StepSimulation.Response) -> StepSimulation.Response:
        if not 1 <= req.steps <= MAX_STEP_CYCLES:
            res.result = result(Result.RESULT_OPERATION_FAILED, f"steps must be in 1..{MAX_STEP_CYCLES}")
            return res
        done = self._call(lambda: self.loop.control.step_paused(req.steps) if self.loop.paused else None)
        if done is None:
            res.result = result(Result.RESULT_INCORRECT_STATE, "simulation is not paused")
        elif not done.wait(STEP_TIMEOUT_S):
            res.result = result(Result.RESULT_OPERATION_FAILED, "stepping did not finish in time")
        else:
            res.result = result(Result.RESULT_OK)
        return res

    def _accept_steps(self, goal: SimulateSteps.Goal) -> GoalResponse:
        return GoalResponse.ACCEPT if 1 <= goal.steps <= MAX_STEP_CYCLES else GoalResponse.REJECT

    def _simulate_steps(self, handle: ServerGoalHandle) -> SimulateSteps.Result:
        total = int(handle.request.steps)
        out = SimulateSteps.Result()
        if not self._call(lambda: self.loop.paused):
            handle.abort()
            out.result = result(Result.RESULT_INCORRECT_STATE, "simulation is not paused")
            return out
        completed = 0
        while completed < total:
            if handle.is_cancel_requested:
                handle.canceled()
                out.result = result(Result.RESULT_OK, f"canceled after {completed} steps")
                return out
            chunk = min(ACTION_CHUNK, total - completed)
            done = self._call(functools.partial(self._step_if_paused, chunk))
            if done is None or not done.wait(STEP_TIMEOUT_S):
                handle.abort()
                out.result = result(Result.RESULT_INCORRECT_STATE, f"stepping stopped after {completed} steps")
                return out
            completed += chunk
            handle.publish_feedback(
                SimulateSteps.Feedback(completed_steps=completed, remaining_steps=total - completed))
        handle.succeed()
        out.result = result(Result.RESULT_OK)
        return out

    def _step_if_paused(self, cycles: int) -> threading.Event | None:
        return self.loop.control.step_paused(cycles) if self.loop.paused else None

    def _reset(self, req: ResetSimulation.Request, res: ResetSimulation.Response) -> ResetSimulation.Response:
        scope = req.scope
        if scope & ResetSimulation.Request.SCOPE_TIME:
            res.result = result(Result.RESULT_FEATURE_UNSUPPORTED, "simulation time never runs backwards here")
            return res
        state = scope in (ResetSimulation.Request.SCOPE_DEFAULT,) or bool(scope & ResetSimulation.Request.SCOPE_STATE)
        spawned = scope == ResetSimulation.Request.SCOPE_DEFAULT or bool(scope & ResetSimulation.Request.SCOPE_SPAWNED)
        error = self._call(lambda: self.loop.entities.reset(state=state, spawned=spawned), at_boundary=True)
        res.result = result(Result.RESULT_OK) if error is None else result(Result.RESULT_OPERATION_FAILED, error)
        return res

    def _get_sim_state(self, _req: GetSimulationState.Request,
                           res: GetSimulationState.Response) -> GetSimulationState.Response:
        paused = self._call(lambda: self.loop.paused)
        state = SimulationState.STATE_PLAYING if not paused else \
            SimulationState.STATE_STOPPED if self._stopped_at == self._call(lambda: self.loop.engine.cycle) \
            else SimulationState.STATE_PAUSED
        res.state = SimulationState(state=state)
        res.result = result(Result.RESULT_OK)
        return res

    def _set_sim_state(self, req: SetSimulationState.Request,
                           res: SetSimulationState.Response) -> SetSimulationState.Response:
        target = req.state.state
        paused = self._call(lambda: self.loop.paused)
        stopped = paused and self._stopped_at == self._call(lambda: self.loop.engine.cycle)
        if target == SimulationState.STATE_PAUSED and stopped:
            self._stopped_at = -1  # STOPPED -> PAUSED: it stays where it is, no longer stopped
            res.result = result(Result.RESULT_OK)
        elif target == SimulationState.STATE_PAUSED:
            if paused:
                res.result = result(SetSimulationState.Response.ALREADY_IN_TARGET_STATE, "already paused")
            else:
                self._call(self.loop.control.pause, at_boundary=True)
                res.result = result(Result.RESULT_OK)
        elif target == SimulationState.STATE_PLAYING:
            if not paused:
                res.result = result(SetSimulationState.Response.ALREADY_IN_TARGET_STATE, "already playing")
            else:
                self._stopped_at = -1  # STOPPED (or PAUSED) -> PLAYING
                self._call(self.loop.control.play)
                res.result = result(Result.RESULT_OK)
        elif target == SimulationState.STATE_STOPPED:
            error = self._call(self._stop, at_boundary=True)
            res.result = result(Result.RESULT_OK) if error is None else result(Result.RESULT_OPERATION_FAILED, error)
        elif target == SimulationState.STATE_QUITTING:
            self.loop.request_stop()
            res.result = result(Result.RESULT_OK)
        else:
            res.result = result(SetSimulationState.Response.INCORRECT_TRANSITION,
                                f"state {target} cannot be set here (no world loading)")
        return res

    def _stop(self) -> str | None:
        """STOPPED: back to the start, spawned entities gone, paused."""
        error = self.loop.entities.reset(state=True, spawned=True)
        if error is None:
            self.loop.control.pause()
            self._stopped_at = self.loop.engine.cycle  # STOPPED until it steps or plays again
        return error


def _inside(bounds: Bounds, position: tuple[float, float, float]) -> bool:
    """The standard's bounds (empty, box, sphere) as entity_query's `inside`."""
    if bounds.type == Bounds.TYPE_EMPTY:
        return True
    points = [(v.x, v.y, v.z) for v in bounds.points]
    if bounds.type == Bounds.TYPE_BOX and len(points) >= 2:
        low = [min(a, b) for a, b in zip(points[0], points[1], strict=True)]
        high = [max(a, b) for a, b in zip(points[0], points[1], strict=True)]
        return all(lo <= p <= hi for lo, p, hi in zip(low, position, high, strict=True))
    if bounds.type == Bounds.TYPE_SPHERE and len(points) >= 2:
        return math.dist(points[0], position) <= points[1][0]
    return False


def _unit(q: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    norm = math.sqrt(sum(v * v for v in q))
    if norm < 1e-9:
        return (1.0, 0.0, 0.0, 0.0)
    w, x, y, z = (v / norm for v in q)
    return (w, x, y, z)

