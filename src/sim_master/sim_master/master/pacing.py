"""Real-time pacing: one cycle per 20 ms of wall time. When the server falls behind it
drops the backlog instead of catching up (as rcssserver3d's TimerSystemBoost does), so a
hiccup never turns into a burst of fast cycles."""
from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(slots=True)
class RealTimePacer:
    period: float = 0.02
    _next: float = field(default=0.0)
    dropped: int = 0

    def wait(self) -> None:
        """Sleep until the next cycle is due."""
        now = time.monotonic()
        if self._next == 0.0:
            self._next = now
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
