"""The referee on the real engine: goals, outs, fouls and half time decided from physics."""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from sim_physics.engine.factory import PHYSICS_ENGINES, physics_engine

from sim_bridge.clients import RcsssmjAgent, SimSparkAgent
from sim_master.master.referee_world import EngineWorld
from soccer_referee.commands import KickOff, SetPlayMode, SetTime
from soccer_referee.play_modes import PlayMode
from soccer_referee.referee import Referee


class Match:
    def __init__(self, engine: str = "mujoco") -> None:
        self.engine = physics_engine(engine, "simspark_field", vision_noise=False)
        self.robots: dict[tuple[str, int], str] = {}
        self.referee = Referee.create("simspark", EngineWorld(self.engine, self.robots))
        self.events: list = []

    def player(self, team: str, unum: int, x: float, y: float, yaw: float = 0.0) -> tuple[str, int]:
        reg = self.referee.register(team, unum)
        assert reg.success, reg.error
        rid = f"{reg.side}_{reg.unum}"
        self.engine.add_robot(rid, "nao", x, y, yaw)
        self.robots[(reg.side, reg.unum)] = rid
        return reg.side, reg.unum

    def run(self, seconds: float) -> None:
        for _ in range(round(seconds / self.engine.cycle_dt)):
            self.engine.step()
            self.events += self.referee.step(self.engine.cycle_dt)

    def run_until(self, mode: PlayMode, seconds: float) -> bool:
        for _ in range(round(seconds / self.engine.cycle_dt)):
            self.run(self.engine.cycle_dt)
            if self.referee.state.play_mode == mode:
                return True
        return False

    def touch(self, side: str, unum: int) -> None:
        """Roll the ball against the player's foot so the engine registers a real contact."""
        (x, y, _), _ = self.engine.robot_pose(self.robots[(side, unum)])
        self.engine.set_ball((x + 0.35, y - 0.055, self.engine.field.ball_radius), (-2.0, 0.0, 0.0))
        for _ in range(50):
            self.run(self.engine.cycle_dt)
            if self.referee.state.last_touch == (side, unum):
                return
        raise AssertionError(f"{side} #{unum} never touched the ball")


@pytest.fixture(params=PHYSICS_ENGINES)
def match(request: pytest.FixtureRequest) -> Match:
    m = Match(request.param)
    m.player("Alpha", 1, -8.0, 0.0)
    m.player("Beta", 1, 8.0, 0.0, 180.0)
    return m


def test_ball_pushed_into_the_right_goal(match: Match) -> None:
    match.referee.command(KickOff("Left"))
    match.touch("left", 1)
    assert match.referee.state.play_mode == PlayMode.PLAY_ON
    match.engine.set_ball((13.5, 0.2, 0.042), (5.0, 0.0, 0.0))
    assert match.run_until(PlayMode.GOAL_LEFT, 3.0)
    s = match.referee.state
    assert (s.score_left, s.score_right) == (1, 0)
    assert [e.team for e in match.events if e.kind == "goal"] == ["left"]
    beam = match.referee.request_beam("right", 1, -3.0, 1.0, 0.0)
    assert beam.success and (beam.x, beam.y) == (3.0, -1.0)
    assert match.run_until(PlayMode.KICK_OFF_RIGHT, 3.5)
    assert np.allclose(match.engine.ball_position()[:2], (0.0, 0.0), atol=0.01)


def test_ball_over_the_side_line_gives_the_other_team_a_kick_in(match: Match) -> None:
    match.referee.command(SetPlayMode("PlayOn"))
    match.touch("right", 1)
    x, _, z = match.engine.ball_position()
    match.engine.set_ball((x, 8.0, z), (0.0, 8.0, 0.0))  # rcssserver3d's ball rolls ~5 m from 8 m/s
    assert match.run_until(PlayMode.KICK_IN_LEFT, 4.0)
    bx, by, _ = match.engine.ball_position()
    assert by == pytest.approx(10.0, abs=0.01)


@pytest.mark.parametrize("toucher, expected", [("left", PlayMode.CORNER_KICK_RIGHT),
                                               ("right", PlayMode.GOAL_KICK_LEFT)])
def test_over_the_goal_line_corner_or_goal_kick_by_last_touch(match: Match, toucher: str,
                                                              expected: PlayMode) -> None:
    match.referee.command(SetPlayMode("PlayOn"))
    match.touch(toucher, 1)
    match.engine.set_ball((-13.0, 4.0, 0.042), (-8.0, 0.0, 0.0))  # wide of the left goal
    assert match.run_until(expected, 3.0)


def test_a_nao_lying_on_the_ground_gets_the_fallen_foul(match: Match) -> None:
    side, unum = match.player("Alpha", 5, -4.0, 3.0)
    match.referee.command(SetPlayMode("PlayOn"))
    match.run(0.1)
    match.engine.carry_robot(match.robots[(side, unum)], -4.0, 3.0, None, z=0.1,
                             orientation=(math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0))  # on its side
    match.run(14.0)
    assert not [e for e in match.events if e.kind == "foul"]
    assert match.engine.robot_pose(match.robots[(side, unum)])[0][2] < 0.15  # lying
    match.run(1.5)
    fouls = [(e.team, e.unum, e.detail) for e in match.events if e.kind == "foul"]
    assert fouls == [("left", 5, "incapable")]
    (x, y, _), _ = match.engine.robot_pose(match.robots[(side, unum)])
    assert y > 10.0  # moved out beside the field


def test_half_time_keeps_sides_as_rcssserver3d_and_switches_the_kick_off_team(match: Match) -> None:
    match.referee.command(KickOff("Left"))
    match.referee.command(SetTime(299.9))
    match.run(0.2)
    s = match.referee.state
    assert (s.half, s.play_mode, s.team_left, s.kick_off_side) == (2, PlayMode.BEFORE_KICK_OFF, "Alpha", "right")


_TOLD_SIDE = re.compile(rb"\(team (left|right)\)")


@pytest.mark.parametrize("rules", ["simspark", "simspark-swap"])
def test_in_the_second_half_each_simspark_agent_plays_on_the_side_it_was_told(
        running_server: Callable[..., Any], rules: str) -> None:
    """SimSpark agents learn their side from a GS `(team ...)`; beams are in the agent's own
    frame, so an agent's own half is where it was told it is. The default keeps the sides (as
    rcssserver3d); a rule book that changes ends tells every agent its new side."""
    with running_server(rules=rules, half_time=1.0, kickoff_after=0.1) as server:
        port = server.agent_servers["simspark"].port
        agents = {team: SimSparkAgent("127.0.0.1", port, team, 1) for team in ("Alpha", "Beta")}
        told: dict[str, list[str]] = {team: [] for team in agents}
        for agent in agents.values():
            agent.join()
        second_half_kicked_off = 0
        for _ in range(400):
            for team, agent in agents.items():
                before_kick_off = agent.log.play_modes[-1:] == ["BeforeKickOff"]
                msg = agent.act(extra="(beam -3 0 0)" if before_kick_off else "")
                told[team] += [m.decode() for m in _TOLD_SIDE.findall(msg)]
            state = server.loop.referee.state
            if state.half == 2 and state.play_mode != PlayMode.BEFORE_KICK_OFF:
                second_half_kicked_off += 1
                if second_half_kicked_off == 10:
                    break
        else:
            raise AssertionError(f"no second half: {server.loop.referee.state}")
        state = server.loop.referee.state
        for team in agents:
            side = "left" if state.team_left == team else "right"
            assert told[team][-1] == side, (team, told[team])
            (x, _, _), _ = server.loop.engine.robot_pose(f"{team}/p1")
            assert (x < 0) == (side == "left"), (team, side, x)  # its beam put it in the half it was told
        swapped = state.team_left == "Beta"
        assert swapped == (rules == "simspark-swap")
        assert [len(told[t]) for t in agents] == ([2, 2] if swapped else [1, 1])  # told again only when it changed


def test_refusals_on_the_server_and_the_game_goes_on(running_server: Callable[..., Any],
                                                     caplog: pytest.LogCaptureFixture) -> None:
    with running_server() as server:
        a = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Alpha", 1)
        a.join()
        b = RcsssmjAgent("127.0.0.1", server.agent_servers["rcsssmj"].port, "Beta", 1)
        b.join()
        twelve = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Alpha", 12)
        twelve.join()
        third = RcsssmjAgent("127.0.0.1", server.agent_servers["rcsssmj"].port, "Gamma", 2)
        third.join()
        for _ in range(10):
            a.act()
            b.act()
            twelve.act()
        server.loop.calls.call(lambda: server.loop.control.set_play_mode("PlayOn"))
        before = server.loop.engine.robot_pose("Alpha/p1")[0]
        for _ in range(5):
            a.act(extra="(beam -3 0 0)")
            b.act()
            twelve.act()
        after = server.loop.engine.robot_pose("Alpha/p1")[0]
        assert math.hypot(after[0] - before[0], after[1] - before[1]) < 0.05  # beam refused
        assert len(a.log.times) == 1 + 15 and b.log.times[-1] > b.log.times[0]
    text = caplog.text
    assert "uniform number 12 is outside 1..11" in text
    assert "'Gamma' cannot join" in text
    assert "beam refused: beam is not allowed in PlayOn" in text
