"""The /tf bytes the log and the live node send are rclpy's serialization of the /tf
messages for every robot model and the ball (tf_cdr.py plans them once): the same length and
every field alike (rclpy leaves its alignment padding unset, so raw bytes differ there)."""
from __future__ import annotations

import numpy as np
from builtin_interfaces.msg import Time
from rclpy.serialization import deserialize_message, serialize_message
from sim_physics.engine.factory import physics_engine

from sim_master.ros.frames import tf_cdr, tf_message, tf_messages
from tf2_msgs.msg import TFMessage


def _engine():
    engine = physics_engine("ode", "simspark_field", vision_noise=False)
    for t in range(5):
        engine.add_robot(f"Alpha/p{t + 1}", f"nao{t}", -4.0 + 1.5 * t, 2.0, 30.0 * t)
    engine.add_robot("Beta/p1", "pusher", 3.0, -2.0, 90.0)
    for _ in range(30):  # the robots fall and tilt: relative poses that are not trivial
        engine.step()
    return engine


def test_the_planned_bytes_are_rclpys_serialization_of_the_messages() -> None:
    engine = _engine()
    names, poses = engine.frames()
    models = {rid: engine.robot_model(rid) for rid in engine.robot_ids()}
    t = Time(sec=12, nanosec=340_000_000)
    data = tf_cdr(names, poses, t, models)
    theirs = serialize_message(tf_message(names, poses, t, models))
    msg = deserialize_message(data, TFMessage)
    assert len(data) == len(theirs) and msg == deserialize_message(theirs, TFMessage)
    assert len(msg.transforms) == len(names)  # every link and the ball: fixed joints too
    assert {tr.child_frame_id for tr in msg.transforms} == set(names)
    assert all(tr.header.stamp.sec == 12 and tr.header.stamp.nanosec == 340_000_000 for tr in msg.transforms)


def test_a_child_is_placed_where_the_engine_has_it() -> None:
    """Composing each transform down its robot's tree gives the engine's world pose back."""
    engine = _engine()
    names, poses = engine.frames()
    models = {rid: engine.robot_model(rid) for rid in engine.robot_ids()}
    msg = tf_message(names, poses, Time(), models)
    world: dict[str, tuple[np.ndarray, np.ndarray]] = {"world": (np.zeros(3), np.array([1.0, 0, 0, 0]))}

    def mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.array([a[0] * b[0] - a[1:] @ b[1:], *(a[0] * b[1:] + b[0] * a[1:] + np.cross(a[1:], b[1:]))])

    pending = list(msg.transforms)
    while pending:
        tr = pending.pop(0)
        if tr.header.frame_id not in world:
            pending.append(tr)
            continue
        p, q = world[tr.header.frame_id]
        v, r = tr.transform.translation, tr.transform.rotation
        local = np.array([v.x, v.y, v.z])
        rotated = mul(mul(q, np.array([0.0, *local])), q * np.array([1, -1, -1, -1]))[1:]
        world[tr.child_frame_id] = (p + rotated, mul(q, np.array([r.w, r.x, r.y, r.z])))
    for i, name in enumerate(names):
        pos, quat = world[name]
        assert np.allclose(pos, poses[i][:3], atol=1e-9), name
        assert min(np.abs(quat - poses[i][3:]).max(), np.abs(quat + poses[i][3:]).max()) < 1e-9, name


def test_the_live_node_sends_fixed_joints_once() -> None:
    engine = _engine()
    names, poses = engine.frames()
    models = {rid: engine.robot_model(rid) for rid in engine.robot_ids()}
    done: set[str] = set()
    moving, fixed = tf_messages(names, poses, models, Time(), done)
    assert done == set(models)
    assert fixed and len(moving.transforms) + len(fixed) == len(names)
    again, fixed_again = tf_messages(names, poses, models, Time(), done)
    assert not fixed_again and len(again.transforms) == len(moving.transforms)
    ours = tf_cdr(names, poses, Time(), models, fixed=False)
    assert len(ours) == len(serialize_message(again)) and deserialize_message(ours, TFMessage) == again
