"""A token bucket: the one shape of every per-sender budget on the server's ports (trainer
commands a second on a monitor port, parse time a second on the draw port).

Why one: each surface that any local process can write to has a budget per sender; written
once, they refill and run into debt the same way."""
from __future__ import annotations


class TokenBucket:
    """`rate` tokens a second, up to one second's worth saved (starting with `start` of that);
    `charge` may run it into debt (a cost known only after the work is done)."""

    __slots__ = ("rate", "tokens", "at")

    def __init__(self, rate: float, now: float, start: float = 1.0) -> None:
        self.rate, self.tokens, self.at = rate, rate * start, now

    def level(self, now: float) -> float:
        """The tokens there are now."""
        self.tokens = min(self.rate, self.tokens + (now - self.at) * self.rate)
        self.at = now
        return self.tokens

    def has(self, now: float) -> bool:
        return self.level(now) > 0

    def take(self, amount: float, now: float) -> bool:
        """Take `amount` if there is as much; False (nothing taken) otherwise."""
        if self.level(now) < amount:
            return False
        self.tokens -= amount
        return True

    def charge(self, amount: float, now: float) -> None:
        self.level(now)
        self.tokens -= amount
