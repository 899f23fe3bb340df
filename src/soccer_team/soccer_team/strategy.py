"""The teams' strategy as behaviour-tree leaves: conditions read what a player believes
(beliefs.Beliefs), actions set its motion target (where to go, what to face, whether to drive
through the ball). Registered under the tag names used in strategy.xml. The same tree plays
the base team's Naos (which walk and kick to the target) and the light wheeled pushers of
sim_tools.demo (which drive to it): the strategy knows no body."""
from __future__ import annotations

import math
from importlib import resources

from py_trees.behaviour import Behaviour
from py_trees.common import Status

from sim_master.bt.loader import BehaviorTreeFactory, LeafFactory
from soccer_team.beliefs import Beliefs

HOME = {1: (-14.0, 0.0), 2: (-10.0, 4.0), 3: (-10.0, -4.0), 4: (-9.0, 0.0), 5: (-6.0, 6.0),
        6: (-6.0, -6.0), 7: (-5.0, 2.0), 8: (-5.0, -2.0), 9: (-2.5, 0.0), 10: (-2.0, 5.0), 11: (-2.0, -5.0)}


def line_frame(start: tuple[float, float], toward: tuple[float, float],
               point: tuple[float, float]) -> tuple[tuple[float, float], float, float]:
    """The unit direction from `start` toward `toward`, and `point`'s place along that line
    from `start` and across it (> 0: to the left), m."""
    dx, dy = toward[0] - start[0], toward[1] - start[1]
    n = math.hypot(dx, dy) or 1.0
    ux, uy = dx / n, dy / n
    px, py = point[0] - start[0], point[1] - start[1]
    return (ux, uy), px * ux + py * uy, -px * uy + py * ux


class _Leaf(Behaviour):
    def __init__(self, name: str, model: Beliefs, attrs: dict[str, str]) -> None:
        super().__init__(name)
        self.m = model
        self.attrs = attrs

    def check(self) -> bool:
        raise NotImplementedError

    def update(self) -> Status:
        return Status.SUCCESS if self.check() else Status.FAILURE


class IsPlayMode(_Leaf):
    def check(self) -> bool:
        return self.m.play_mode in self.attrs.get("modes", "").split(",")


class IsOpponentSetPlay(_Leaf):
    def check(self) -> bool:
        mode = self.m.play_mode
        theirs = "right" if self.m.side == "left" else "left"
        return mode != "PlayOn" and mode.lower().endswith(theirs)


class IsClosestToBall(_Leaf):
    """No team-mate seen nearer the ball. Within TIE of each other the lower shirt number goes:
    two players who both counted themselves closest went for one ball together and knocked
    each other down before the opponent goal."""

    TIE = 0.3  # m

    def check(self) -> bool:
        if self.m.ball is None or self.m.ball_age > 3.0:
            return self.m.unum == 9  # nobody knows where the ball is: the striker looks
        mine = self.m.distance_to(self.m.ball)
        for unum, (x, y) in self.m.mates.items():
            if unum in (1, self.m.unum):
                continue
            theirs = math.hypot(x - self.m.ball[0], y - self.m.ball[1])
            if theirs < mine - self.TIE or (theirs <= mine + self.TIE and unum < self.m.unum):
                return False
        return True


class IsBallNearOwnGoal(_Leaf):
    def check(self) -> bool:
        d = float(self.attrs.get("distance", "3.5"))
        ball = self.m.ball
        return ball is not None and math.hypot(ball[0] + self.m.field_length / 2, ball[1]) < d


class GoHome(_Leaf):
    def update(self) -> Status:
        self.m.target, self.m.push = HOME.get(self.m.unum, (-5.0, 0.0)), False
        self.m.face = (0.0, 0.0)
        return Status.RUNNING


class KeepAwayFromBall(_Leaf):
    def update(self) -> Status:
        d = float(self.attrs.get("distance", "2.5"))
        ball = self.m.ball or (0.0, 0.0)
        dx, dy = self.m.x - ball[0], self.m.y - ball[1]
        n = math.hypot(dx, dy) or 1.0
        if n < d:
            self.m.target = (ball[0] + dx / n * (d + 0.5), ball[1] + dy / n * (d + 0.5))
        else:
            self.m.target = (self.m.x, self.m.y)
        self.m.push, self.m.face = False, ball
        return Status.RUNNING


class PushBallToGoal(_Leaf):
    """Get behind the ball on the line to the opponent goal, then drive through it; go
    around the ball when standing between it and the goal (never push it home). Near the
    goal aim beside the goalie; when a push has not moved the ball for a while (another
    robot blocks it), come again from the side."""

    STUCK_AFTER = 2.5  # s of pushing without the ball moving 0.3 m
    SIDESTEP = 1.5  # s

    def __init__(self, name: str, model: Beliefs, attrs: dict[str, str]) -> None:
        super().__init__(name, model, attrs)
        self._anchor: tuple[float, float, float] | None = None  # ball x, y and time when pushing began
        self._sidestep_until = -1.0
        self._side = 1.0

    def update(self) -> Status:
        m = self.m
        if m.ball is None:
            m.target, m.push, m.face = (m.x, m.y), False, (0.0, 0.0)
            return Status.RUNNING
        bx, by = m.ball
        gx = m.field_length / 2 + 1.0
        gy = 0.0 if bx < m.field_length / 2 - 6 else (-0.5 if by > 0 else 0.5) * m.goal_width / 2.1
        if m.time < self._sidestep_until:
            m.target = (bx - 0.2, by + self._side * 0.7)
            m.push, m.face = False, (bx, by)
            return Status.RUNNING
        (ux, uy), along, lateral = line_frame((bx, by), (gx, gy), (m.x, m.y))  # along > 0: between ball and goal
        behind = (bx - ux * 0.35, by - uy * 0.35)
        if along > -0.15:
            side = 1.0 if lateral >= 0 else -1.0
            m.target = (bx - ux * 0.6 - uy * side * 0.6, by - uy * 0.6 + ux * side * 0.6)
            m.push = False
        elif abs(lateral) > 0.12 or m.distance_to(behind) > 0.5:
            m.target, m.push = behind, False
        else:
            m.target, m.push = (bx + ux * 1.0, by + uy * 1.0), True
        if m.push:
            if self._anchor is None or math.hypot(bx - self._anchor[0], by - self._anchor[1]) > 0.3:
                self._anchor = (bx, by, m.time)
            elif m.time - self._anchor[2] > self.STUCK_AFTER:
                self._sidestep_until = m.time + self.SIDESTEP
                self._side = -self._side
                self._anchor = None
        else:
            self._anchor = None
        m.face = (bx, by)
        return Status.RUNNING


class Support(_Leaf):
    """Where a player waits while a team-mate goes for the ball. Defenders and midfield shift
    with the ball from their home; forwards (`forwards`, shirt numbers) wait `ahead` m before
    it toward the opponent goal (there is no offside), where a kick or a clearance lands, so
    they, not the other side's supporters, reach it first; never on the line from the ball to
    the goal (CLEAR m beside it at least), where they would block their own side's kick."""

    CLEAR = 1.0  # m

    def __init__(self, name: str, model: Beliefs, attrs: dict[str, str]) -> None:
        super().__init__(name, model, attrs)
        self._forwards = {int(n) for n in attrs.get("forwards", "").split(",") if n.strip().isdigit()}
        self._ahead = float(attrs.get("ahead", "3.0"))

    def update(self) -> Status:
        hx, hy = HOME.get(self.m.unum, (-5.0, 0.0))
        ball = self.m.ball or (0.0, 0.0)
        if self.m.unum in self._forwards:
            x = max(-5.0, min(self.m.field_length / 2 - 2.0, ball[0] + self._ahead))
            self.m.target = self._beside_the_shot(ball, (x, 0.5 * hy + 0.5 * ball[1]), hy)
        else:
            self.m.target = (max(-13.0, min(12.0, hx + 0.5 * (ball[0] + 5.0))), hy * 0.7 + 0.3 * ball[1])
        self.m.push, self.m.face = False, ball
        return Status.RUNNING


    def _beside_the_shot(self, ball: tuple[float, float], spot: tuple[float, float],
                         home_y: float) -> tuple[float, float]:
        """`spot`, moved sideways off the ball-to-goal line when nearer to it than CLEAR (to the
        side of the player's home, or away from the ball's side for the centre forward)."""
        goal = (self.m.field_length / 2, 0.0)
        if math.dist(ball, goal) < 1e-6:
            return spot
        (ux, uy), along, lateral = line_frame(ball, goal, spot)
        if along <= 0.0 or abs(lateral) >= self.CLEAR:
            return spot
        side = math.copysign(1.0, home_y if home_y else -ball[1] or 1.0) * math.copysign(1.0, ux)
        shift = side * self.CLEAR - lateral
        return spot[0] - shift * uy, spot[1] + shift * ux


class GuardGoalLine(_Leaf):
    def update(self) -> Status:
        ball = self.m.ball or (0.0, 0.0)
        half = self.m.goal_width / 2
        self.m.target = (-self.m.field_length / 2 + 0.4, max(-half, min(half, ball[1] * 0.3)))
        self.m.push, self.m.face = False, ball
        return Status.RUNNING


def strategy_xml() -> str:
    return resources.files("soccer_team").joinpath("strategy.xml").read_text()


LEAVES = {cls.__name__: cls for cls in (IsPlayMode, IsOpponentSetPlay, IsClosestToBall, IsBallNearOwnGoal,
                                        GoHome, KeepAwayFromBall, PushBallToGoal, Support, GuardGoalLine)}


def _leaf_maker(cls: type[_Leaf], model: Beliefs) -> LeafFactory:
    def make(name: str, attrs: dict[str, str]) -> Behaviour:
        return cls(name, model, attrs)
    return make


def factory_for(model: Beliefs) -> BehaviorTreeFactory:
    factory = BehaviorTreeFactory()
    for tag, cls in LEAVES.items():
        factory.register(tag, _leaf_maker(cls, model))
    return factory
