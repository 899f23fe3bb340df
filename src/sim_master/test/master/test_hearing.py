"""Say/hear follows the SimSpark rules: length, characters, range, channels, frames."""
from __future__ import annotations

import pytest

from sim_master.master.hearing import Hearing, Listener, Utterance, say_error


@pytest.mark.parametrize("message, ok", [
    ("Hello.123", True), ("x" * 20, True), ("x" * 21, False), ("", False),
    ("has space", False), ("a(b", False), ("tab\t", False), ("é", False),
])
def test_say_validation(message: str, ok: bool) -> None:
    assert (say_error(message) is None) == ok


def test_direction_range_self_echo_and_team_frames() -> None:
    hearing = Hearing()
    listeners = [Listener("me", "left", 0.0, 0.0), Listener("opp", "right", 10.0, 0.0),
                 Listener("far", "left", -60.0, 0.0)]
    out = hearing.deliver([Utterance("me", "Alpha", "left", 0.0, 0.0, "hi")], listeners, 1.5)
    (own,) = out["me"]
    assert own.from_self and own.message == "hi" and own.team == "Alpha" and own.time == 1.5
    (heard,) = out["opp"]
    # Speaker at -x from the listener; the right team's frame is turned by 180 deg: ahead.
    assert heard.direction == pytest.approx(0.0) and not heard.from_teammate
    assert "far" not in out  # 60 m away: beyond the 50 m range


def test_one_message_per_channel_every_two_cycles_last_one_wins() -> None:
    hearing = Hearing()
    listeners = [Listener("l", "left", 0.0, 0.0)]
    talk = [Utterance("a", "Alpha", "left", 1.0, 0.0, "first"),
            Utterance("b", "Alpha", "left", 0.0, 1.0, "second")]
    got = [hearing.deliver(talk, listeners, t).get("l", []) for t in (0.0, 0.02, 0.04, 0.06)]
    assert [[h.message for h in g] for g in got] == [["second"], [], ["second"], []]
    assert got[0][0].direction == pytest.approx(90.0)
