"""Motions tried on a real engine, one robot, no server: how fast a walk goes, whether it falls,
how far a kick sends the ball. The player's timing is the server's in sync mode: the percept of
a cycle's state is answered with speeds that act in the next step.

Why here and not in a test only: the walk's figures are tuned by running these trials many
times (bench/tune_walk.py), and the tests and the docs quote the same trials.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sim_contracts.percept import Percept

Brain = Callable[[Percept], dict[str, float]]


@dataclass(frozen=True, slots=True)
class TrialResult:
    seconds: float
    forward: float  # m travelled along the robot's first heading
    sideways: float  # m to its left
    turned: float  # rad, counter-clockwise
    fell: bool
    fell_at: float  # s, or -1

    @property
    def speeds(self) -> tuple[float, float, float]:
        s = max(self.seconds, 1e-9)
        return self.forward / s, self.sideways / s, self.turned / s


def make_engine(engine: str = "ode") -> Any:
    """A world with the SimSpark field and no robot yet, on `engine` (ode, gazebo, mujoco)."""
    from sim_physics.engine.factory import physics_engine

    return physics_engine(engine, "simspark_field", vision_noise=False, seed=1, physics_threads=1)


def torso_up(quaternion: tuple[float, float, float, float]) -> float:
    """The z of the torso's up axis (1 upright, 0 lying)."""
    w, x, y, z = quaternion
    return 1.0 - 2.0 * (x * x + y * y)


def yaw_of(quaternion: tuple[float, float, float, float]) -> float:
    w, x, y, z = quaternion
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def run_robot(engine: Any, robot: str, brain: Brain, cycles: int, *, fallen_z: float = 0.22,
              stop_on_fall: bool = True, each: Callable[[int], None] | None = None,
              delay: int = 0, queue: list[dict[str, float]] | None = None) -> tuple[bool, int]:
    """Drive `robot` with `brain` for `cycles`; (fell, cycle it fell at or -1). `delay`: the
    answers act that many cycles late, as the SimSpark port's do (its effector delay); `queue`
    carries the answers in flight from one call to the next."""
    pending = queue if queue is not None else []
    for cycle in range(cycles):
        percept = engine.percept(robot, vision=False)
        pending.append(brain(percept))
        if len(pending) > delay:
            engine.set_joint_velocities(robot, pending.pop(0))
        engine.step()
        if each is not None:
            each(cycle)
        (_, _, z), q = engine.robot_pose(robot)
        if z < fallen_z or torso_up(q) < 0.6:
            if stop_on_fall:
                return True, cycle
    return False, -1


def walk_trial(brain_factory: Callable[[], Any], command: tuple[float, float, float], seconds: float,
               engine_name: str = "ode", settle: float = 1.0, delay: int = 0, model: str = "nao0") -> TrialResult:
    """A robot (`model`) stands for `settle` s, then walks at `command` for `seconds`; its
    answers act `delay` cycles late."""
    engine = make_engine(engine_name)
    engine.add_robot("a", model, 0.0, 0.0, 0.0)
    brain = brain_factory()
    from soccer_team.leg_kinematics import legs_of

    if getattr(brain, "legs", None) not in (None, legs_of(model)):
        raise ValueError(f"the brain's legs are not {model}'s: MotionBrain(legs=legs_of({model!r}))")
    queue: list[dict[str, float]] = []
    fell, at = run_robot(engine, "a", brain.act, int(settle / 0.02), delay=delay, queue=queue)
    (x0, y0, _), q0 = engine.robot_pose("a")
    yaw0 = yaw_of(q0)
    turned = 0.0
    last = yaw0

    def count_turn(_: int) -> None:
        nonlocal turned, last
        yaw = yaw_of(engine.robot_pose("a")[1])
        turned += math.atan2(math.sin(yaw - last), math.cos(yaw - last))
        last = yaw

    if not fell:
        brain.walk.set_command(*command)
        fell, at = run_robot(engine, "a", brain.act, int(seconds / 0.02), each=count_turn, delay=delay, queue=queue)
    (x1, y1, _), _ = engine.robot_pose("a")
    dx, dy = x1 - x0, y1 - y0
    c, s = math.cos(yaw0), math.sin(yaw0)
    done = (at + 1) * 0.02 if fell else seconds
    return TrialResult(done, c * dx + s * dy, -s * dx + c * dy, turned, fell, at * 0.02 if fell else -1.0)


@dataclass(frozen=True, slots=True)
class KickResult:
    distance: float  # m the ball went forward (along the robot's heading)
    sideways: float  # m it went to the robot's left
    fell: bool


def kick_trial(foot: str, params: Any = None, ball_at: tuple[float, float] = (0.19, 0.055),
               engine_name: str = "ode", roll_for: float = 4.0, delay: int = 0, model: str = "nao0") -> KickResult:
    """A robot stands for a second, then kicks (kick.KickParams, default the tuned ones) a ball
    lying `ball_at` (ahead of the torso, to the side of the kicking foot, m); how far did the
    ball go by the time it stopped (or `roll_for` s)? `delay`: the answers act that many
    cycles late (1 over a SimSpark port), and the player knows it. `model`: the robot type
    (nao0 ... nao4), whose kick it plays (`params` None: kick.kick_params's)."""
    from soccer_team.kick import kick_motion, kick_params
    from soccer_team.leg_kinematics import legs_of
    from soccer_team.motion import MotionBrain

    engine = make_engine(engine_name)
    engine.add_robot("a", model, 0.0, 0.0, 0.0)
    brain = MotionBrain(effector_delay=delay, legs=legs_of(model))
    queue: list[dict[str, float]] = []
    run_robot(engine, "a", brain.act, 50, delay=delay, queue=queue)
    (x0, y0, _), _ = engine.robot_pose("a")
    side = 1.0 if foot == "l" else -1.0
    engine.set_ball((x0 + ball_at[0], y0 + side * ball_at[1], 0.042))
    brain.play(kick_motion(foot, params or kick_params(model, brain.legs), brain.legs))
    fell, _ = run_robot(engine, "a", brain.act, int(roll_for / 0.02), stop_on_fall=False, delay=delay, queue=queue)
    bx, by, _ = engine.ball_position()
    (_, _, z), q = engine.robot_pose("a")
    return KickResult(bx - x0 - ball_at[0], by - y0 - side * ball_at[1], z < 0.22 or torso_up(q) < 0.6)
