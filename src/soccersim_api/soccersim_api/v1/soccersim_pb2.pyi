from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Vector3(_message.Message):
    __slots__ = ("x", "y", "z")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    Z_FIELD_NUMBER: _ClassVar[int]
    x: float
    y: float
    z: float
    def __init__(self, x: _Optional[float] = ..., y: _Optional[float] = ..., z: _Optional[float] = ...) -> None: ...

class Quaternion(_message.Message):
    __slots__ = ("x", "y", "z", "w")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    Z_FIELD_NUMBER: _ClassVar[int]
    W_FIELD_NUMBER: _ClassVar[int]
    x: float
    y: float
    z: float
    w: float
    def __init__(self, x: _Optional[float] = ..., y: _Optional[float] = ..., z: _Optional[float] = ..., w: _Optional[float] = ...) -> None: ...

class Pose(_message.Message):
    __slots__ = ("position", "orientation")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    ORIENTATION_FIELD_NUMBER: _ClassVar[int]
    position: Vector3
    orientation: Quaternion
    def __init__(self, position: _Optional[_Union[Vector3, _Mapping]] = ..., orientation: _Optional[_Union[Quaternion, _Mapping]] = ...) -> None: ...

class Twist(_message.Message):
    __slots__ = ("linear", "angular")
    LINEAR_FIELD_NUMBER: _ClassVar[int]
    ANGULAR_FIELD_NUMBER: _ClassVar[int]
    linear: Vector3
    angular: Vector3
    def __init__(self, linear: _Optional[_Union[Vector3, _Mapping]] = ..., angular: _Optional[_Union[Vector3, _Mapping]] = ...) -> None: ...

class EntityState(_message.Message):
    __slots__ = ("name", "owner", "pose", "twist", "joint_names", "joint_positions", "joint_velocities", "model")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    POSE_FIELD_NUMBER: _ClassVar[int]
    TWIST_FIELD_NUMBER: _ClassVar[int]
    JOINT_NAMES_FIELD_NUMBER: _ClassVar[int]
    JOINT_POSITIONS_FIELD_NUMBER: _ClassVar[int]
    JOINT_VELOCITIES_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    name: str
    owner: str
    pose: Pose
    twist: Twist
    joint_names: _containers.RepeatedScalarFieldContainer[str]
    joint_positions: _containers.RepeatedScalarFieldContainer[float]
    joint_velocities: _containers.RepeatedScalarFieldContainer[float]
    model: str
    def __init__(self, name: _Optional[str] = ..., owner: _Optional[str] = ..., pose: _Optional[_Union[Pose, _Mapping]] = ..., twist: _Optional[_Union[Twist, _Mapping]] = ..., joint_names: _Optional[_Iterable[str]] = ..., joint_positions: _Optional[_Iterable[float]] = ..., joint_velocities: _Optional[_Iterable[float]] = ..., model: _Optional[str] = ...) -> None: ...

class Snapshot(_message.Message):
    __slots__ = ("step", "stamp", "full", "entities", "removed")
    STEP_FIELD_NUMBER: _ClassVar[int]
    STAMP_FIELD_NUMBER: _ClassVar[int]
    FULL_FIELD_NUMBER: _ClassVar[int]
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    step: int
    stamp: float
    full: bool
    entities: _containers.RepeatedCompositeFieldContainer[EntityState]
    removed: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, step: _Optional[int] = ..., stamp: _Optional[float] = ..., full: _Optional[bool] = ..., entities: _Optional[_Iterable[_Union[EntityState, _Mapping]]] = ..., removed: _Optional[_Iterable[str]] = ...) -> None: ...

class GameState(_message.Message):
    __slots__ = ("stamp", "play_mode", "play_mode_index", "game_time", "half", "team_left", "team_right", "score_left", "score_right", "last_touch_team", "last_touch_unum")
    STAMP_FIELD_NUMBER: _ClassVar[int]
    PLAY_MODE_FIELD_NUMBER: _ClassVar[int]
    PLAY_MODE_INDEX_FIELD_NUMBER: _ClassVar[int]
    GAME_TIME_FIELD_NUMBER: _ClassVar[int]
    HALF_FIELD_NUMBER: _ClassVar[int]
    TEAM_LEFT_FIELD_NUMBER: _ClassVar[int]
    TEAM_RIGHT_FIELD_NUMBER: _ClassVar[int]
    SCORE_LEFT_FIELD_NUMBER: _ClassVar[int]
    SCORE_RIGHT_FIELD_NUMBER: _ClassVar[int]
    LAST_TOUCH_TEAM_FIELD_NUMBER: _ClassVar[int]
    LAST_TOUCH_UNUM_FIELD_NUMBER: _ClassVar[int]
    stamp: float
    play_mode: str
    play_mode_index: int
    game_time: float
    half: int
    team_left: str
    team_right: str
    score_left: int
    score_right: int
    last_touch_team: str
    last_touch_unum: int
    def __init__(self, stamp: _Optional[float] = ..., play_mode: _Optional[str] = ..., play_mode_index: _Optional[int] = ..., game_time: _Optional[float] = ..., half: _Optional[int] = ..., team_left: _Optional[str] = ..., team_right: _Optional[str] = ..., score_left: _Optional[int] = ..., score_right: _Optional[int] = ..., last_touch_team: _Optional[str] = ..., last_touch_unum: _Optional[int] = ...) -> None: ...

class GameEvent(_message.Message):
    __slots__ = ("stamp", "game_time", "kind", "team", "unum", "detail")
    STAMP_FIELD_NUMBER: _ClassVar[int]
    GAME_TIME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    UNUM_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    stamp: float
    game_time: float
    kind: str
    team: str
    unum: int
    detail: str
    def __init__(self, stamp: _Optional[float] = ..., game_time: _Optional[float] = ..., kind: _Optional[str] = ..., team: _Optional[str] = ..., unum: _Optional[int] = ..., detail: _Optional[str] = ...) -> None: ...

class SimulationState(_message.Message):
    __slots__ = ("state", "cycle", "stamp", "sync", "real_time_factor", "cycles_per_s", "players", "engine", "mode")
    class State(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATE_UNSPECIFIED: _ClassVar[SimulationState.State]
        STATE_PLAYING: _ClassVar[SimulationState.State]
        STATE_PAUSED: _ClassVar[SimulationState.State]
        STATE_WAITING: _ClassVar[SimulationState.State]
    STATE_UNSPECIFIED: SimulationState.State
    STATE_PLAYING: SimulationState.State
    STATE_PAUSED: SimulationState.State
    STATE_WAITING: SimulationState.State
    STATE_FIELD_NUMBER: _ClassVar[int]
    CYCLE_FIELD_NUMBER: _ClassVar[int]
    STAMP_FIELD_NUMBER: _ClassVar[int]
    SYNC_FIELD_NUMBER: _ClassVar[int]
    REAL_TIME_FACTOR_FIELD_NUMBER: _ClassVar[int]
    CYCLES_PER_S_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    ENGINE_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    state: SimulationState.State
    cycle: int
    stamp: float
    sync: bool
    real_time_factor: float
    cycles_per_s: float
    players: int
    engine: str
    mode: str
    def __init__(self, state: _Optional[_Union[SimulationState.State, str]] = ..., cycle: _Optional[int] = ..., stamp: _Optional[float] = ..., sync: _Optional[bool] = ..., real_time_factor: _Optional[float] = ..., cycles_per_s: _Optional[float] = ..., players: _Optional[int] = ..., engine: _Optional[str] = ..., mode: _Optional[str] = ...) -> None: ...

class GetStateRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PauseRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ResumeRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StepRequest(_message.Message):
    __slots__ = ("cycles", "timeout_s")
    CYCLES_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    cycles: int
    timeout_s: float
    def __init__(self, cycles: _Optional[int] = ..., timeout_s: _Optional[float] = ...) -> None: ...

class ResetRequest(_message.Message):
    __slots__ = ("state", "spawned")
    STATE_FIELD_NUMBER: _ClassVar[int]
    SPAWNED_FIELD_NUMBER: _ClassVar[int]
    state: bool
    spawned: bool
    def __init__(self, state: _Optional[bool] = ..., spawned: _Optional[bool] = ...) -> None: ...

class SetSpeedRequest(_message.Message):
    __slots__ = ("real_time_factor",)
    REAL_TIME_FACTOR_FIELD_NUMBER: _ClassVar[int]
    real_time_factor: float
    def __init__(self, real_time_factor: _Optional[float] = ...) -> None: ...

class EntityInfo(_message.Message):
    __slots__ = ("category", "tags", "description")
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    category: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    description: str
    def __init__(self, category: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ...) -> None: ...

class Entity(_message.Message):
    __slots__ = ("state", "info")
    STATE_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    state: EntityState
    info: EntityInfo
    def __init__(self, state: _Optional[_Union[EntityState, _Mapping]] = ..., info: _Optional[_Union[EntityInfo, _Mapping]] = ...) -> None: ...

class Box(_message.Message):
    __slots__ = ("min", "max")
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    min: Vector3
    max: Vector3
    def __init__(self, min: _Optional[_Union[Vector3, _Mapping]] = ..., max: _Optional[_Union[Vector3, _Mapping]] = ...) -> None: ...

class ListEntitiesRequest(_message.Message):
    __slots__ = ("filter", "tags", "all_tags", "category", "bounds")
    FILTER_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    ALL_TAGS_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    BOUNDS_FIELD_NUMBER: _ClassVar[int]
    filter: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    all_tags: bool
    category: str
    bounds: Box
    def __init__(self, filter: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., all_tags: _Optional[bool] = ..., category: _Optional[str] = ..., bounds: _Optional[_Union[Box, _Mapping]] = ...) -> None: ...

class ListEntitiesResponse(_message.Message):
    __slots__ = ("step", "stamp", "entities")
    STEP_FIELD_NUMBER: _ClassVar[int]
    STAMP_FIELD_NUMBER: _ClassVar[int]
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    step: int
    stamp: float
    entities: _containers.RepeatedCompositeFieldContainer[Entity]
    def __init__(self, step: _Optional[int] = ..., stamp: _Optional[float] = ..., entities: _Optional[_Iterable[_Union[Entity, _Mapping]]] = ...) -> None: ...

class GetEntityRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class SetEntityStateRequest(_message.Message):
    __slots__ = ("name", "pose", "twist")
    NAME_FIELD_NUMBER: _ClassVar[int]
    POSE_FIELD_NUMBER: _ClassVar[int]
    TWIST_FIELD_NUMBER: _ClassVar[int]
    name: str
    pose: Pose
    twist: Twist
    def __init__(self, name: _Optional[str] = ..., pose: _Optional[_Union[Pose, _Mapping]] = ..., twist: _Optional[_Union[Twist, _Mapping]] = ...) -> None: ...

class SpawnEntityRequest(_message.Message):
    __slots__ = ("name", "uri", "sdf", "pose", "allow_renaming")
    NAME_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    SDF_FIELD_NUMBER: _ClassVar[int]
    POSE_FIELD_NUMBER: _ClassVar[int]
    ALLOW_RENAMING_FIELD_NUMBER: _ClassVar[int]
    name: str
    uri: str
    sdf: str
    pose: Pose
    allow_renaming: bool
    def __init__(self, name: _Optional[str] = ..., uri: _Optional[str] = ..., sdf: _Optional[str] = ..., pose: _Optional[_Union[Pose, _Mapping]] = ..., allow_renaming: _Optional[bool] = ...) -> None: ...

class DeleteEntityRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class DeleteEntityResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetGameStateRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SetPlayModeRequest(_message.Message):
    __slots__ = ("play_mode",)
    PLAY_MODE_FIELD_NUMBER: _ClassVar[int]
    play_mode: str
    def __init__(self, play_mode: _Optional[str] = ...) -> None: ...

class KickOffRequest(_message.Message):
    __slots__ = ("side",)
    SIDE_FIELD_NUMBER: _ClassVar[int]
    side: str
    def __init__(self, side: _Optional[str] = ...) -> None: ...

class DropBallRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class MoveBallRequest(_message.Message):
    __slots__ = ("position", "velocity")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    VELOCITY_FIELD_NUMBER: _ClassVar[int]
    position: Vector3
    velocity: Vector3
    def __init__(self, position: _Optional[_Union[Vector3, _Mapping]] = ..., velocity: _Optional[_Union[Vector3, _Mapping]] = ...) -> None: ...

class MovePlayerRequest(_message.Message):
    __slots__ = ("team", "unum", "x", "y", "rotation_deg")
    TEAM_FIELD_NUMBER: _ClassVar[int]
    UNUM_FIELD_NUMBER: _ClassVar[int]
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    ROTATION_DEG_FIELD_NUMBER: _ClassVar[int]
    team: str
    unum: int
    x: float
    y: float
    rotation_deg: float
    def __init__(self, team: _Optional[str] = ..., unum: _Optional[int] = ..., x: _Optional[float] = ..., y: _Optional[float] = ..., rotation_deg: _Optional[float] = ...) -> None: ...

class SetScoreRequest(_message.Message):
    __slots__ = ("left", "right")
    LEFT_FIELD_NUMBER: _ClassVar[int]
    RIGHT_FIELD_NUMBER: _ClassVar[int]
    left: int
    right: int
    def __init__(self, left: _Optional[int] = ..., right: _Optional[int] = ...) -> None: ...

class Player(_message.Message):
    __slots__ = ("agent", "team", "side", "unum", "model", "entity")
    AGENT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    UNUM_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    agent: str
    team: str
    side: str
    unum: int
    model: str
    entity: str
    def __init__(self, agent: _Optional[str] = ..., team: _Optional[str] = ..., side: _Optional[str] = ..., unum: _Optional[int] = ..., model: _Optional[str] = ..., entity: _Optional[str] = ...) -> None: ...

class ListPlayersRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListPlayersResponse(_message.Message):
    __slots__ = ("players",)
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    players: _containers.RepeatedCompositeFieldContainer[Player]
    def __init__(self, players: _Optional[_Iterable[_Union[Player, _Mapping]]] = ...) -> None: ...

class SnapshotsRequest(_message.Message):
    __slots__ = ("every_cycles", "max_rate_hz", "full_only")
    EVERY_CYCLES_FIELD_NUMBER: _ClassVar[int]
    MAX_RATE_HZ_FIELD_NUMBER: _ClassVar[int]
    FULL_ONLY_FIELD_NUMBER: _ClassVar[int]
    every_cycles: int
    max_rate_hz: float
    full_only: bool
    def __init__(self, every_cycles: _Optional[int] = ..., max_rate_hz: _Optional[float] = ..., full_only: _Optional[bool] = ...) -> None: ...

class GameEventsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GameUpdate(_message.Message):
    __slots__ = ("step", "state", "events")
    STEP_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    step: int
    state: GameState
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, step: _Optional[int] = ..., state: _Optional[_Union[GameState, _Mapping]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class DrawingsRequest(_message.Message):
    __slots__ = ("max_rate_hz",)
    MAX_RATE_HZ_FIELD_NUMBER: _ClassVar[int]
    max_rate_hz: float
    def __init__(self, max_rate_hz: _Optional[float] = ...) -> None: ...

class Shape(_message.Message):
    __slots__ = ("kind", "points", "size", "width", "color", "text")
    KIND_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    kind: str
    points: _containers.RepeatedCompositeFieldContainer[Vector3]
    size: float
    width: float
    color: _containers.RepeatedScalarFieldContainer[int]
    text: str
    def __init__(self, kind: _Optional[str] = ..., points: _Optional[_Iterable[_Union[Vector3, _Mapping]]] = ..., size: _Optional[float] = ..., width: _Optional[float] = ..., color: _Optional[_Iterable[int]] = ..., text: _Optional[str] = ...) -> None: ...

class DrawingSet(_message.Message):
    __slots__ = ("name", "shapes")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SHAPES_FIELD_NUMBER: _ClassVar[int]
    name: str
    shapes: _containers.RepeatedCompositeFieldContainer[Shape]
    def __init__(self, name: _Optional[str] = ..., shapes: _Optional[_Iterable[_Union[Shape, _Mapping]]] = ...) -> None: ...

class AgentText(_message.Message):
    __slots__ = ("side", "unum", "text", "color")
    SIDE_FIELD_NUMBER: _ClassVar[int]
    UNUM_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    side: str
    unum: int
    text: str
    color: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, side: _Optional[str] = ..., unum: _Optional[int] = ..., text: _Optional[str] = ..., color: _Optional[_Iterable[int]] = ...) -> None: ...

class DrawingBoard(_message.Message):
    __slots__ = ("version", "sets", "agents")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SETS_FIELD_NUMBER: _ClassVar[int]
    AGENTS_FIELD_NUMBER: _ClassVar[int]
    version: int
    sets: _containers.RepeatedCompositeFieldContainer[DrawingSet]
    agents: _containers.RepeatedCompositeFieldContainer[AgentText]
    def __init__(self, version: _Optional[int] = ..., sets: _Optional[_Iterable[_Union[DrawingSet, _Mapping]]] = ..., agents: _Optional[_Iterable[_Union[AgentText, _Mapping]]] = ...) -> None: ...

class NodeHealth(_message.Message):
    __slots__ = ("node_id", "engine", "host", "registered", "alive", "heartbeat_age_s", "last_step", "resyncs")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    ENGINE_FIELD_NUMBER: _ClassVar[int]
    HOST_FIELD_NUMBER: _ClassVar[int]
    REGISTERED_FIELD_NUMBER: _ClassVar[int]
    ALIVE_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_AGE_S_FIELD_NUMBER: _ClassVar[int]
    LAST_STEP_FIELD_NUMBER: _ClassVar[int]
    RESYNCS_FIELD_NUMBER: _ClassVar[int]
    node_id: str
    engine: str
    host: str
    registered: bool
    alive: bool
    heartbeat_age_s: float
    last_step: int
    resyncs: int
    def __init__(self, node_id: _Optional[str] = ..., engine: _Optional[str] = ..., host: _Optional[str] = ..., registered: _Optional[bool] = ..., alive: _Optional[bool] = ..., heartbeat_age_s: _Optional[float] = ..., last_step: _Optional[int] = ..., resyncs: _Optional[int] = ...) -> None: ...

class ListNodesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListNodesResponse(_message.Message):
    __slots__ = ("step", "nodes", "missing")
    STEP_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    step: int
    nodes: _containers.RepeatedCompositeFieldContainer[NodeHealth]
    missing: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, step: _Optional[int] = ..., nodes: _Optional[_Iterable[_Union[NodeHealth, _Mapping]]] = ..., missing: _Optional[_Iterable[str]] = ...) -> None: ...
