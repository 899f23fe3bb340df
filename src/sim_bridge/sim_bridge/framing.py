"""The length-prefixed framing of every legacy port: 4-byte big-endian length, payload.

Both reference servers trust the prefix (rcssserver3d crashes on 0xFFFFFFFC and up,
rcsssmj allocates whatever it says); here a zero or oversized length is an error for that
connection only."""
from __future__ import annotations

import struct
from typing import Final

DEFAULT_MAX_MESSAGE: Final = 64 * 1024
_HEADER: Final = struct.Struct(">I")


class FramingError(ValueError):
    """The peer broke the framing; its connection must be closed."""


def encode_frame(payload: bytes) -> bytes:
    return _HEADER.pack(len(payload)) + payload


def frame_header(payload: bytes) -> bytes:
    """The length prefix alone (sent gathered with the payload, no copy of it)."""
    return _HEADER.pack(len(payload))


class FrameDecoder:
    """Reassembles frames from a byte stream."""

    __slots__ = ("max_size", "_buf")

    def __init__(self, max_size: int = DEFAULT_MAX_MESSAGE) -> None:
        self.max_size = max_size
        self._buf = bytearray()

    @property
    def pending(self) -> int:
        """Bytes received but not yet part of a whole frame (a stall shows here)."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[bytes]:
        buf = self._buf
        if not buf and len(data) >= 4:  # the usual read: exactly one whole frame, nothing kept
            (size,) = _HEADER.unpack_from(data)
            if 0 < size <= self.max_size and len(data) == 4 + size:
                return [data[4:]]
        self._buf += data
        frames: list[bytes] = []
        pos = 0
        while len(buf) - pos >= 4:
            (size,) = _HEADER.unpack_from(buf, pos)
            if size == 0:
                raise FramingError("zero-length frame")
            if size > self.max_size:
                raise FramingError(f"frame of {size} bytes exceeds the limit of {self.max_size}")
            if len(buf) - pos - 4 < size:
                break
            frames.append(bytes(buf[pos + 4:pos + 4 + size]))
            pos += 4 + size
        if pos:
            del buf[:pos]
        return frames
