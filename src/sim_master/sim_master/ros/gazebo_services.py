"""gazebo_ros-style services, so scripts written for Gazebo (classic, ROS 2) work unchanged.

Served at the names gazebo_ros uses, relative to the server's namespace: `spawn_entity`,
`delete_entity`, `get_model_list`, `get_entity_state`, `set_entity_state` (gazebo_msgs) and
`pause_physics`, `unpause_physics`, `reset_world`, `reset_simulation` (std_srvs/Empty). One
handler per service; the work runs on the loop's thread (LoopCalls). Models are spawned
from SDF text (`xml`), as gazebo_ros does; URDF is refused with a message. Gazebo resets
its clock on reset_simulation; here the clock never runs backwards, so both resets put the
game back to its start (reset_simulation also removes spawned entities).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from sim_physics.snapshot import EntitySnapshot
from std_srvs.srv import Empty

from gazebo_msgs.msg import EntityState
from gazebo_msgs.srv import DeleteEntity, GetEntityState, GetModelList, SetEntityState, SpawnEntity
from sim_contracts import names
from sim_master.ros.convert import stamp
from sim_master.ros.service_guard import guarded

if TYPE_CHECKING:
    from sim_master.master.loop import SimulationLoop

T = TypeVar("T")
WORLD_FRAMES = ("", "world")


class GazeboServices:
    def __init__(self, loop: SimulationLoop, node: Node) -> None:
        self.loop = loop
        group = ReentrantCallbackGroup()
        handlers: list[tuple[Any, str, Callable[[Any, Any], Any]]] = [
            (SpawnEntity, "spawn_entity", self._spawn), (DeleteEntity, "delete_entity", self._delete),
            (GetModelList, "get_model_list", self._models), (GetEntityState, "get_entity_state", self._get),
            (SetEntityState, "set_entity_state", self._set), (Empty, "pause_physics", self._pause),
            (Empty, "unpause_physics", self._unpause), (Empty, "reset_world", self._reset_world),
            (Empty, "reset_simulation", self._reset_simulation),
        ]
        self.services = [node.create_service(t, n, guarded(n, cb), callback_group=group) for t, n, cb in handlers]

    def _call(self, fn: Callable[[], T], timeout: float = 10.0, *, at_boundary: bool = False) -> T:
        return self.loop.calls.call(fn, timeout, at_boundary=at_boundary)

    def _spawn(self, req: SpawnEntity.Request, res: SpawnEntity.Response) -> SpawnEntity.Response:
        if req.reference_frame not in WORLD_FRAMES:
            res.success, res.status_message = False, f"reference_frame {req.reference_frame!r}: only the world"
            return res
        if "<robot" in req.xml and "<sdf" not in req.xml:
            res.success, res.status_message = False, "URDF is not supported here: send the model as SDF"
            return res
        p, q = req.initial_pose.position, req.initial_pose.orientation
        outcome = self._call(lambda: self.loop.entities.spawn_entity(
            req.name, "", False, (p.x, p.y, p.z), (q.w, q.x, q.y, q.z), resource_string=req.xml))
        res.success = outcome.ok
        res.status_message = f"spawned {outcome.text}" if outcome.ok else outcome.text
        return res

    def _delete(self, req: DeleteEntity.Request, res: DeleteEntity.Response) -> DeleteEntity.Response:
        if req.name == names.BALL:
            res.success, res.status_message = False, "the ball belongs to the world"
            return res
        error = self._call(lambda: self.loop.entities.delete_entity(req.name))
        res.success, res.status_message = error is None, error or f"deleted {req.name}"
        return res

    def _models(self, _req: GetModelList.Request, res: GetModelList.Response) -> GetModelList.Response:
        entities, t = self._call(lambda: (list(self.loop.engine.snapshot().entities), self.loop.engine.time))
        res.header.stamp = stamp(t)
        res.model_names, res.success = entities, True
        return res

    def _get(self, req: GetEntityState.Request, res: GetEntityState.Response) -> GetEntityState.Response:
        if req.reference_frame not in WORLD_FRAMES:
            res.success = False
            return res
        entity, t = self._call(lambda: (self.loop.engine.snapshot().entities.get(req.name), self.loop.engine.time))
        res.header.stamp = stamp(t)
        res.header.frame_id = "world"
        if entity is None:
            res.success = False
            return res
        state = EntityState(name=req.name, reference_frame="world")
        state.pose.position.x, state.pose.position.y, state.pose.position.z = entity.position
        o = state.pose.orientation
        o.w, o.x, o.y, o.z = entity.orientation
        lin, ang = state.twist.linear, state.twist.angular
        lin.x, lin.y, lin.z = entity.linear_velocity
        ang.x, ang.y, ang.z = entity.angular_velocity
        res.state, res.success = state, True
        return res

    def _set(self, req: SetEntityState.Request, res: SetEntityState.Response) -> SetEntityState.Response:
        s = req.state
        p, o, lin, ang = s.pose.position, s.pose.orientation, s.twist.linear, s.twist.angular
        values = (p.x, p.y, p.z, o.w, o.x, o.y, o.z, lin.x, lin.y, lin.z, ang.x, ang.y, ang.z)
        if s.reference_frame not in WORLD_FRAMES or not all(math.isfinite(v) for v in values):
            res.success = False
            return res
        norm = math.sqrt(o.w * o.w + o.x * o.x + o.y * o.y + o.z * o.z) or 1.0
        state = EntitySnapshot(name=s.name, position=(p.x, p.y, p.z),
                               orientation=(o.w / norm, o.x / norm, o.y / norm, o.z / norm),
                               linear_velocity=(lin.x, lin.y, lin.z), angular_velocity=(ang.x, ang.y, ang.z))
        res.success = self._call(lambda: self.loop.entities.set_entity_state(s.name, state)) is None
        return res

    def _pause(self, _req: Empty.Request, res: Empty.Response) -> Empty.Response:
        self._call(self.loop.control.pause, at_boundary=True)
        return res

    def _unpause(self, _req: Empty.Request, res: Empty.Response) -> Empty.Response:
        self._call(self.loop.control.play)
        return res

    def _reset_world(self, _req: Empty.Request, res: Empty.Response) -> Empty.Response:
        self._call(lambda: self.loop.entities.reset(state=True), at_boundary=True)
        return res

    def _reset_simulation(self, _req: Empty.Request, res: Empty.Response) -> Empty.Response:
        self._call(lambda: self.loop.entities.reset(state=True, spawned=True), at_boundary=True)
        return res
