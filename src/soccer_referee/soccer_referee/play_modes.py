"""Play modes: the 21 SimSpark strings with their monitor indices, plus rcsssmj's penalty
modes (used by rule books with penalty shoot-outs)."""
from __future__ import annotations

from enum import Enum


class PlayMode(str, Enum):
    BEFORE_KICK_OFF = "BeforeKickOff"
    KICK_OFF_LEFT = "KickOff_Left"
    KICK_OFF_RIGHT = "KickOff_Right"
    PLAY_ON = "PlayOn"
    KICK_IN_LEFT = "KickIn_Left"
    KICK_IN_RIGHT = "KickIn_Right"
    CORNER_KICK_LEFT = "corner_kick_left"
    CORNER_KICK_RIGHT = "corner_kick_right"
    GOAL_KICK_LEFT = "goal_kick_left"
    GOAL_KICK_RIGHT = "goal_kick_right"
    OFFSIDE_LEFT = "offside_left"
    OFFSIDE_RIGHT = "offside_right"
    GAME_OVER = "GameOver"
    GOAL_LEFT = "Goal_Left"
    GOAL_RIGHT = "Goal_Right"
    FREE_KICK_LEFT = "free_kick_left"
    FREE_KICK_RIGHT = "free_kick_right"
    DIRECT_FREE_KICK_LEFT = "direct_free_kick_left"
    DIRECT_FREE_KICK_RIGHT = "direct_free_kick_right"
    PASS_LEFT = "pass_left"
    PASS_RIGHT = "pass_right"
    PENALTY_KICK_LEFT = "penalty_kick_left"
    PENALTY_KICK_RIGHT = "penalty_kick_right"

    @property
    def monitor_index(self) -> int:
        """The number the SimSpark monitor protocol uses (rcsssmj extras follow)."""
        return _ORDER.index(self)

    @property
    def side(self) -> str:
        """Team the mode favours ("left"/"right"), or "" (BeforeKickOff, PlayOn, GameOver)."""
        v = self.value.lower()
        return "left" if v.endswith("left") else "right" if v.endswith("right") else ""

    @staticmethod
    def parse(name: str) -> PlayMode:
        try:
            return PlayMode(name)
        except ValueError:
            names = ", ".join(m.value for m in PlayMode)
            raise ValueError(f"unknown play mode {name!r} (known: {names})") from None


_ORDER = list(PlayMode)

# The play modes of rcsssmj's monitor protocol (RSMP), in its order: SimSpark's without the
# pass modes, then the penalty modes. `rsmp_index` numbers a mode for that stream.
RSMP_PLAY_MODES: tuple[str, ...] = (
    *(m.value for m in _ORDER[:19]), "penalty_kick_left", "penalty_kick_right", "penalty_shoot_left",
    "penalty_shoot_right")


def rsmp_index(mode: PlayMode) -> int:
    """A play mode's number on an rcsssmj monitor stream (the pass modes, which rcsssmj does
    not have, show as PlayOn: the game runs)."""
    name = PlayMode.PLAY_ON.value if mode in (PlayMode.PASS_LEFT, PlayMode.PASS_RIGHT) else mode.value
    return RSMP_PLAY_MODES.index(name)


def for_side(base: str, side: str) -> PlayMode:
    """e.g. for_side("KickIn", "left") -> KickIn_Left; for_side("corner_kick", "right")."""
    suffix = side.capitalize() if base[0].isupper() else side
    return PlayMode(f"{base}_{suffix}")


def other(side: str) -> str:
    return "right" if side == "left" else "left"
