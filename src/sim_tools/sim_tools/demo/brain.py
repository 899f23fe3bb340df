"""One demo player: percept in, wheel speeds out, thinking at 10 Hz (every 5th cycle)."""
from __future__ import annotations

from sim_contracts.percept import Percept
from sim_master.bt.loader import tick
from sim_tools.demo.world_model import WorldModel
from soccer_team.strategy import HOME, factory_for, strategy_xml

THINK_EVERY = 5


class PusherBrain:
    def __init__(self, side: str, unum: int, field_length: float = 30.0, field_width: float = 20.0,
                 goal_width: float = 2.1, xml: str | None = None) -> None:
        self.model = WorldModel(side, unum, field_length, field_width, goal_width)
        self.tree = factory_for(self.model).create_tree(
            xml or strategy_xml(), "Goalie" if unum == 1 else "FieldPlayer"
        )
        self.cycle = 0
        self.speeds = {"lwe": 0.0, "rwe": 0.0}

    def home(self) -> tuple[float, float, float]:
        """Beam target in the team frame (x, y, rotation deg)."""
        x, y = HOME.get(self.model.unum, (-5.0, 0.0))
        return x, y, 0.0

    def set_side(self, side: str) -> None:
        self.model.side = side

    def beam_request(self) -> tuple[float, float, float] | None:
        return None  # pushers drive home

    def wants_vision(self) -> bool:
        return (self.cycle + self.model.unum) % THINK_EVERY == 0

    def act(self, percept: Percept) -> dict[str, float]:
        self.model.update(percept)
        if (self.cycle + self.model.unum) % THINK_EVERY == 0:
            tick(self.tree)
            self.speeds = self.model.wheel_speeds()
        self.cycle += 1
        return self.speeds
