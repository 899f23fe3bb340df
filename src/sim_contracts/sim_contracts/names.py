"""Entity names: one scheme for services, /entity_states, replay logs and monitors.

- `ball`: the ball;
- `<team>/p<unum>`: the robot of a player who joined a team (e.g. `Alpha/p7`); team names are
  1-64 printable characters without spaces, quotes, parentheses or `<>&`;
- an agent's robot before it joins a team is named after its connection
  (`simspark-<n>`, `rcsssmj-<n>`, `ros-<n>`, `local-<n>`); these names are reserved;
- spawned entities keep the name they were given: a letter, then up to 63 letters, digits,
  `_`, `.` or `-` (no `/`, so they never collide with players' robots).
"""
from __future__ import annotations

import re
from typing import Final

from sim_contracts.percept import DIALECTS

BALL: Final = "ball"
TEAM_NAME: Final = re.compile(r"[^\s()\"'<>&\x00-\x1f\x7f]{1,64}")  # it goes into perceptions and frames
SPAWNED_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")
# reserved for joining agents: every dialect's, ROS players', in-process players'
CONNECTION_NAME: Final = re.compile("(" + "|".join((*DIALECTS, "ros", "local")) + ")-[0-9]+")
PLAYER_NAME: Final = re.compile(r"(?P<team>[^\s()\"'<>&\x00-\x1f\x7f]{1,64})/p(?P<unum>[0-9]{1,2})")


def player_entity(team: str, unum: int) -> str:
    """The entity name of a player's robot, e.g. player_entity("Alpha", 7) == "Alpha/p7"."""
    return f"{team}/p{unum}"


def parse_player_entity(name: str) -> tuple[str, int] | None:
    """(team, unum) of a player's entity name, or None if it is not one."""
    match = PLAYER_NAME.fullmatch(name)
    return (match["team"], int(match["unum"])) if match else None
