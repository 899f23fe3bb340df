"""Playback of a replay log as a viewer drives it: play, pause, step, seek, speed.

Why its own object: `soccersim replay` feeds monitors, ROS and the browser from whatever
cycle the viewer is at; the player alone knows where that is and when the next cycle is due
(sim time paced against the wall clock at the chosen speed, re-anchored on every change so
a seek or a speed change never makes it rush to catch up). It knows no sockets or pages."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from sim_master.store.mcap_log import ReplayCycle, ReplayIndex, ReplayLogReader


class ReplayPlayer:
    def __init__(self, reader: ReplayLogReader, index: ReplayIndex, *, speed: float = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.reader, self.index = reader, index
        self.speed = speed  # times real time; 0 = as fast as possible
        self.paused = False
        self.current: ReplayCycle | None = None
        self._clock = clock
        self._cycles: Iterator[ReplayCycle] = reader.cycles()
        self._steps = 0  # cycles to show while paused
        self._anchor: tuple[float, float] | None = None  # (wall, sim) of the last re-anchoring
        self._pending: ReplayCycle | None = None  # read ahead by seek

    # ------------------------------------------------------------------ controls
    def pause(self) -> None:
        self.paused = True
        self._anchor = None

    def play(self) -> None:
        self.paused = False
        self._steps = 0
        self._anchor = None

    def step(self, cycles: int = 1) -> None:
        """While paused: show the next `cycles` cycles, then stay paused."""
        self.paused = True
        self._steps += max(1, cycles)

    def set_speed(self, speed: float) -> None:
        self.speed = speed
        self._anchor = None

    def seek(self, target: float) -> ReplayCycle | None:
        """Jump to the first cycle at or after `target` s (clamped to the log); it becomes the
        current cycle and is returned so that the caller shows it even while paused."""
        target = min(max(target, self.index.start), self.index.end)
        checkpoint = self.index.checkpoint_before(target)
        self._cycles = self.reader.cycles(checkpoint)
        self._pending = None
        found = None
        for cycle in self._cycles:
            found = cycle
            if cycle.time >= target - 1e-9:
                break
        self.current = found
        self._anchor = None
        return found

    # ------------------------------------------------------------------ playback
    def due(self) -> float:
        """Seconds until the next cycle should be shown (0: now; inf: paused, nothing to step)."""
        if self.paused:
            return 0.0 if self._steps > 0 else float("inf")
        if self.speed <= 0 or self._anchor is None or self.current is None:
            return 0.0
        wall, sim = self._anchor
        ahead = self._peek_time()
        if ahead is None:
            return 0.0
        return max(0.0, (ahead - sim) / self.speed - (self._clock() - wall))

    def next(self) -> ReplayCycle | None:
        """The next cycle (None at the end of the log: then the player pauses)."""
        cycle = self._pending if self._pending is not None else next(self._cycles, None)
        self._pending = None
        if cycle is None:
            self.pause()
            return None
        if self._steps > 0:
            self._steps -= 1
        self.current = cycle
        if self._anchor is None:
            self._anchor = (self._clock(), cycle.time)
        return cycle

    def _peek_time(self) -> float | None:
        if self._pending is None:
            self._pending = next(self._cycles, None)
        return None if self._pending is None else self._pending.time
