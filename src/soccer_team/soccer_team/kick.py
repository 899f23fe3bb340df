"""The kick: the torso shifted over the standing foot, the kicking foot drawn back and lifted,
swung through the ball, set down, and the weight shifted back. The kick is written as where
the feet go (relative to the hips, in the walk's leaning frame) and turned into joint key
poses by the leg's closed-form solve (leg_kinematics), so the tuner (bench/tune_motion.py
--motion kick) searches a dozen figures a person can read instead of fifty joint angles.

A right-foot kick; the left one is its mirror image (keyframes.swapped). The ball should lie
about 0.19 m ahead of the torso, in front of the kicking foot.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import numpy as np

from soccer_team.figures import Figures
from soccer_team.keyframes import KeyframeMotion, KeyPose, swapped
from soccer_team.leg_kinematics import NAO0, LegGeometry, clip_to_limits, rot_y, solve_leg_reaching
from soccer_team.walk import LEG_JOINTS, WalkParams

# where the ball should lie for a kick: ahead of the torso and to the side of the kicking foot
# (m, the torso's axes, type 0's hips; kick_spot sets it out for wider ones), and how far off it
# may lie (the spots the kick was tuned on)
KICK_SPOT: Final = (0.185, 0.055)
KICK_REACH: Final = (0.035, 0.04)


def kick_spot(legs: LegGeometry = NAO0, spot: tuple[float, float] = KICK_SPOT) -> tuple[float, float]:
    """`spot` (a ball place for type 0's hips) for these legs: as far out as the foot is (nao3's
    hips are wider)."""
    return spot[0], spot[1] + legs.hip_y - NAO0.hip_y


@dataclass(frozen=True, slots=True)
class KickParams(Figures):
    """A right-foot kick's figures (m, s, rad). The defaults are the tuned ones (docs/team.md).
    Places are the ankle's from its hip, on the legs they are for (the defaults: type 0's;
    kick_params gives a type's); one beyond the leg's reach (0.22 m on type 0) stretches the leg
    towards it, which the tuned kick does with the standing leg (height) and the swing's end."""

    shift: float = 0.0382  # the torso's sideways shift over the standing foot, m
    lean: float = 0.1316  # the torso's forward lean while kicking, rad
    height: float = 0.2307  # the standing ankle below its hip, m
    back_x: float = -0.0947  # the kicking ankle drawn back (ahead of its hip), m
    back_z: float = 0.0568  # and lifted, m
    swing_x: float = 0.2384  # the kicking ankle at the end of the swing, m
    swing_z: float = 0.0342  # and its height then, m
    swing_y: float = 0.0063  # how far the swing reaches inwards, m
    through_z: float = 0.0597  # the kicking ankle's height halfway through the swing, m
    toe: float = -0.0067  # the kicking foot's pitch in the swing (rad; + lifts the toes)
    swing_lean: float = 0.0  # the torso's extra lean through the swing: the body lunges into the kick, rad
    t_shift: float = 0.3792  # s
    t_back: float = 0.3041
    t_swing: float = 0.1263  # back to through, and through to the swing's end: half each
    t_return: float = 0.5385
    t_settle: float = 0.4321



def _both_legs(lean: float, left: tuple[float, float, float], right: tuple[float, float, float],
               right_pitch: float = 0.0, legs: LegGeometry = NAO0) -> dict[str, float]:
    """Both legs' joint angles (degrees, by perceptor name) for ankles at `left` and `right`
    (m from each hip, in the frame leaning forward by `lean`), feet level with the ground
    (the right one pitched by `right_pitch`)."""
    level_to_torso = rot_y(-lean)
    out: dict[str, float] = {}
    for side, place, pitch in (("l", left, 0.0), ("r", right, right_pitch)):
        q = solve_leg_reaching(side, level_to_torso @ np.array(place), level_to_torso @ rot_y(-pitch), legs)
        for name, angle in zip(LEG_JOINTS[side], clip_to_limits(side, q), strict=True):
            out[name] = math.degrees(angle)
    return out


# Kicks tuned for a robot type of their own (bench/tune_motion.py --motion kick --model M), in
# that type's places: nao3's longer, wider-set legs miss the ball with type 0's kick scaled.
TUNED_KICKS: Final[dict[str, KickParams]] = {
    "nao3": KickParams(
        shift=0.053, lean=0.0993, height=0.2397, back_x=-0.131, back_z=0.118, swing_x=0.3244, swing_z=0.034,
        swing_y=-0.0085, through_z=0.0693, toe=-0.0138, swing_lean=-0.0372, t_shift=0.4043, t_back=0.3022,
        t_swing=0.1429, t_return=0.4102, t_settle=0.4846),
}


def kick_params(model: str, legs: LegGeometry) -> KickParams:
    """The kick a robot type (nao, nao0 ... nao4) plays: its own tuned one, or type 0's scaled
    to its legs."""
    from sim_physics.engine.common import MODEL_ALIASES

    return TUNED_KICKS.get(MODEL_ALIASES.get(model, model)) or for_legs(KickParams(), legs)


def for_legs(k: KickParams, legs: LegGeometry) -> KickParams:
    """The kick's places scaled by the legs' length over type 0's, for which they were tuned:
    the same joint angles, so the same motion on longer legs (nao1 kicks 3.1-3.6 m so)."""
    r = (legs.thigh + legs.shank) / (NAO0.thigh + NAO0.shank)
    if r == 1.0:
        return k
    return k.with_(height=k.height * r, back_x=k.back_x * r, back_z=k.back_z * r, swing_x=k.swing_x * r,
                   swing_z=k.swing_z * r, through_z=k.through_z * r, swing_y=k.swing_y * r)


def right_kick_poses(k: KickParams, walk: WalkParams | None = None, legs: LegGeometry = NAO0) -> list[KeyPose]:
    """The key poses of a right-foot kick, ending in the walk's standing pose, for `legs` (`k`'s
    places are these legs' own: kick_params gives them)."""
    w = walk or WalkParams()

    def _legs(lean: float, left: tuple[float, float, float], right: tuple[float, float, float],
              right_pitch: float = 0.0) -> dict[str, float]:
        return _both_legs(lean, left, right, right_pitch, legs)

    x0, y0 = w.x_offset, w.width
    stand = _legs(w.lean, (x0, y0, -w.height * legs.stance), (x0, -y0, -w.height * legs.stance))
    left = (x0, y0 - k.shift, -k.height)  # the standing foot under the torso
    right_y = -y0 - k.shift
    shifted = _legs(k.lean, left, (x0, right_y, -k.height))
    back = _legs(k.lean, left, (k.back_x, right_y, -k.height + k.back_z))
    lunge = k.lean + k.swing_lean
    halfway = ((k.back_x + k.swing_x) / 2, right_y + k.swing_y / 2, -k.height + k.through_z)
    through = _legs(k.lean + k.swing_lean / 2, left, halfway, k.toe / 2)
    swing = _legs(lunge, left, (k.swing_x, right_y + k.swing_y, -k.height + k.swing_z), k.toe)
    returned = _legs(k.lean, left, (x0, right_y, -k.height + 0.02))
    return [KeyPose(k.t_shift, shifted), KeyPose(k.t_back, back), KeyPose(k.t_swing / 2, through),
            KeyPose(k.t_swing / 2, swing), KeyPose(k.t_return, returned), KeyPose(k.t_settle, stand)]


def kick_motion(foot: str, params: KickParams | None = None, legs: LegGeometry = NAO0) -> KeyframeMotion:
    """A kick with the left ("l") or right ("r") foot, for a robot with `legs` (`params`: its
    own figures; None: type 0's scaled to the legs)."""
    poses = right_kick_poses(params or for_legs(KickParams(), legs), legs=legs)
    if foot == "l":
        poses = [KeyPose(p.seconds, swapped(p.angles)) for p in poses]
    return KeyframeMotion(f"kick_{foot}", poses)
