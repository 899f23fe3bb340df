"""Framing: whole frames out of any chunking; zero and oversized lengths are errors."""
from __future__ import annotations

import struct

import pytest

from sim_bridge.framing import FrameDecoder, FramingError, encode_frame


def test_frames_survive_any_chunking() -> None:
    stream = b"".join(encode_frame(p) for p in (b"(syn)", b"(he1 1.5)" * 100, b"x"))
    for chunk in (1, 3, 7, 4096):
        decoder = FrameDecoder()
        frames = []
        for i in range(0, len(stream), chunk):
            frames += decoder.feed(stream[i:i + chunk])
        assert frames == [b"(syn)", b"(he1 1.5)" * 100, b"x"] and decoder.pending == 0


@pytest.mark.parametrize("length", [0, 0xFFFFFFFD, 65537])
def test_bad_lengths_raise(length: int) -> None:
    with pytest.raises(FramingError):
        FrameDecoder(max_size=65536).feed(struct.pack(">I", length) + b"abc")


def test_half_a_message_stays_pending() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(struct.pack(">I", 10) + b"(syn") == []
    assert decoder.pending == 8
