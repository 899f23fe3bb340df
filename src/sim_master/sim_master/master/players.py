"""Who plays: every agent (TCP of either dialect, or ROS-native), its robot and its team.

The bridge knows connections, the engine knows robots, the referee knows (side, unum);
this table is the one place that ties them together."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from sim_contracts.agents import SIMSPARK_RULES, PlayerRules

Source = Literal["simspark", "rcsssmj", "ros", "local"]


@dataclass(slots=True)
class Player:
    agent_id: str  # bridge agent id, or "ros:/<team>/p<unum>"
    source: Source
    model: str = ""  # robot model once a robot exists (nao0 .. nao4, pusher)
    robot_id: str = ""  # engine robot id ("" until the robot exists)
    team: str = ""
    side: str = ""  # left / right once registered
    unum: int = 0
    announce: bool = False  # the next GS carries unum and side (first one after init)
    synced: bool = False  # sent (syn) for the coming cycle (ROS players; TCP is the bridge's)
    lagging: bool = False
    # synchronized at least once (ROS players): sync mode waits for it from then on, as the agent
    # ports wait for a TCP agent once it answers, so a player still subscribing stalls nobody
    answered_once: bool = False
    rules: PlayerRules = SIMSPARK_RULES  # its dialect's rules (its transport's, or its source's)

    @property
    def dialect(self) -> str:
        """Whose rules of perception and beams this player follows."""
        return self.rules.dialect

    @property
    def registered(self) -> bool:
        return bool(self.side)

    @property
    def namespace(self) -> str:
        return f"/{self.team}/p{self.unum}" if self.registered else ""


class PlayerTable:
    def __init__(self) -> None:
        self._by_agent: dict[str, Player] = {}

    def add(self, player: Player) -> Player:
        self._by_agent[player.agent_id] = player
        return player

    def get(self, agent_id: str) -> Player | None:
        return self._by_agent.get(agent_id)

    def remove(self, agent_id: str) -> Player | None:
        return self._by_agent.pop(agent_id, None)

    def by_player(self, side: str, unum: int) -> Player | None:
        for p in self._by_agent.values():
            if p.side == side and p.unum == unum:
                return p
        return None

    def by_robot(self, robot_id: str) -> Player | None:
        for p in self._by_agent.values():
            if p.robot_id == robot_id:
                return p
        return None

    def __iter__(self) -> Iterator[Player]:
        return iter(list(self._by_agent.values()))

    def __len__(self) -> int:
        return len(self._by_agent)

    def with_robots(self) -> list[Player]:
        return [p for p in self._by_agent.values() if p.robot_id]
