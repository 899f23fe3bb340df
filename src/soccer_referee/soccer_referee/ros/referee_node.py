"""The referee as a ROS 2 node: /game_state and /game_events, and the services through which
players join and are placed (init_agent, beam_agent) and operators rule (set_play_mode,
move_entity).

Why a node of its own: the design gives the referee its own role in the graph. The node
does the ROS side; what a service does is its host's: in the composed server (one process,
the default) the simulation loop's, where the referee judges every cycle in lockstep; run
alone (`ros2 run soccer_referee referee_node`) a `judge.Judge` that rules on a simulation in
another process (judge.py)."""
from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Final, Protocol, TypeVar

import rclpy
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

from sim_msgs.msg import GameEvent, GameState
from sim_msgs.srv import BeamAgent, InitAgent, MoveEntity, SetPlayMode
from soccer_referee.ros.messages import game_key

GAME_STATE_QOS: Final = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                                   reliability=ReliabilityPolicy.RELIABLE,
                                   durability=DurabilityPolicy.TRANSIENT_LOCAL)
NODE_NAME: Final = "soccer_referee"
R = TypeVar("R")
T = TypeVar("T")
# Services that make or place robots: their calls are answered in turn by the loop, so a burst
# (a whole team joining at once, or a flood) is queued, not overwritten in DDS (depth 10).
JOIN_QOS: Final = QoSProfile(depth=256, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE)


Joining = tuple[int, str, str] | str


class RefereeServices(Protocol):
    """What the referee node's services do. Each returns None (done) or why it was refused;
    init_agent returns (unum, side, player namespace) of the player who joined. init_agent and
    beam_agent make or place a robot: a host that asks another process returns an awaitable."""

    def init_agent(self, team: str, unum: int, model: str,
                   perception: str) -> Joining | Awaitable[Joining]: ...
    def beam_agent(self, team: str, unum: int, x: float, y: float,
                   rotation: float) -> str | None | Awaitable[str | None]: ...
    def set_play_mode(self, name: str) -> str | None | Awaitable[str | None]: ...
    def move_entity(self, entity: str, position: tuple[float, float, float], rotation: float,
                    velocity: tuple[float, float, float]) -> str | None | Awaitable[str | None]: ...


def guarded(name: str, callback: Callable[[R, R], Awaitable[R]],
            log: Callable[[str], object]) -> Callable[[R, R], Awaitable[R]]:
    """One fault boundary per service call: a failure nobody foresaw answers the caller with
    an error and is logged, and the node goes on. The callbacks are coroutines (rclpy's
    executors run them): one that awaits another node holds no executor thread."""

    async def call(request: R, response: R) -> R:
        try:
            return await callback(request, response)
        except Exception as exc:  # noqa: BLE001 - the boundary itself
            log(f"{name} failed: {type(exc).__name__}: {exc}")
            for field in ("success", "ok"):
                if hasattr(response, field):
                    setattr(response, field, False)
            if hasattr(response, "error"):
                response.error = f"internal error: {type(exc).__name__}"
            return response

    return call


def init_response(outcome: Joining, res: InitAgent.Response) -> InitAgent.Response:
    """An init_agent answer: the player who joined (unum, side, namespace) or why not."""
    if isinstance(outcome, str):
        res.success, res.error = False, outcome
    else:
        res.success = True
        res.unum, res.side, res.player_namespace = outcome
    return res


async def _settled(value: T | Awaitable[T]) -> T:
    return await value if inspect.isawaitable(value) else value


class RefereeNode:
    """The node; `publish` is called once per cycle with the game state and its events."""

    def __init__(self, host: RefereeServices, context: rclpy.Context, name: str = NODE_NAME, *,
                 namespace: str | None = None, cli_args: list[str] | None = None) -> None:
        """cli_args: this node's own ROS arguments instead of the process's (a composed node
        must not take the node name given to the process)."""
        self.host = host
        self.node = Node(name, context=context, namespace=namespace, cli_args=cli_args,
                         use_global_arguments=cli_args is None)
        node = self.node
        self.game_pub = node.create_publisher(GameState, "game_state", GAME_STATE_QOS)
        self.events_pub = node.create_publisher(GameEvent, "game_events", 50)
        self._last: GameState | None = None
        group = ReentrantCallbackGroup()
        log = node.get_logger().error
        services = [(InitAgent, "~/init_agent", self._init_agent), (BeamAgent, "~/beam_agent", self._beam_agent),
                    (SetPlayMode, "~/set_play_mode", self._set_play_mode),
                    (MoveEntity, "~/move_entity", self._move_entity)]
        self.services = [node.create_service(t, n, guarded(n, cb, log), callback_group=group, qos_profile=JOIN_QOS)
                         for t, n, cb in services]
        node.create_timer(0.1, self._republish, callback_group=group)

    def publish(self, state: GameState, events: Sequence[GameEvent]) -> None:
        """The cycle's state (sent when more than the clock changed; latched) and events."""
        if self._last is None or game_key(self._last) != game_key(state):
            self.game_pub.publish(state)
        self._last = state
        for event in events:
            self.events_pub.publish(event)

    def _republish(self) -> None:
        if self._last is not None:
            self.game_pub.publish(self._last)

    def destroy(self) -> None:
        self.node.destroy_node()

    # ------------------------------------------------------------------ services
    async def _init_agent(self, req: InitAgent.Request, res: InitAgent.Response) -> InitAgent.Response:
        joining = self.host.init_agent(req.team, req.unum, req.robot_model or "nao0", req.perception)
        outcome: Joining = await joining if inspect.isawaitable(joining) else joining
        return init_response(outcome, res)

    async def _beam_agent(self, req: BeamAgent.Request, res: BeamAgent.Response) -> BeamAgent.Response:
        error = await _settled(self.host.beam_agent(req.team, req.unum, req.x, req.y, req.rotation))
        res.success, res.error = error is None, error or ""
        return res

    async def _set_play_mode(self, req: SetPlayMode.Request, res: SetPlayMode.Response) -> SetPlayMode.Response:
        error = await _settled(self.host.set_play_mode(req.play_mode))
        res.success, res.error = error is None, error or ""
        return res

    async def _move_entity(self, req: MoveEntity.Request, res: MoveEntity.Response) -> MoveEntity.Response:
        p, v = req.position, req.velocity
        error = await _settled(self.host.move_entity(req.entity, (p.x, p.y, p.z), req.rotation, (v.x, v.y, v.z)))
        res.success, res.error = error is None, error or ""
        return res
