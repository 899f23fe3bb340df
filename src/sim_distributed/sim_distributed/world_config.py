"""Which assets a distributed world holds and which node simulates each (JSON).

The behaviour trees the nodes tick come inline (`bt_xml`) or from a file beside the
config (`bt_file`); the master sends the XML to every node when it registers."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from sim_contracts.field import MAX_PLACED_SPEED
from sim_contracts.logtext import clip

MAX_ASSETS = 1000  # what one distributed world holds (the swarm example: 200)


@dataclass(slots=True)
class Asset:
    name: str
    model: str  # robot model (nao0, pusher, ...) or "ball"
    owner: str
    pose: tuple[float, float, float] = (0.0, 0.0, 0.0)  # x, y, yaw deg
    drive: tuple[float, float] = (0.0, 0.0)  # constant wheel speeds (demo swarms)


@dataclass(slots=True)
class WorldConfig:
    world: str = "simspark_field"
    assets: list[Asset] = field(default_factory=list)
    bt_xml: str = ""
    bt_tick_ms: int = 20  # how often a SimPy node ticks each robot's tree

    @staticmethod
    def from_json(text: str) -> WorldConfig:
        raw = json.loads(text)
        assets = [Asset(a["name"], a.get("model", "pusher"), a["owner"], tuple(a.get("pose", (0, 0, 0))),
                        tuple(a.get("drive", (0, 0))))
                  for a in raw.get("assets", [])]
        return WorldConfig(raw.get("world", "simspark_field"), assets, raw.get("bt_xml", ""),
                           int(raw.get("bt_tick_ms", 20)))

    @staticmethod
    def load(path: str | Path) -> WorldConfig:
        """The config at `path`; ValueError with one line for a file that is none."""
        path = Path(path)
        try:
            text = path.read_text()
            config = WorldConfig.from_json(text)
            bt_file = json.loads(text).get("bt_file")
            if bt_file:
                config.bt_xml = (path.parent / bt_file).read_text()
        except OSError as exc:
            raise ValueError(f"{exc.filename or path}: {exc.strerror or exc}") from None
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path}: not a world config ({type(exc).__name__}: {exc})") from None
        return config

    def to_json(self) -> str:
        return json.dumps({"world": self.world, "bt_xml": self.bt_xml, "bt_tick_ms": self.bt_tick_ms,
                           "assets": [{"name": a.name, "model": a.model, "owner": a.owner, "pose": list(a.pose),
                                       "drive": list(a.drive)} for a in self.assets]})

    def problems(self) -> list[str]:
        """What makes this world unplayable, checked before any node starts: the world file
        loads, every asset has a unique name, a known model, a finite pose and an owner."""
        from sim_physics.world.sdf_loader import available_models, load_world

        from sim_contracts.field import FieldSpec

        found: list[str] = []
        field_spec = FieldSpec()
        try:
            field_spec = load_world(self.world).field
        except Exception as exc:  # noqa: BLE001 - any reason the world file cannot be read
            found.append(f"world {clip(str(self.world), 80)!r}: {exc}")
        if len(self.assets) > MAX_ASSETS:
            found.append(f"{len(self.assets)} assets: a distributed world holds at most {MAX_ASSETS}")
            return found
        models = {"ball", "nao", *available_models()}
        seen: set[str] = set()
        for a in self.assets:
            label = f"asset {clip(str(a.name), 40)!r}"
            if not a.name:
                found.append("an asset without a name")
            elif a.name in seen:
                found.append(f"{label} appears twice")
            seen.add(a.name)
            if a.model not in models:
                found.append(f"{label}: unknown model {clip(str(a.model), 40)!r} (known: {', '.join(sorted(models))})")
            if len(a.pose) != 3 or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in a.pose):
                found.append(f"{label}: pose must be three finite numbers x y yaw, got {clip(str(list(a.pose)), 80)}")
            else:
                outside = field_spec.outside_world(float(a.pose[0]), float(a.pose[1]), 0.0)
                if outside or abs(a.pose[2]) > 3600:
                    found.append(f"{label}: {outside or f'yaw {a.pose[2]:g} beyond +-3600 deg'}")
            if len(a.drive) != 2 or not all(isinstance(v, (int, float)) and math.isfinite(v)
                                            and abs(v) <= MAX_PLACED_SPEED for v in a.drive):
                found.append(f"{label}: drive must be two wheel speeds within +-{MAX_PLACED_SPEED:g}, "
                             f"got {clip(str(list(a.drive)), 80)}")
            if not a.owner:
                found.append(f"{label} has no owner node")
        return found

    def owners(self) -> set[str]:
        return {a.owner for a in self.assets}

    def owned_by(self, node_id: str) -> set[str]:
        return {a.name for a in self.assets if a.owner == node_id}

