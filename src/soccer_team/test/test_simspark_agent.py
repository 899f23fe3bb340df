"""The base team's side of the SimSpark wire: a perception the server encodes reads back as the
same Percept, and the team plays our server's SimSpark port over real TCP."""
from __future__ import annotations

import math
import socket
import threading
import time
from typing import Any

import pytest

from sim_bridge.dialects.simspark import SimSparkDialect
from sim_bridge.framing import FrameDecoder, encode_frame
from sim_contracts.percept import ForceResistance, GameStateView, Percept, Polar, SeenPlayer, Vision
from sim_master.master.config import ServerConfig
from sim_master.server.in_thread import serving
from soccer_team.player import NaoBrain
from soccer_team.roster import model_of
from soccer_team.simspark_agent import decode_perception, encode_answer, play_team


def test_what_the_server_encodes_the_agent_reads_back() -> None:
    vision = Vision(objects={"F1L": Polar(18.66, 53.93, -5.01), "B": Polar(1.89, -0.13, -57.78)},
                    players=[SeenPlayer("Beta", 3, {"head": Polar(4.2, 10.5, 3.25), "rfoot": Polar(4.3, 11.0, -5.5)})],
                    lines=[(Polar(1.9, 0.16, -60.04), Polar(11.13, 0.1, -8.43))])
    sent = Percept(time=72.8, game=GameStateView("PlayOn", 12.3, 1, 2, "Alpha", "Beta", 4, "left"),
                   gyro=(0.5, -1.25, 3.0), accel=(0.1, -0.2, 9.79), joint_names=["hj1", "llj3", "llj5"],
                   joint_angles=[-12.5, 30.25, 4.0], joint_velocities=[],
                   foot_resistance=[ForceResistance("lf", (0.01, -0.02, -0.015), (0.5, -0.25, 22.5))], vision=vision)
    got = decode_perception(SimSparkDialect().encode_percept(sent))
    assert got.time == pytest.approx(72.8) and got.game.play_mode == "PlayOn"
    assert (got.game.game_time, got.game.score_left, got.game.score_right) == pytest.approx((12.3, 1, 2))
    assert (got.game.unum, got.game.side) == (4, "left")
    assert got.gyro == pytest.approx(sent.gyro, abs=0.01) and got.accel == pytest.approx(sent.accel, abs=0.01)
    assert sorted(got.joint_names) == ["hj1", "llj3", "llj5"]  # FRP rides after a foot's lj5
    assert dict(zip(got.joint_names, got.joint_angles, strict=True)) == \
        pytest.approx({"hj1": -12.5, "llj3": 30.25, "llj5": 4.0}, abs=0.01)
    assert got.foot_resistance[0].name == "lf"
    assert got.foot_resistance[0].force == pytest.approx((0.5, -0.25, 22.5), abs=0.01)
    assert got.vision is not None
    assert got.vision.objects["F1L"] == pytest.approx((18.66, 53.93, -5.01), abs=0.01)
    assert got.vision.objects["B"] == pytest.approx((1.89, -0.13, -57.78), abs=0.01)
    seen = got.vision.players[0]
    assert (seen.team, seen.unum) == ("Beta", 3) and set(seen.parts) == {"head", "rfoot"}
    assert len(got.vision.lines) == 1


def test_random_perceptions_read_back_as_the_server_sent_them() -> None:
    """The fast paths for what every perception holds (joints, polar coordinates) against the
    server's own encoder, on random percepts: every value back to its printed precision."""
    import random

    rng = random.Random(5)

    def polar() -> Polar:
        return Polar(rng.uniform(0.1, 40.0), rng.uniform(-180.0, 180.0), rng.uniform(-90.0, 90.0))

    for _ in range(300):
        joints = rng.sample(["hj1", "hj2", "laj1", "raj4", "llj1", "llj6", "rlj3", "rlj5", "llj5"], rng.randint(0, 9))
        vision = Vision(objects={k: polar() for k in rng.sample(["F1L", "F2R", "G1L", "G2R", "B"], rng.randint(0, 5))},
                        players=[SeenPlayer(rng.choice(["Alpha", "Beta"]), rng.randint(1, 11),
                                            {k: polar() for k in rng.sample(["head", "rlowerarm", "lfoot"],
                                                                            rng.randint(1, 3))})
                                 for _ in range(rng.randint(0, 4))],
                        lines=[(polar(), polar()) for _ in range(rng.randint(0, 5))])
        sent = Percept(time=rng.uniform(0, 600), game=GameStateView("PlayOn", rng.uniform(0, 300), 0, 1, "", "", 0, ""),
                       gyro=(rng.uniform(-200, 200), 0.0, 1.0), accel=(0.0, rng.uniform(-20, 20), 9.8),
                       joint_names=joints, joint_angles=[rng.uniform(-120, 120) for _ in joints], joint_velocities=[],
                       foot_resistance=[], vision=vision if rng.random() < 0.7 else None)
        got = decode_perception(SimSparkDialect().encode_percept(sent))
        assert dict(zip(got.joint_names, got.joint_angles, strict=True)) == \
            pytest.approx(dict(zip(sent.joint_names, sent.joint_angles, strict=True)), abs=0.006)
        assert got.gyro == pytest.approx(sent.gyro, abs=0.006) and got.accel == pytest.approx(sent.accel, abs=0.006)
        if sent.vision is None:
            assert got.vision is None
            continue
        assert got.vision is not None
        def flat(polars: dict[str, Polar]) -> dict[str, float]:
            return {f"{k}.{i}": v for k, polar in polars.items() for i, v in enumerate(polar)}

        assert flat(got.vision.objects) == pytest.approx(flat(sent.vision.objects), abs=0.006)
        assert [(p.team, p.unum, set(p.parts)) for p in got.vision.players] == \
            [(p.team, p.unum, set(p.parts)) for p in sent.vision.players]
        for mine, theirs in zip(got.vision.players, sent.vision.players, strict=True):
            assert flat(mine.parts) == pytest.approx(flat(theirs.parts), abs=0.006)
        assert len(got.vision.lines) == len(sent.vision.lines)


def test_an_answer_is_speeds_then_a_beam_then_syn() -> None:
    assert encode_answer({"lle1": 0.5, "he1": -1.25}, (-3.0, 1.5, 90.0)) == \
        b"(lle1 0.5000)(he1 -1.2500)(beam -3.000 1.500 90.00)(syn)"


def test_a_perception_it_cannot_read_costs_that_cycle_only() -> None:
    """A server (a plain socket here) sends the scene's and init's answers, then rubbish, then
    a good perception: the agent answers the rubbish with (syn) and plays on."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    answers: list[bytes] = []
    logged: list[str] = []

    def serve() -> None:
        conn, _ = listener.accept()
        conn.settimeout(10)
        reader = LegacyReader(conn)
        answers.append(reader.next())  # the scene, sent on connecting
        good = (b"(time (now 1.00))(GS (unum 1) (team left) (t 0.00) (pm BeforeKickOff))"
                b"(GYR (n torso) (rt 0 0 0))(ACC (n torso) (a 0 0 9.81))(HJ (n hj1) (ax 0.00))")
        rubbish = b"(time)(GS (unum x))(((("
        for message in (b"(time (now 0.98))", good, rubbish, good.replace(b"1.00", b"1.04")):
            conn.sendall(encode_frame(message))
            answers.append(reader.next())
        conn.close()

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    run = play_team("127.0.0.1", port, "Alpha", 1, lambda side, unum: NaoBrain(side, unum, effector_delay=1),
                    log=logged.append)
    server.join(timeout=10)
    listener.close()
    assert answers[0] == b"(scene rsg/agent/nao/nao_hetero.rsg 0)"
    assert answers[1].startswith(b"(init (unum 1)(teamname Alpha))")
    assert answers[3] == b"(syn)" and any("unreadable perception" in line for line in logged)
    assert answers[4].startswith(b"(he1 ") and answers[4].endswith(b"(syn)")  # its only joint, then syn
    assert run.answered == 2
    assert run.connected == 0 and run.side == "left" and run.play_mode == "BeforeKickOff"  # the server closed


class LegacyReader:
    """The server's side of one connection: whole messages, one at a time."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn, self.frames, self.ready = conn, FrameDecoder(), []

    def next(self) -> bytes:
        while not self.ready:
            self.ready += self.frames.feed(self.conn.recv(65536))
        return self.ready.pop(0)


def _wait_for_cycle(server: Any, cycle: int, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while server.loop.calls.call(lambda: server.loop.engine.cycle) < cycle:
        assert time.monotonic() < deadline, f"cycle {cycle} not reached"
        time.sleep(0.05)


def test_the_base_team_plays_the_simspark_port_over_tcp() -> None:
    """Two teams of Naos join over TCP as the league's agents do, beam home, and the kick-off
    taker walks toward the ball: what our server's SimSpark port sees of the team."""
    config = ServerConfig(sync=True, realtime=False, simspark_port=0, rcsssmj_port=None, simspark_monitor_port=None,
                          rcsssmj_monitor_port=None, service_port=None, ros=False, sync_timeout=0.5,
                          vision_noise=False, beam_noise=False, kickoff_after=0.5, engine="ode")
    with serving(config) as server:
        port = server.agent_servers["simspark"].port
        stop = threading.Event()
        answered: list[int] = []

        types = (0, 1)  # the kick-off taker (2) plays nao_hetero type 1, its walk solved for its longer legs

        def play(name: str, players: int) -> None:
            answered.append(play_team("127.0.0.1", port, name, players,
                                      lambda side, unum: NaoBrain(side, unum, effector_delay=1,
                                                                  model=model_of(types, unum)),
                                      stop=stop.is_set, log=lambda _: None, robot_types=types).answered)

        teams = [threading.Thread(target=play, args=("Alpha", 2), daemon=True)]
        teams[0].start()
        _wait_for_cycle(server, 20)
        teams.append(threading.Thread(target=play, args=("Beta", 1), daemon=True))  # a kick-off needs two teams
        teams[1].start()
        try:
            def robot(unum: int) -> tuple[float, float, float]:
                loop = server.loop
                player = next(p for p in loop.players.with_robots() if p.unum == unum)
                return loop.engine.robot_pose(player.robot_id)[0]

            _wait_for_cycle(server, 40)  # before the kick-off (half a second after both teams joined)
            assert server.loop.calls.call(lambda: next(p.model for p in server.loop.players if p.unum == 2
                                                       and p.team == "Alpha")) == "nao1"
            start = server.loop.calls.call(lambda: robot(2))
            _wait_for_cycle(server, 600)
            end = server.loop.calls.call(lambda: robot(2))
        finally:
            stop.set()
            for team in teams:
                team.join(timeout=10)
    assert math.dist(start[:2], (-10.0, 4.0)) < 0.6  # beamed home (the team frame is the field's on the left)
    assert math.dist(end[:2], (0.0, 0.0)) < math.dist(start[:2], (0.0, 0.0)) - 1.5  # walked toward the ball
    assert end[2] > 0.25  # on its feet
    assert len(answered) == 2 and min(answered) > 500
