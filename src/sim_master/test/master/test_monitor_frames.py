"""Monitor frames announce the figures of the match's own field and rule book, not fixed ones."""
from __future__ import annotations

from sim_contracts.field import FIELD_PRESETS
from sim_master.server.monitor_scene import rsmp_frame, simspark_frame
from soccer_referee.referee import GameStateSnapshot
from soccer_referee.rules import rule_book


def test_frames_carry_the_rule_book_and_field() -> None:
    fifa, field = rule_book("fifa", goal_pause=4.5), FIELD_PRESETS["fifa"]
    state = GameStateSnapshot()
    rsmp = rsmp_frame("", True, 0.0, state, field, [], fifa)
    simspark = simspark_frame("", True, state, field, [], fifa, {})
    for frame in (rsmp, simspark):
        assert "(FreeKickDistance 9.15)" in frame and "(RuleGoalPauseTime 4.5)" in frame
        assert "(FieldLength 105)" in frame and "(RuleHalfTime 300)" in frame
    assert "(RuleKickInPauseTime 1)" in simspark
    default = simspark_frame("", True, state, FIELD_PRESETS["simspark"], [], rule_book("simspark"), {})
    assert "(FreeKickDistance 2)" in default and "(RuleGoalPauseTime 3)" in default and "(FieldLength 30)" in default
