"""Real time that falls behind says so: once when a 10 s window ran below 0.9 of real time,
with the ratio, and once when it is back (issue 44: a server at 0.5x real time said nothing)."""
from __future__ import annotations

import pytest

from sim_master.master.pacing import LAG_WINDOW_S, RealTimePacer


def _window(pacer: RealTimePacer, start: float, cycles: int) -> list[str]:
    """`cycles` cycles spread over one window of wall time from `start`; what the pacer said."""
    said = []
    for i in range(cycles + 1):
        message = pacer.measure(start + LAG_WINDOW_S * i / cycles)
        if message is not None:
            said.append(message)
    return said


def test_a_slow_window_is_said_once_with_its_ratio_and_the_recovery_once() -> None:
    pacer = RealTimePacer()
    assert _window(pacer, 0.0, 500) == []  # 50 cycles/s: real time
    assert pacer.ratio == pytest.approx(1.0, abs=0.01)
    said = _window(pacer, 10.0, 250)  # 25 cycles/s
    assert len(said) == 1 and "falling behind, 0.50x real time" in said[0]
    assert _window(pacer, 20.0, 250) == []  # still behind: not said again
    assert pacer.behind and pacer.ratio == pytest.approx(0.5, abs=0.01)
    said = _window(pacer, 30.0, 500)
    assert len(said) == 1 and "back to 1.00x" in said[0] and not pacer.behind
