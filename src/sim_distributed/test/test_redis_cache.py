"""The Redis cache on a real redis-server: keyframes + deltas rebuild the world; a second
client (a restarted node) sees the same state; registry, heartbeats and master state."""
from __future__ import annotations

from sim_distributed.redis_cache import SnapshotCache
from sim_physics.engine.mujoco.engine import MujocoEngine


def test_keyframes_and_deltas_rebuild_the_world(redis_server: str) -> None:
    engine = MujocoEngine(vision_noise=False)
    engine.add_robot("left_1", "nao", -3.0, 0.0, 0.0)
    engine.set_joint_velocities("left_1", {"he1": 1.0})
    engine.set_ball((0.0, 0.0, 0.3), (1.0, 0.5, 0.0))
    cache = SnapshotCache(redis_server, "t1", keyframe_every=100)
    engine.delta()
    for _ in range(250):
        engine.step()
        cache.put(engine.snapshot(), engine.delta())
    reference = engine.snapshot()
    restarted = SnapshotCache(redis_server, "t1", keyframe_every=100)
    latest = restarted.latest()
    assert latest is not None and latest.step == 250 == reference.step
    assert latest.digest() == reference.digest()
    assert restarted.r.xlen(restarted.prefix + "deltas") == 50  # steps 201..250: trimmed at the keyframe of step 200
    other = MujocoEngine(vision_noise=False)
    other.apply_snapshot(latest)
    assert other.snapshot().digest() == reference.digest()


def test_registry_heartbeats_and_master_state(redis_server: str) -> None:
    cache = SnapshotCache(redis_server, "t2")
    cache.register_node("A", {"engine": "mujoco", "host": "10.200.0.1"})
    cache.heartbeat("A", 42)
    cache.save_master_state({"step": 42, "nodes": ["A"]})
    again = SnapshotCache(redis_server, "t2")
    assert again.nodes() == {"A": {"engine": "mujoco", "host": "10.200.0.1"}}
    assert again.last_heartbeat("A")["step"] == 42
    assert again.load_master_state() == {"step": 42, "nodes": ["A"]}
    assert SnapshotCache(redis_server, "other-run").latest() is None
