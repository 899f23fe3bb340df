"""Pause and step-while-paused: whoever steps a world (the single-mode loop, a distributed
run's lockstep) holds while paused unless cycles were asked for, and tells the asker when
they ran. One rule for both, on the stepping thread."""
from __future__ import annotations

import threading


class PausedStepping:
    def __init__(self) -> None:
        self.paused = False
        self._step_budget = 0  # cycles still to run while paused
        self._step_done: threading.Event | None = None

    def holds(self) -> bool:
        """No cycle now: paused with no step requested."""
        return self.paused and self._step_budget == 0

    @property
    def stepping(self) -> bool:
        """A step request (step_paused) has cycles still to run."""
        return self._step_budget > 0

    def cycle_done(self) -> None:
        if self._step_budget > 0:
            self._step_budget -= 1
            if self._step_budget == 0 and self._step_done is not None:
                self._step_done.set()
                self._step_done = None

    def cancel_steps(self) -> None:
        """A pending step request ends (its caller is released): pause and stop always win."""
        self._step_budget = 0
        if self._step_done is not None:
            self._step_done.set()
            self._step_done = None

    def step_paused(self, cycles: int) -> threading.Event:
        """While paused: run `cycles` cycles; the event is set when they are done."""
        done = threading.Event()
        if cycles <= 0:
            done.set()
            return done
        self._step_budget = cycles
        self._step_done = done
        return done
