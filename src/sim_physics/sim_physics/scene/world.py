"""A world known by its file and snapshots only: what replay shows.

Why: a replay log holds each entity's root pose and joint angles, never a physics state. The
monitors, the browser and the ROS view of a replay need the field, the models and every link's
pose; this object gives them from the world file, the model files and forward kinematics,
on any machine (no physics engine, MuJoCo or other, is built to pose a log)."""
from __future__ import annotations

import logging

import numpy as np

from sim_contracts.names import parse_player_entity
from sim_physics.scene.kinematics import SnapshotFrames
from sim_physics.scene.monitor_scene import SceneRobot
from sim_physics.snapshot import Snapshot
from sim_physics.world.sdf_loader import available_models, load_model, load_world, resolve_model
from sim_physics.world.spec import FieldSpec, ModelSpec, WorldSpec

_log = logging.getLogger("soccersim.replay")


class SceneWorld:
    """The world of a log: `apply_snapshot`, then `frames()` and the model specs."""

    def __init__(self, world: str) -> None:
        self.world: WorldSpec = load_world(world)
        self.field: FieldSpec = self.world.field
        self._specs: dict[str, ModelSpec] = {}
        self._missing: set[str] = set()
        self._frames = SnapshotFrames(self._specs)
        self._snapshot = Snapshot(0, 0.0, True, {})

    def has_model(self, model: str) -> bool:
        if model in self._specs:
            return True
        if not model or model in self._missing or model == "ball":
            return False
        spec = self._load(model)
        if spec is None:
            self._missing.add(model)
            return False
        self._specs[model] = spec
        return True

    def _load(self, model: str) -> ModelSpec | None:
        try:
            if model in available_models():
                return load_model(str(resolve_model(model)))
            from sim_physics.world.mjcf_files import rcsssmj_models  # MJCF robots (MuJoCo reads them)

            path = rcsssmj_models().get(model)
            if path is not None:
                from sim_physics.world.mjcf_import import load_mjcf_robot

                return load_mjcf_robot(path, model)
        except ImportError as exc:
            _log.warning("robots of model %s are not drawn: %s", model, exc)
        except (ValueError, OSError) as exc:
            _log.warning("robots of model %s are not drawn: %s", model, exc)
        return None

    def model_spec(self, model: str) -> ModelSpec:
        if not self.has_model(model):
            raise KeyError(model)
        return self._specs[model]

    def statics(self) -> list[ModelSpec]:
        return [m for m in self.world.models if not m.is_ball]

    def apply_snapshot(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot

    def robot_ids(self) -> list[str]:
        return [n for n, e in self._snapshot.entities.items() if n != "ball" and self.has_model(e.model)]

    def scene_robots(self, team_left: str = "", team_right: str = "") -> list[SceneRobot]:
        """The robots of the last snapshot; players' robots (named `<team>/p<unum>`) labelled
        with their side when their team is one of the two playing."""
        entities = self._snapshot.entities
        out = []
        for rid in self.robot_ids():
            label = None
            player = parse_player_entity(rid)
            if player is not None and player[0] in (team_left, team_right):
                label = (player[0], player[1], "left" if player[0] == team_left else "right")
            out.append(SceneRobot(rid, entities[rid].model, self._specs[entities[rid].model], label))
        return out

    def frames(self) -> tuple[list[str], np.ndarray]:
        entities = self._snapshot.entities
        shown = [entities[n] for n in ("ball", *self.robot_ids()) if n in entities]
        return self._frames.frames(shown)
