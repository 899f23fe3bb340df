"""How much of a client's text a log line or an answer quotes, written once: the bridge
(dropped connections), the loop (complaints about agents) and the service boundaries cut
what a peer sent to this, so no client can make one line megabytes long."""
from __future__ import annotations

from typing import Final

MAX_TEXT: Final = 200  # characters of quoted text (a 60 kB model name is not logged whole)


def clip(text: str, limit: int = MAX_TEXT) -> str:
    """The text cut to `limit` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"
