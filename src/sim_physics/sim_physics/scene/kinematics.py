"""Forward kinematics of a model spec: every link's world pose from the root link's pose and
the joint angles of a snapshot.

Why: the replay log keeps what the engines' snapshots keep (each entity's root pose and joint
angles), and monitors need every link. Computing the links from the model's own description
serves every engine's logs without building a physics engine to pose them."""
from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from sim_physics.snapshot import EntitySnapshot
from sim_physics.world.spec import JointSpec, ModelSpec
from sim_physics.world.transforms import Transform, matrix_quat, quat_matrix


def _axis_rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation by `angle` about the unit `axis` (Rodrigues)."""
    x, y, z = axis
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return np.eye(3) + np.sin(angle) * k + (1.0 - np.cos(angle)) * (k @ k)


class ModelKinematics:
    """A model's links in the order of its tree (root first), each with how it hangs from its
    parent: the zero-angle relative transform split around the joint's rotation."""

    def __init__(self, spec: ModelSpec) -> None:
        root = spec.root_link()
        by_parent: dict[str, list[tuple[str, JointSpec]]] = {}
        for joint in spec.joints:
            by_parent.setdefault(joint.parent, []).append((joint.child, joint))
        poses = {link.name: link.pose for link in spec.links}
        self.links: list[str] = [root.name]
        self.parent: list[int] = [-1]
        # per link: (parent-frame -> joint frame at zero angle, joint axis in the joint frame
        # or None for a fixed joint, joint frame -> link frame, joint name)
        self._chain: list[tuple[Transform, np.ndarray | None, Transform, str]] = [
            (Transform.identity(), None, Transform.identity(), "")]
        queue = [root.name]
        while queue:
            parent = queue.pop(0)
            for child, joint in by_parent.get(parent, []):
                parent_pose, child_pose = poses[parent], poses[child]
                anchor = Transform(np.asarray(joint.pose.pos, dtype=float), np.eye(3))
                before = parent_pose.inverse() @ anchor
                after = anchor.inverse() @ child_pose
                axis = None
                if joint.kind == "revolute":
                    a = np.asarray(joint.axis, dtype=float)
                    axis = a / (np.linalg.norm(a) or 1.0)
                self.links.append(child)
                self.parent.append(self.links.index(parent))
                self._chain.append((before, axis, after, joint.name))
                queue.append(child)

    def world_poses(self, root: Transform, angles: Mapping[str, float]) -> list[Transform]:
        """Every link's world pose (in `links` order) for the root link at `root`."""
        out: list[Transform] = [root]
        for i in range(1, len(self.links)):
            before, axis, after, joint = self._chain[i]
            pose = out[self.parent[i]] @ before
            if axis is not None:
                pose = pose @ Transform(np.zeros(3), _axis_rotation(axis, float(angles.get(joint, 0.0))))
            out.append(pose @ after)
        return out


class SnapshotFrames:
    """`frames()` of a world known only by snapshots: the ball and every robot's links, posed
    from the model specs. What replay shows, on any engine's log, with no engine built."""

    def __init__(self, specs: Mapping[str, ModelSpec]) -> None:
        self._specs = specs
        self._kinematics: dict[str, ModelKinematics] = {}

    def kinematics(self, model: str) -> ModelKinematics | None:
        spec = self._specs.get(model)
        if spec is None:
            return None
        kin = self._kinematics.get(model)
        if kin is None:
            kin = self._kinematics[model] = ModelKinematics(spec)
        return kin

    def frames(self, entities: Iterable[EntitySnapshot]) -> tuple[list[str], np.ndarray]:
        names: list[str] = []
        rows: list[np.ndarray] = []
        for e in entities:
            if e.name == "ball":
                names.append("ball")
                rows.append(np.array([*e.position, *e.orientation], dtype=float))
                continue
            kin = self.kinematics(e.model)
            if kin is None:
                continue
            root = Transform(np.asarray(e.position, dtype=float), quat_matrix(np.asarray(e.orientation, dtype=float)))
            angles = dict(zip(e.joint_names, e.joint_positions, strict=False))
            for link, pose in zip(kin.links, kin.world_poses(root, angles), strict=True):
                names.append(f"{e.name}/{link}")
                rows.append(np.concatenate([pose.pos, matrix_quat(pose.rot)]))
        return names, (np.array(rows) if rows else np.zeros((0, 7)))
