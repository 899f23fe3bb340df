"""The entity services: spawn, delete, set the state of and reset the entities of the world,
as the ROS simulation standard and gazebo_ros ask (and the service port).

Why a room of its own: these serve tools between cycles; the cycle core (loop.py) never
calls them. Spawn requests are resolved here to engine models (SDF text or files; the
parsing itself is world/sdf_loader.py's). Everything here runs on the loop's thread."""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from sim_physics.snapshot import EntitySnapshot, Snapshot
from sim_physics.world import sdf_loader

from sim_contracts import names
from sim_contracts.logtext import clip
from sim_master.master.loop_parts import LoopParts
from sim_master.master.spawn import join_spot

MAX_URI = 4096  # characters of a spawn request's uri (a path longer than the file system's PATH_MAX)


@dataclass(frozen=True, slots=True)
class SpawnOutcome:
    """error "" (spawned; text is the entity's name) or one of name_invalid, name_not_unique,
    invalid_pose, no_resource, parse_error, unsupported_format, failed (text says why)."""

    error: str
    text: str

    @property
    def ok(self) -> bool:
        return not self.error


def _caller_file(path: Path, uri: str) -> sdf_loader.ModelSpec:
    """An SDF file named by absolute path or file:// URI, read as SDF text is (size, entity
    and physical limits). Its errors say where, never what: the caller learns nothing of a
    file that is not a model (a number that is none would otherwise be quoted back)."""
    try:
        with path.open("rb") as f:
            data = f.read(sdf_loader.MAX_SDF_TEXT + 1)
        return sdf_loader.load_model_text(data.decode("utf-8", "replace"), origin=clip(uri))
    except sdf_loader.NotSdf:
        raise
    except (sdf_loader.SdfError, UnicodeError):
        raise sdf_loader.SdfError(f"{clip(uri)}: not an SDF model this server can read (malformed, over "
                                  f"{sdf_loader.MAX_SDF_TEXT} bytes, or with values out of range)") from None


class EntityHost(LoopParts, Protocol):
    """What the entity services need of the loop that owns them."""

    def remove_player(self, agent_id: str) -> None:
        """A player leaves with its robot (the loop's rule)."""
        ...


class EntityServices:
    """The entity services of a running loop, an object the loop owns (`loop.entities`): they
    serve its world through the narrow EntityHost, on the loop's thread."""

    def __init__(self, host: EntityHost) -> None:
        self.host = host
        self.spawned: set[str] = set()  # entities spawned through services (reset can remove them)

    def spawn_entity(self, name: str, uri: str, allow_renaming: bool,
                     position: tuple[float, float, float],
                     orientation: tuple[float, float, float, float], *,
                     resource_string: str = "") -> SpawnOutcome:
        """An entity of a model named by `uri` (a model name, `model://name`, or an .sdf file
        under the worlds' model directory) or given as SDF text."""
        if name and not names.SPAWNED_NAME.fullmatch(name):
            return SpawnOutcome("name_invalid", f"invalid name {name[:80]!r}: use {names.SPAWNED_NAME.pattern}")
        if name and names.CONNECTION_NAME.fullmatch(name):
            return SpawnOutcome("name_invalid",
                                f"invalid name {name!r}: names like simspark-<n> belong to the agents that will join")
        if not all(math.isfinite(v) for v in (*position, *orientation)):
            return SpawnOutcome("invalid_pose", "invalid pose: not finite")
        outside = self.host.engine.field.outside_world(*position)
        if outside:
            return SpawnOutcome("invalid_pose", f"invalid pose: {outside}")
        model = self._spawn_model(uri, resource_string)
        if isinstance(model, SpawnOutcome):
            return model
        key, model_name = model
        existing = set(self.host.engine.snapshot().entities)
        base = name or model_name or "entity"
        if not names.SPAWNED_NAME.fullmatch(base) or names.CONNECTION_NAME.fullmatch(base):
            base = "entity"
        unique = base
        index = 1
        while unique in existing:
            if not allow_renaming:
                return SpawnOutcome("name_not_unique", f"an entity named {base!r} already exists")
            unique = f"{base}_{index}"
            index += 1
        w, x, y, z = orientation
        yaw = math.degrees(math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))
        try:
            self.host.engine.spawn_entity(unique, key, (position[0], position[1], position[2], yaw))
        except (ValueError, KeyError) as exc:
            return SpawnOutcome("failed", str(exc))
        self.spawned.add(unique)
        return SpawnOutcome("", unique)

    def _spawn_model(self, uri: str, text: str) -> tuple[str, str] | SpawnOutcome:
        """(engine model key, model name) for a spawn request, or why there is none."""
        if len(uri) > MAX_URI:
            return SpawnOutcome("no_resource", f"uri over {MAX_URI} characters")
        try:
            if text:
                spec = sdf_loader.load_model_text(text)
                key = "sdf-" + hashlib.sha256(text.encode()).hexdigest()[:16]
                self.host.engine.register_model(key, spec)
                return key, spec.name
            if not uri:
                return SpawnOutcome("no_resource", "give entity_resource.uri or entity_resource.resource_string")
            bare = uri.removeprefix("model://")
            if self.host.engine.has_model(bare):
                return bare, bare
            suffix = Path(bare).suffix
            if suffix and suffix != ".sdf":
                return SpawnOutcome("unsupported_format", f"{uri}: only SDF models can be spawned (.sdf or text)")
            path = sdf_loader.resolve_model_uri(uri)
            if path.is_relative_to(sdf_loader.worlds_dir().resolve() / "models"):
                spec = sdf_loader.load_model(str(path))
            else:  # a file of the caller's: the limits of SDF text, and nothing of it in the answer
                spec = _caller_file(path, uri)
            key = "file-" + hashlib.sha256(str(path).encode()).hexdigest()[:16]
            self.host.engine.register_model(key, spec)
            return key, spec.name or path.stem
        except OSError as exc:  # a name the file system refuses (too long, not a file)
            return SpawnOutcome("no_resource", f"{clip(uri)}: {exc.strerror or exc}")
        except sdf_loader.NotSdf as exc:
            return SpawnOutcome("unsupported_format", clip(str(exc)))
        except sdf_loader.SdfError as exc:
            text_ = clip(str(exc))
            kind = "no_resource" if ("not found" in text_ or "no such" in text_ or "only models" in text_) else \
                "parse_error"
            return SpawnOutcome(kind, text_)

    def delete_entity(self, name: str) -> str | None:
        player = self.host.players.by_robot(name)
        if player is not None:  # its agent is told (connection closed), not left starving
            transport = self.host.transports.get(player.source)
            if transport is not None:
                transport.disconnect(player.agent_id, "its robot was deleted (delete_entity)")
            self.host.remove_player(player.agent_id)
            return None
        gone = self.host.engine.snapshot().entities.get(name)
        try:
            self.host.engine.delete_entity(name)
        except (ValueError, KeyError) as exc:
            return str(exc.args[0]) if exc.args else type(exc).__name__
        self.spawned.discard(name)
        model = gone.model if gone is not None else ""
        left = self.host.engine.snapshot().entities.values()
        if model.startswith(("sdf-", "file-")) and all(e.model != model for e in left):
            self.host.engine.forget_model(model)  # a spawn of new SDF text each time costs memory once, not without end
        return None

    def set_entity_state(self, name: str, state: EntitySnapshot) -> str | None:
        snap = self.host.engine.snapshot()
        if name not in snap.entities:
            return f"no entity named {name!r}"
        current = snap.entities[name]
        refused = self.host.engine.field.placement_problem(
            state.position, (*state.linear_velocity, *state.angular_velocity), orientation=state.orientation)
        if refused:
            return refused
        if not all(math.isfinite(v) for v in (*state.joint_positions, *state.joint_velocities)):
            return "joint positions and velocities must be finite"
        if name == "ball" and self.host.referee.state.play_mode.value == "BeforeKickOff":
            return ("the referee holds the ball on the centre spot until kick-off (as rcssserver3d's); "
                    "set the play mode to PlayOn first")
        new = replace(state, name=name, owner=current.owner, model=current.model)
        if not new.joint_names:
            new = replace(new, joint_names=current.joint_names, joint_positions=current.joint_positions,
                          joint_velocities=current.joint_velocities)
        self.host.engine.apply_snapshot(Snapshot(snap.step, snap.time, False, {name: new}), only={name})
        return None

    def reset(self, *, state: bool = True, spawned: bool = False) -> str | None:
        """state: back to BeforeKickOff with the ball at the centre and the players at their
        slots; spawned: the entities spawned through services are deleted."""
        from soccer_referee.commands import SetPlayMode

        if spawned:
            for name in sorted(self.spawned):
                self.delete_entity(name)
        if not state:
            return None
        self.host.engine.set_ball((0.0, 0.0, self.host.engine.field.ball_radius))
        counts = {"left": 0, "right": 0}
        for player in self.host.players.with_robots():
            if player.registered:
                x, y, yaw = join_spot(player.rules.join_spots, player.side, player.unum, counts[player.side],
                                      self.host.engine.field)
                counts[player.side] += 1
                self.host.engine.teleport_robot(player.robot_id, x, y, yaw)
        outcome = self.host.referee.command(SetPlayMode("BeforeKickOff"))
        return None if outcome.ok else outcome.error
