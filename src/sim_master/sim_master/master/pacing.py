"""Real-time pacing: one cycle per 20 ms of wall time. When the server falls behind it
drops the backlog instead of catching up (as rcssserver3d's TimerSystemBoost does), so a
hiccup never turns into a burst of fast cycles. Falling behind for good is said, not hidden:
the pacer measures game time against wall time over windows of LAG_WINDOW_S and the loop
says once when a window ran below LAG_RATIO of real time (and once when it is back); the
ratio is in `simulation stats`."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

LAG_WINDOW_S = 10.0  # wall seconds per measurement
LAG_RATIO = 0.9  # below this share of real time a window is "behind"


@dataclass(slots=True)
class RealTimePacer:
    period: float = 0.02
    _next: float = field(default=0.0)
    dropped: int = 0
    ratio: float | None = None  # game time / wall time over the last whole window (None: none yet)
    behind: bool = False
    _window_start: float | None = None
    _window_cycles: int = 0
    said: list[str] = field(default_factory=list)  # for the loop to log

    def measure(self, now: float) -> str | None:
        """Count one cycle; at the end of a window, what changed to say (or None)."""
        if self._window_start is None:
            self._window_start = now
        self._window_cycles += 1
        elapsed = now - self._window_start
        if elapsed < LAG_WINDOW_S:
            return None
        self.ratio = self._window_cycles * self.period / elapsed
        self._window_start, self._window_cycles = now, 0
        if self.ratio < LAG_RATIO and not self.behind:
            self.behind = True
            return (f"real time: falling behind, {self.ratio:.2f}x real time over the last {elapsed:.0f} s "
                    f"(the machine cannot step this match at 50 cycles/s; the game clock runs slow)")
        if self.ratio >= LAG_RATIO and self.behind:
            self.behind = False
            return f"real time: back to {self.ratio:.2f}x real time"
        return None

    def wait(self) -> None:
        """Sleep until the next cycle is due."""
        now = time.monotonic()
        if self._next == 0.0:
            self._next = now
        said = self.measure(now)
        if said is not None:
            self.said.append(said)
        delay = self._next - now
        if delay > 0:
            time.sleep(delay)
        elif delay < -self.period:
            self.dropped += int(-delay / self.period)
            self._next = now
        self._next += self.period

    def remaining(self) -> float:
        """Seconds left until the next cycle is due (never negative)."""
        return max(0.0, self._next - time.monotonic())
