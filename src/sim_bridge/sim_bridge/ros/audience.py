"""Whether anybody subscribes to a publisher, asked of DDS a few times a second, not per cycle.

Why: a server with nobody listening should not pay for its topics. Asking rcl for a
publisher's subscription count is itself a call into C per topic per cycle (at 1000
cycles/s, a fifth of what the ROS node cost a cycle with no subscriber at all), so the
answer is kept for `period` seconds of wall time. A new subscriber is served from its next
look on; DDS discovery takes longer than that anyway."""
from __future__ import annotations

import time
import weakref
from collections.abc import Callable
from typing import Final, Protocol

REFRESH_S: Final = 0.25


class Counted(Protocol):
    def get_subscription_count(self) -> int: ...


class Audience:
    def __init__(self, period: float = REFRESH_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.period = period
        self._clock = clock
        # publisher -> (when asked, whether somebody listened); weak: a destroyed publisher's
        # entry goes with it, and a new one never inherits an old answer
        self._seen: weakref.WeakKeyDictionary[Counted, tuple[float, bool]] = weakref.WeakKeyDictionary()
        self.asked = 0  # how many times DDS was asked (tests, stats)

    def listening(self, publisher: Counted) -> bool:
        now = self._clock()
        seen = self._seen.get(publisher)
        if seen is None or now - seen[0] >= self.period:
            self.asked += 1
            seen = (now, publisher.get_subscription_count() > 0)
            self._seen[publisher] = seen
        return seen[1]
