"""Other robots' parts are seen at their bodies' centres, as rcssserver3d's ObjectState sits
on the body: a lower arm 5 cm along the arm from the elbow, a foot 4.6 cm from the ankle (issue
29: they were seen at the link origins, the joints). The head's centre is its origin."""
from __future__ import annotations

import numpy as np
import pytest
from sim_physics.engine.factory import physics_engine

CENTRES = {"llowerarm": (0.05, 0.0, 0.0), "rlowerarm": (0.05, 0.0, 0.0), "lfoot": (0.03, 0.0, -0.035),
           "rfoot": (0.03, 0.0, -0.035), "head": (0.0, 0.0, 0.0)}  # in the link frame (nao0.sdf)


def _rot(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


@pytest.mark.parametrize("kind", ["ode", "mujoco", "gazebo"])
def test_parts_are_seen_at_their_bodies_centres(kind: str) -> None:
    engine = physics_engine(kind, "simspark_field", vision_noise=False, seed=1)
    engine.add_robot("a", "nao", -1.0, 0.0, 0.0)  # looks along +x
    engine.add_robot("b", "nao", 0.0, 0.0, 180.0)  # faces it: its arms and feet point at a
    engine.set_label("a", "Alpha", 1)
    engine.set_label("b", "Beta", 1)
    engine.step()
    vision = engine.percept("a", vision=True).vision
    assert vision is not None
    seen = {part: polar.distance for p in vision.players if p.team == "Beta" for part, polar in p.parts.items()}
    names, poses = engine.frames()
    pose = dict(zip(names, poses, strict=True))
    camera = pose["a/head"][:3]
    for part, centre in CENTRES.items():
        if part not in seen:
            continue
        link = pose[f"b/{part}"]
        at_centre = link[:3] + _rot(link[3:7]) @ np.array(centre)
        assert seen[part] == pytest.approx(float(np.linalg.norm(at_centre - camera)), abs=0.004), part
        if any(centre):  # not where the joint is
            assert abs(seen[part] - float(np.linalg.norm(link[:3] - camera))) > 0.008, part
    assert {"llowerarm", "rlowerarm", "lfoot", "rfoot"} <= set(seen)
