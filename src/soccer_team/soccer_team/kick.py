"""The kick: weight onto the standing leg, the kicking leg drawn back, then swung through the
ball, then both feet back under the body. Key poses for a right-foot kick (the left one is its
mirror image, keyframes.swapped), tuned on the engine for distance (bench/tune_motion.py
--motion kick). The ball should lie about 0.17 m ahead of the torso, in front of the foot."""
from __future__ import annotations

from soccer_team.keyframes import KeyframeMotion, KeyPose, swapped

# the joints a kick pose sets, in the tuner's order
KICK_JOINTS = ("llj2", "llj3", "llj4", "llj5", "llj6", "rlj2", "rlj3", "rlj4", "rlj5", "rlj6")

# tuned poses for a right-foot kick: (seconds, angles in KICK_JOINTS' order, degrees)
RIGHT_KICK: tuple[tuple[float, tuple[float, ...]], ...] = (
    (0.3, (-7.0, 28.0, -56.0, 28.0, 7.0, -7.0, 28.0, -56.0, 28.0, 7.0)),
    (0.25, (-7.0, 28.0, -56.0, 28.0, 7.0, -7.0, 10.0, -90.0, 40.0, 7.0)),
    (0.12, (-7.0, 28.0, -56.0, 28.0, 7.0, -7.0, 60.0, -15.0, 0.0, 7.0)),
    (0.4, (0.0, 28.0, -56.0, 28.0, 0.0, 0.0, 28.0, -56.0, 28.0, 0.0)),
)


def motion_from(table: tuple[tuple[float, tuple[float, ...]], ...], foot: str) -> KeyframeMotion:
    poses = []
    for seconds, angles in table:
        pose = dict(zip(KICK_JOINTS, angles, strict=True))
        poses.append(KeyPose(seconds, pose if foot == "r" else swapped(pose)))
    return KeyframeMotion(f"kick_{foot}", poses)


def kick_motion(foot: str, table: tuple[tuple[float, tuple[float, ...]], ...] = RIGHT_KICK) -> KeyframeMotion:
    """A kick with the left ("l") or right ("r") foot."""
    return motion_from(table, foot)
