"""The pipelined Redis connection against a real redis-server: replies are read later,
errors are raised on drain, and what it wrote reads back through redis-py."""
from __future__ import annotations

import pytest
import redis
from sim_distributed.cache_writer import PipelinedCacheWriter
from sim_distributed.redis_cache import SnapshotCache
from sim_distributed.resp import PipelinedConnection, RedisReplyError, encode
from sim_physics.snapshot import EntitySnapshot, Snapshot


def test_encoding_is_resp_arrays_of_bulk_strings() -> None:
    assert encode(("SET", "k", b"\x00\xff", 12)) == b"*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\n\x00\xff\r\n$2\r\n12\r\n"


def test_commands_sent_now_are_in_redis_and_errors_surface_on_drain(redis_server: str) -> None:
    url = redis_server.rsplit("/", 1)[0] + "/3"  # a db other than 0: SELECT is sent
    conn = PipelinedConnection(url)
    conn.send([("SET", "resp:test", b"\x00binary\r\n"), ("XADD", "resp:stream", "*", "a", "1"), ("DEL", "resp:none")])
    conn.drain()
    r = redis.Redis.from_url(url)
    assert r.get("resp:test") == b"\x00binary\r\n" and r.xlen("resp:stream") == 1
    conn.send([("INCR", "resp:test"), ("SET", "resp:after", "1")])  # INCR on a non-number: an error
    with pytest.raises(RedisReplyError, match="not an integer"):
        conn.drain()
    assert r.get("resp:after") == b"1"  # the error cost nothing else
    conn.close()


def test_writer_steps_read_back_as_the_latest_world(redis_server: str) -> None:
    cache = SnapshotCache(redis_server, "resp-writer", keyframe_every=3)
    cache.clear()
    writer = PipelinedCacheWriter(cache, redis_server)
    world = Snapshot(0, 0.0, True, {})
    for step in range(1, 8):
        delta = Snapshot(step, step * 0.02, False, {"p": EntitySnapshot("p", (step * 0.1, 0.0, 0.0), owner="A")})
        world = world.merged(delta)
        writer.put(world, delta, {"step": step})
    writer.flush()
    latest = cache.latest()
    assert latest is not None and latest.step == 7 and latest.entities["p"].position[0] == pytest.approx(0.7)
    assert cache.load_master_state() == {"step": 7}
    writer.close()
