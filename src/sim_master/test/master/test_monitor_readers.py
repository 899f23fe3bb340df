"""The SimSpark monitor stream read by the monitor readers teams use from PyPI, as they read
rcssserver3d's (issue 30): bahiart-gym finds the ball and each robot by their index among the
scene's top-level nodes (on a scene under one root node it looked for the ball for ever), and
pyrcssscom-cangyin reads the game state of a full frame (`(reqfullstate)`), ASCII only.

Both readers are installed by make setup (scripts/requirements.txt), used here as their users
use them; the reference is a stream captured from rcssserver3d 0.7.3 with four Naos."""
from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bahiart_gym.server.serverParser import ServerParser
from bahiart_gym.server.sexpr import str2sexpr
from rcssscom.server import Server

from sim_bridge.clients import LegacyClient, SimSparkAgent

REFERENCE = Path(__file__).parent / "samples" / "simspark_monitor_frame_full_4_naos.txt"


def _bahiart_view(frame: str) -> tuple[int, list[float], dict[tuple[str, int], list[float]]]:
    """What bahiart-gym's World reads of a full frame: the ball's top-level index and position,
    and each player's position by (side, unum)."""
    parser = ServerParser()
    exp = str2sexpr(frame)
    ball = parser.getObjIndex("models/soccerball.obj", exp, 0)
    ball_pos = parser.getObjPos(parser.getObjGraph(parser.getObjNd(exp, ball), []), [])
    players = {}
    for unum in range(1, 12):
        left, right = parser.getObjIndex(f"matNum{unum}", exp, 0, 0, True)
        for side, index in (("left", left), ("right", right)):
            if index:
                players[(side, unum)] = parser.getObjPos(parser.getObjGraph(parser.getObjNd(exp, index), []), [])
    return ball, ball_pos, players


def test_bahiart_gym_reads_the_reference_frame() -> None:
    ball, ball_pos, players = _bahiart_view(REFERENCE.read_text().strip())
    assert ball == 35 and ball_pos[2] == pytest.approx(0.04, abs=0.005)
    assert set(players) == {("left", 1), ("right", 1), ("left", 2), ("right", 2)}


def test_bahiart_gym_and_pyrcssscom_read_our_simspark_stream(running_server: Callable[..., Any]) -> None:
    with running_server(simspark_monitor_port=0) as server:
        port = server.monitor_servers["simspark"].port
        reader = Server(port=port)  # pyrcssscom-cangyin, before any team joined
        reader.create_connection(timeout=5.0)
        assert reader.sock is not None
        for _ in range(200):
            if reader.game_state.FieldLength == 30:
                break
            reader.sync_game_state(retry=20)
        assert reader.game_state.FieldLength == 30
        assert reader.game_state.team_left == "<Left>"  # not sent before the team joins (was "(team_left )")
        agents = [SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, team, 1)
                  for team in ("Alpha", "Beta")]
        for agent in agents:
            agent.join()
        monitor = LegacyClient("127.0.0.1", port)
        for _ in range(6):
            for agent in agents:
                agent.act()
        full = monitor.receive().decode("ascii")
        assert "(RSG 0 1)" in full
        ball, ball_pos, players = _bahiart_view(full)
        assert ball == 35
        assert ball_pos == pytest.approx(list(server.loop.engine.ball_position()), abs=0.01)
        assert set(players) == {("left", 1), ("right", 1)}
        for (side, unum), pos in players.items():
            (x, y, _), _ = server.loop.engine.robot_pose(server.loop.players.by_player(side, unum).robot_id)
            assert pos[:2] == pytest.approx([x, y], abs=0.05)  # its torso, as it moved since the frame
        for _ in range(200):  # the frames it did not read yet come first, as its users poll
            if (reader.game_state.team_left, reader.game_state.team_right) == ("Alpha", "Beta"):
                break
            for agent in agents:
                agent.act()
            reader.sync_game_state(retry=20)
        assert (reader.game_state.team_left, reader.game_state.team_right) == ("Alpha", "Beta")
        assert re.search(r"\(team_left Alpha\)\(team_right Beta\)", full)
        reader.close_connection()
        monitor.close()
        for agent in agents:
            agent.close()


class _BahiartWorld:
    """bahiart-gym's World as it reads a stream (its dynamicUpdate and updatePlayersDict): the
    player indices from a full frame, then each frame's first SLT in a player's node, one
    `old` graph shared by every player of a side (what a node without an SLT falls back to)."""

    def __init__(self, full: list) -> None:
        self.parser = ServerParser()
        self.index: dict[tuple[str, int], int] = {}
        for unum in range(1, 12):
            left, right = self.parser.getObjIndex(f"matNum{unum}", full, 0, 0, True)
            self.index.update({k: v for k, v in ((("left", unum), left), (("right", unum), right)) if v})
        self.graphs: dict[str, list] = {"left": [], "right": []}
        self.positions: dict[tuple[str, int], list[float]] = {}

    def update(self, exp: list) -> None:
        for (side, unum), index in sorted(self.index.items(), key=lambda kv: kv[0][1]):
            node = self.parser.getObjNd(exp, index)
            self.graphs[side] = self.parser.getObjGraph(node, self.graphs[side])
            before = self.positions.get((side, unum), [])
            self.positions[(side, unum)] = self.parser.getObjPos(self.graphs[side], before)


def test_bahiart_gym_reads_every_player_of_a_team_from_the_frames_that_follow(
        running_server: Callable[..., Any]) -> None:
    """Two players a team, standing still: on incremental frames each is read where it stands
    (a still robot's node had no SLT, so bahiart-gym took the previous player's)."""
    with running_server(simspark_monitor_port=0) as server:
        agents = [SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, team, unum)
                  for team in ("Alpha", "Beta") for unum in (1, 2)]
        for agent in agents:
            agent.join()
        for i, agent in enumerate(agents):
            agent.act(extra=f"(beam {-3 - 2 * (i % 2)} {1 + 2 * (i % 2)} 0)")
        monitor = LegacyClient("127.0.0.1", server.monitor_servers["simspark"].port)
        for _ in range(60):
            for agent in agents:
                agent.act()
        world = None
        for _ in range(40):  # a full frame, then the incremental ones as they come
            exp = str2sexpr(monitor.receive().decode("ascii"))
            if exp[1][0] == "RSG":
                world = _BahiartWorld(exp)
            if world is not None:
                world.update(exp)
            for agent in agents:
                agent.act()
        assert world is not None and len(world.index) == 4
        for (side, unum), pos in world.positions.items():
            (x, y, _), _ = server.loop.engine.robot_pose(server.loop.players.by_player(side, unum).robot_id)
            assert pos[:2] == pytest.approx([x, y], abs=0.05), (side, unum)
        monitor.close()
        for agent in agents:
            agent.close()


def test_pyrcssscom_reads_the_ball_where_it_was_moved(running_server: Callable[..., Any]) -> None:
    """pyrcssscom-cangyin takes the ball from the last top-level node's SLT of a full frame (on
    rcssserver3d's stream the ball's before any robot joined); ours sat inside a DSC node, so
    its ball stayed at (0, 0, 0). (Its tokenizer drops minus signs, on any server: the ball is
    put where all its figures are positive.)"""
    with running_server(simspark_monitor_port=0) as server:
        reader = Server(port=server.monitor_servers["simspark"].port)
        reader.create_connection(timeout=5.0)
        reader.send_playMode("PlayOn")  # in BeforeKickOff the referee keeps the ball on the centre spot
        reader.send_move_ball(2.5, 1.5, 0.042)
        for _ in range(100):
            reader.sync_game_state(retry=20)
            if reader.game_state.ball[0] > 1.0:
                break
        x, y, _ = server.loop.engine.ball_position()
        assert reader.game_state.ball[:2] == pytest.approx((x, y), abs=0.01)
        assert (x, y) == pytest.approx((2.5, 1.5), abs=0.05)
        reader.close_connection()
