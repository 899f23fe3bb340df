"""The listening socket every TCP port of the bridge starts with."""
from __future__ import annotations

import socket


def open_listener(host: str, port: int, backlog: int = 128) -> socket.socket:
    """Bound, listening, non-blocking; port 0 picks a free one (read getsockname())."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
        listener.listen(backlog)
    except OSError:
        listener.close()
        raise
    listener.setblocking(False)
    return listener
