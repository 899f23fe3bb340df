"""What an agent makes the server say is bounded (sim_contracts/agent_log.py): a complaint once,
a burst then a trickle, each line cut; what was held back is counted when it is said."""
from __future__ import annotations

import logging

import pytest

from sim_contracts.agent_log import BURST, AgentLog
from sim_contracts.logtext import MAX_TEXT, clip


def test_a_flood_of_new_complaints_gets_a_burst_then_a_count(caplog: pytest.LogCaptureFixture) -> None:
    log = AgentLog(logging.getLogger("agent-log-test"))
    with caplog.at_level(logging.WARNING):
        for k in range(5000):
            log.warn("simspark-7", f"unknown effector x{k}", once=True)
        log.warn("simspark-7", "unknown effector x1", once=True)  # said already: never again
        log.forget("simspark-7")
    lines = [r.getMessage() for r in caplog.records]
    assert BURST <= len(lines) <= BURST + 3
    assert lines[-1].startswith("agent simspark-7: ") and "more complaints were not logged" in lines[-1]


def test_long_texts_are_cut() -> None:
    text = clip("m" * 60000)
    assert len(text) < MAX_TEXT + 40 and text.endswith("(59800 more characters)")
    assert clip("short") == "short"
