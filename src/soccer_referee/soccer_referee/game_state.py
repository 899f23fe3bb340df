"""The game's state as every host of the referee keeps it, and a beam's decision.

Why a module of its own: the referee's interface (`service.py`) and the in-process referee
both speak of these; neither may import the other for them."""
from __future__ import annotations

from dataclasses import dataclass

from soccer_referee.play_modes import PlayMode
from soccer_referee.world import PlayerId


@dataclass(slots=True)
class GameStateSnapshot:
    play_mode: PlayMode = PlayMode.BEFORE_KICK_OFF
    game_time: float = 0.0
    half: int = 1
    team_left: str = ""
    team_right: str = ""
    score_left: int = 0
    score_right: int = 0
    last_touch: PlayerId | None = None
    kick_off_side: str = "left"


@dataclass(frozen=True, slots=True)
class BeamDecision:
    success: bool
    x: float = 0.0
    y: float = 0.0
    yaw_deg: float = 0.0
    error: str = ""
