"""The server's default engine (`--engine auto`): the physics of each league's reference
server, chosen by the robots that play — ODE, as rcssserver3d, for SimSpark robots; MuJoCo, as
rcsssmj, for rcsssmj robots.

Why: agents are tuned on their reference server's physics; the ODE engine reproduces
rcssserver3d's traces to 0.01 deg and MuJoCo loads rcsssmj's robots verbatim, while neither
carries the other league's robots as well. A world holds one physics at a
time: the first robot to join an empty world picks it, robots of the other league joining
later run on the same physics, and the next robot to join an empty world picks again. Only
the ball, the clock and registered models carry over a switch, because no robot exists then.
Everything else is the chosen engine's (attribute access is forwarded). A robot that plays
on the other league's physics is said once in the log, on any engine (`off_league`; issue 29:
nothing said so), and `robots_physics` names each robot's physics for `simulation stats` and
the browser."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from sim_physics.engine.node import EngineView, Feature, ReadsModelsAhead, SimulationNode
from sim_physics.world.spec import ModelSpec

LEAGUE_ENGINES = {"simspark": "ode", "rcsssmj": "mujoco"}


def model_league(engine: EngineView, model: str) -> str:
    """'rcsssmj' for models driven by PD commands in rcsssmj's joint order, else 'simspark'."""
    return "rcsssmj" if engine.model_spec(model).joint_order else "simspark"


def off_league(engine: SimulationNode, robot_id: str, model: str) -> str | None:
    """What to say of a robot that runs on the other league's physics (a SimSpark robot on
    MuJoCo, an rcsssmj robot on ODE), else None: agents are tuned on their own league's
    (issue 29: UT Austin Villa fell 26 times in 120 s on MuJoCo, 0-1 on ODE)."""
    league = model_league(engine, model)
    own = LEAGUE_ENGINES[league]
    if engine.physics not in LEAGUE_ENGINES.values() or engine.physics == own:
        return None
    return (f"robot {robot_id} ({model}, of the {league} league) runs on {engine.physics} physics, not its "
            f"league's {own}: agents tuned on their reference server play worse here"
            + (" (the first robot to join picked the world's physics)" if isinstance(engine, LeagueEngine)
               else f" (--engine auto or {own} plays it on {own})"))


def robots_physics(engine: SimulationNode) -> dict[str, dict[str, str]]:
    """Each robot's model, league and the physics it runs on (`simulation stats`, the browser)."""
    out = {}
    for robot_id in engine.robot_ids():
        model = engine.robot_model(robot_id)
        out[robot_id] = {"model": model, "league": model_league(engine, model), "physics": engine.physics}
    return out
# Called for every robot every cycle: bound to the chosen engine's methods, not looked up
# through __getattr__ each time.
_HOT_METHODS = ("step", "begin_step", "finish_step", "percept", "prepare_vision", "set_joint_velocities",
                "set_joint_pd", "robot_pose", "robot_ids", "ball_position", "ball_velocity", "ball_touchers",
                "robot_contacts")


_ALWAYS = frozenset({Feature.MODELS_READ_AHEAD, Feature.LIBRARY_STEP_TIME})
_OF_THE_CHOSEN = frozenset({Feature.OVERLAPPED_STEP})


class LeagueEngine:
    """A SimulationNode that forwards to the engine of the league of the robots in it."""

    def __init__(self, make: Callable[[str], SimulationNode], available: set[str],
                 on_switch: Callable[[str], None] | None = None) -> None:
        self._make = make
        self._available = available
        self._on_switch = on_switch
        self._engines: dict[str, SimulationNode] = {}
        self._registered: dict[str, ModelSpec] = {}
        self.kind = "mujoco"
        self._engine = self._engine_of("mujoco")
        self._bind_hot_methods()

    def _bind_hot_methods(self) -> None:
        for name in _HOT_METHODS:
            self.__dict__[name] = getattr(self._engine, name)

    def _engine_of(self, kind: str) -> SimulationNode:
        if kind not in self._engines:
            engine = self._make(kind)
            for key, spec in self._registered.items():
                engine.register_model(key, spec)
            self._engines[kind] = engine
        return self._engines[kind]

    def league_of(self, model: str) -> str:
        return model_league(self._engine, model)

    def _choose(self, model: str) -> None:
        if self._engine.robot_ids():
            return
        try:
            kind = LEAGUE_ENGINES[self.league_of(model)]
        except (KeyError, ValueError, OSError):
            return  # an unknown or unreadable model: add_robot reports it
        if kind == self.kind or kind not in self._available:
            return
        old, new = self._engine, self._engine_of(kind)
        new.set_ball(old.ball_position(), old.ball_velocity())
        new.cycle, new.time = old.cycle, old.time
        self._engine, self.kind = new, kind
        self._bind_hot_methods()
        if self._on_switch is not None:
            self._on_switch(kind)

    # ------------------------------------------------------------------ what picks or carries over
    @property
    def features(self) -> frozenset[Feature]:
        """Models read ahead by the engines that do (prepare_models below); the chosen
        engine's overlapped step."""
        return _ALWAYS | (self._engine.features & _OF_THE_CHOSEN)

    @property
    def physics(self) -> str:
        """The physics every robot runs on now (ode, mujoco)."""
        return self.kind

    def add_robot(self, robot_id: str, model: str, x: float, y: float, yaw_deg: float) -> None:
        self._choose(model)
        self._engine.add_robot(robot_id, model, x, y, yaw_deg)

    def spawn_entity(self, name: str, model: str, pose: tuple[float, float, float, float]) -> None:
        if name != "ball":
            self._choose(model)
        self._engine.spawn_entity(name, model, pose)

    def prepare_models(self, models: list[str]) -> None:
        """Each model read ahead by the engine of its league (made now if need be)."""
        for model in models:
            kind = LEAGUE_ENGINES.get(self.league_of(model))
            if kind in self._available:
                engine = self._engine_of(kind)
                if Feature.MODELS_READ_AHEAD in engine.features:
                    cast(ReadsModelsAhead, engine).prepare_models([model])

    def register_model(self, key: str, spec: ModelSpec) -> None:
        self._registered.setdefault(key, spec)
        for engine in self._engines.values():
            engine.register_model(key, spec)

    def forget_model(self, key: str) -> None:
        self._registered.pop(key, None)
        for engine in self._engines.values():
            engine.forget_model(key)

    # ------------------------------------------------------------------ everything else
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_engine", "_engines"):
            raise AttributeError(name)
        return getattr(self._engine, name)
