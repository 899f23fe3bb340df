"""Rule books: the numbers a referee applies. Defaults follow rcssserver3d 0.7.3
(naosoccersim.rb); 'simspark' (the default) and 'rcssserver3d' keep the sides for the whole
match as it does (its ChangeSidesInSecondHalf is false: SimSpark agents learn their side only
from the first GS after init, so a change of ends would send them toward their own goal);
'simspark-swap' changes ends at half time and tells every player its new side in the next GS
(SimSpark `(unum)(team)`, rcsssmj `tl`/`tr`, the ROS Percept's side); 'fifa' and 'ssim' are
rcsssmj's."""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class RuleBook:
    name: str
    players_per_side: int = 11
    half_time: float = 300.0
    halves: int = 2
    change_sides_at_half_time: bool = False
    goal_pause: float = 3.0
    kick_in_pause: float = 1.0
    drop_ball_time: float = 15.0
    free_kick_distance: float = 2.0
    beam_modes_only: bool = True  # beam only in BeforeKickOff and Goal_*
    ground_max_time: float = 15.0  # torso below 0.15 m
    goalie_ground_max_time: float = 30.0
    not_standing_max_time: float = 30.0  # torso below 0.25 m
    goalie_not_standing_max_time: float = 60.0
    max_players_in_own_area: int = 3
    charging: bool = True
    charging_min_speed: float = 0.5  # m/s towards the opponent
    field: str = "simspark"


RULE_BOOKS: dict[str, RuleBook] = {
    "simspark": RuleBook("simspark"),
    "rcssserver3d": RuleBook("rcssserver3d"),
    "simspark-swap": RuleBook("simspark-swap", change_sides_at_half_time=True),
    "fifa": RuleBook("fifa", field="fifa", free_kick_distance=9.15, max_players_in_own_area=2, charging=False),
    "ssim": RuleBook("ssim", players_per_side=7, half_time=300.0, field="fifa7vs7", max_players_in_own_area=2,
                     charging=False),
}


def rule_book(name: str, **overrides: Any) -> RuleBook:
    """A rule book by name, with some of its numbers changed (e.g. half_time=600)."""
    if name not in RULE_BOOKS:
        raise ValueError(f"unknown rule book {name!r} (known: {', '.join(RULE_BOOKS)})")
    unknown = set(overrides) - {f.name for f in fields(RuleBook)}
    if unknown:
        raise ValueError(f"rule books have no {', '.join(sorted(unknown))}")
    return replace(RULE_BOOKS[name], **overrides)
