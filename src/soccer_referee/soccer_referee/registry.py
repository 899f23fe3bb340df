"""Team registration: the first two team names become left and right; uniform numbers are
1..players_per_side, 0 asks for the lowest free one. rcssserver3d crashed on unum 12; here
anything outside the range is refused with a reason."""
from __future__ import annotations

from dataclasses import dataclass, field

from soccer_referee.checks import registration_problem


@dataclass(frozen=True, slots=True)
class Registration:
    success: bool
    side: str = ""
    unum: int = 0
    error: str = ""


@dataclass(slots=True)
class TeamRegistry:
    players_per_side: int = 11
    team_left: str = ""
    team_right: str = ""
    members: dict[str, set[int]] = field(default_factory=lambda: {"left": set(), "right": set()})

    def side_of(self, team: str) -> str:
        return "left" if team == self.team_left else "right" if team == self.team_right else ""

    def register(self, team: str, unum: int) -> Registration:
        problem = registration_problem(team, unum, self.players_per_side)
        if problem:
            return Registration(False, error=problem)
        side = self.side_of(team)
        if not side:
            if not self.team_left:
                self.team_left, side = team, "left"
            elif not self.team_right:
                self.team_right, side = team, "right"
            else:
                return Registration(False, error=f"two teams ({self.team_left}, {self.team_right}) "
                                                 f"are playing already; {team!r} cannot join")
        taken = self.members[side]
        if unum == 0:
            free = [n for n in range(1, self.players_per_side + 1) if n not in taken]
            if not free:
                return Registration(False, error=f"team {team} is full ({self.players_per_side} players)")
            unum = free[0]
        elif unum in taken:
            return Registration(False, error=f"uniform number {unum} of team {team} is taken")
        taken.add(unum)
        return Registration(True, side, unum)

    def unregister(self, side: str, unum: int, *, free_empty_side: bool = False) -> None:
        """The player leaves. With `free_empty_side` (before the match has started: nothing
        played, nothing scored), a team whose last player left frees its side for the next
        team; once the match runs a side keeps its team, for its agents coming back."""
        members = self.members.get(side)
        if members is None:
            return
        members.discard(unum)
        if not members and free_empty_side:
            if side == "left":
                self.team_left = ""
            else:
                self.team_right = ""

    def swap_sides(self) -> None:
        self.team_left, self.team_right = self.team_right, self.team_left
        self.members = {"left": self.members["right"], "right": self.members["left"]}
