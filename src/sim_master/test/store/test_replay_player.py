"""The replay player on a real log: the index knows its span, events and checkpoints; seeking
lands on the cycle asked for with the world and game state as they were then (the same as
reading from the start); pause holds, step moves one cycle, speed paces against the clock."""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sim_master.store.mcap_log import ReplayLogReader
from sim_master.store.replay_player import ReplayPlayer
from soccer_referee.commands import SetScore


@pytest.fixture(scope="module")
def log(running_server: Callable[..., Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "game.mcap"
    with running_server(sync=False, realtime=False, log_path=str(path)) as server:
        server.loop.calls.call(lambda: server.loop.engine.set_ball((0.0, 0.0, 0.5), (1.0, 0.5, 0.0)))
        while server.loop.engine.time < 3.0:
            time.sleep(0.01)
        server.loop.calls.call(lambda: server.loop.referee.command(SetScore(2, 1)))
        while server.loop.engine.time < 6.0:
            time.sleep(0.01)
    return path


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_seek_lands_where_reading_from_the_start_does(log: Path) -> None:
    reader = ReplayLogReader(str(log))
    read: list[float] = []  # what a replay's page shows while the log is read
    index = reader.index(every=50, progress=read.append)
    assert index.cycles >= 290 and index.start <= 0.04 and index.end >= 5.9
    assert len(index.checkpoints) == (index.cycles + 49) // 50
    assert read == sorted(read) and len(read) == len(index.checkpoints) and read[-1] >= 5.0
    straight = {round(c.time, 3): c for c in reader.cycles()}
    player = ReplayPlayer(reader, index)
    for target in (4.51, 0.0, 2.0, 5.555, 99.0):
        cycle = player.seek(target)
        assert cycle is not None
        expected = straight[min(t for t in straight if t >= min(target, index.end) - 1e-9)]
        assert cycle.time == expected.time
        ball, ball_then = cycle.snapshot.entities["ball"], expected.snapshot.entities["ball"]
        assert ball.position == ball_then.position  # deltas merged from a checkpoint = from the start
        score = None if cycle.game_state is None else (cycle.game_state.score_left, cycle.game_state.score_right)
        then = None if expected.game_state is None else (expected.game_state.score_left,
                                                          expected.game_state.score_right)
        assert score == then
    assert player.seek(5.0) is not None and (player.current.game_state.score_left,
                                             player.current.game_state.score_right) == (2, 1)


def test_pause_step_and_speed(log: Path) -> None:
    reader = ReplayLogReader(str(log))
    clock = _Clock()
    player = ReplayPlayer(reader, reader.index(), speed=2.0, clock=clock)
    first = player.next()
    assert first is not None and player.due() == pytest.approx(0.01)  # 0.02 s of sim at 2x
    clock.now += 0.01
    assert player.due() == 0.0
    player.pause()
    assert player.due() == float("inf")
    at = player.next().time if player.due() == 0.0 else player.current.time
    player.step(1)
    assert player.due() == 0.0
    stepped = player.next()
    assert stepped is not None and stepped.time > at and player.due() == float("inf")
    player.set_speed(0.5)
    player.play()
    player.next()
    assert player.due() == pytest.approx(0.04)  # re-anchored: no rush after the pause
    while player.next() is not None:
        pass
    assert player.paused  # the end of the log pauses
