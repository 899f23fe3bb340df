"""A physics step that fails never ends the match: what every engine does when its library
gives up or its world explodes.

Why: agents that learn flail at full speed, pile onto the ball and beam onto one spot; a
trainer can drop 22 robots on each other. ODE then fails an assertion or its solver, MuJoCo
warns and resets the whole world, DART returns NaN. The reference servers die or reset; a
match here goes on. Every engine checks its state after each step (`health`, whole arrays,
microseconds), and on a fault rolls the world back to the start of the step, separates the
robots that crowd each other (as a referee clears a pile: each is beamed upright a little
apart), logs one line (at most one a second, with the count since) and goes on."""
from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable
from typing import Final, Protocol

import numpy as np

from sim_contracts.field import WORLD_MARGIN, FieldSpec
from sim_hotpath import state_health

# A state no step of a soccer match produces: a robot's link faster than this (a falling Nao's
# hand moves at about 5 m/s, a kicking foot at 3; a hard contact spins a foot at 200 rad/s for
# a step in a real FC Portugal v UT Austin Villa match, which is not an explosion), the ball
# faster than any kick or trainer throw, anything spinning past these, anything far off the
# ground. An ODE or DART explosion grows by orders of magnitude per step: it passes these at once.
ROBOT_SPEED: Final = 50.0  # m/s
ROBOT_SPIN: Final = 1000.0  # rad/s
BALL_SPEED: Final = 250.0  # m/s (a trainer may throw it at 100 m/s per axis)
BALL_SPIN: Final = 5000.0  # rad/s
# Steps this much longer than the cycle they simulate are a pile the solver grinds on (DART
# took 12 s per step for six Naos dropped on one spot): the crowd is taken apart.
SLOW_STEP: Final = 0.5  # s of wall-clock time
SLOW_STEPS: Final = 3  # in a row (one slow step is a busy machine or a collector's pause)
MIN_APART: Final = 0.4  # m between two robots' roots a placement keeps (a Nao is 0.3 m across its arms)
CROWD_RADIUS: Final = 0.45  # m between two robots' roots from which they count as one crowd
SPACING: Final = 0.8  # m between the robots of a separated crowd
LOG_EVERY: Final = 1.0  # s between two fault lines

_log = logging.getLogger("soccersim.physics")


def health_limits(robot_links: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per link, the squared speed and spin limits of health() (robots' or the ball's)."""
    return (np.where(robot_links, ROBOT_SPEED, BALL_SPEED) ** 2, np.where(robot_links, ROBOT_SPIN, BALL_SPIN) ** 2)


def health(poses: np.ndarray, twists: np.ndarray, robot_links: np.ndarray,
           limits: tuple[np.ndarray, np.ndarray] | None = None) -> str | None:
    """Why a state (link poses (L, 7), twists (L, 6); robot_links: bool (L,), the rest is the
    ball and free entities; limits: health_limits(robot_links), kept by the caller) cannot be
    played on, or None. One compiled pass (sim_hotpath.state_health): it runs after every
    step; `health_reference` is the same check in numpy, kept for the tests."""
    if len(poses) == 0:
        return None
    speed_limit, spin_limit = limits if limits is not None else health_limits(robot_links)
    what, value = state_health(poses, twists, speed_limit, spin_limit, -WORLD_MARGIN, 10 * WORLD_MARGIN)
    return None if what == 0 else _health_message(what, value)


def _health_message(what: int, value: float) -> str:
    if what == 1:
        return "a state that is not finite"
    if what == 2:
        return f"a link at {value:.0f} m/s"
    if what == 3:
        return f"a link spinning at {value:.0f} rad/s"
    return f"a link at height {value:.0f} m"


def health_reference(poses: np.ndarray, twists: np.ndarray, robot_links: np.ndarray) -> str | None:
    """health() in numpy: what the compiled check must say on every state."""
    if len(poses) == 0:
        return None
    if not (np.isfinite(poses).all() and np.isfinite(twists).all()):  # a NaN or an inf anywhere
        return _health_message(1, 0.0)
    speed_limit, spin_limit = health_limits(robot_links)
    sq = twists * twists
    speed = sq[:, 0] + sq[:, 1] + sq[:, 2]
    spin = sq[:, 3] + sq[:, 4] + sq[:, 5]
    if (speed > speed_limit).any():
        return _health_message(2, math.sqrt(float(speed.max())))
    if (spin > spin_limit).any():
        return _health_message(3, math.sqrt(float(spin.max())))
    z = poses[:, 2]  # (robots that left wait far off the field, on the ground)
    if z.min() < -WORLD_MARGIN or z.max() > 10 * WORLD_MARGIN:
        return _health_message(4, float(z[np.argmax(np.abs(z))]))
    return None


def free_joint_health(qpos: np.ndarray, qvel: np.ndarray, lin: np.ndarray, ang: np.ndarray, z: np.ndarray,
                      robot: np.ndarray, hinges: np.ndarray) -> tuple[str | None, np.ndarray]:
    """health() for a generalized state (MuJoCo's qpos, qvel), read after the step: free
    joints' linear (lin: (n, 3) dof indices) and angular (ang) velocity and height (z: qpos
    indices), robot: bool (n,), hinges: dof indices of robot hinges. (why, bad dofs)."""
    if not (np.isfinite(qpos).all() and np.isfinite(qvel).all()):
        bad = np.flatnonzero(~np.isfinite(qvel))
        return "a state that is not finite", bad
    speed = np.einsum("ij,ij->i", qvel[lin], qvel[lin]) if len(lin) else np.zeros(0)
    spin = np.einsum("ij,ij->i", qvel[ang], qvel[ang]) if len(ang) else np.zeros(0)
    height = qpos[z]
    bad_free = ((speed > np.where(robot, ROBOT_SPEED, BALL_SPEED) ** 2)
                | (spin > np.where(robot, ROBOT_SPIN, BALL_SPIN) ** 2)
                | (height < -WORLD_MARGIN) | (height > 10 * WORLD_MARGIN))
    bad_hinge = np.abs(qvel[hinges]) > ROBOT_SPIN
    if not bad_free.any() and not bad_hinge.any():
        return None, np.zeros(0, dtype=np.intp)
    bad = np.concatenate((lin[bad_free].reshape(-1), hinges[bad_hinge]))
    if bad_free.any():
        k = int(np.flatnonzero(bad_free)[0])
        return (f"a body at {math.sqrt(float(speed[k])):.0f} m/s, spinning at {math.sqrt(float(spin[k])):.0f} "
                f"rad/s, {float(height[k]):.1f} m high"), bad
    return f"a hinge at {float(np.abs(qvel[hinges]).max()):.0f} rad/s", bad


def unhealthy_links(poses: np.ndarray, twists: np.ndarray, robot_links: np.ndarray) -> np.ndarray:
    """Indices of the links that make a state unhealthy (see health), for naming suspects."""
    bad = ~(np.isfinite(poses).all(axis=1) & np.isfinite(twists).all(axis=1))
    with np.errstate(invalid="ignore"):
        speed = np.linalg.norm(twists[:, :3], axis=1)
        spin = np.linalg.norm(twists[:, 3:], axis=1)
        bad |= speed > np.where(robot_links, ROBOT_SPEED, BALL_SPEED)
        bad |= spin > np.where(robot_links, ROBOT_SPIN, BALL_SPIN)
        bad |= (poses[:, 2] < -WORLD_MARGIN) | (poses[:, 2] > 10 * WORLD_MARGIN)
    return np.flatnonzero(bad)


class _Movable(Protocol):
    field: FieldSpec

    def robot_ids(self) -> list[str]: ...
    def robot_pose(self, robot_id: str) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]: ...
    def robot_yaw(self, robot_id: str) -> float: ...
    def robot_contacts(self) -> list[tuple[str, str]]: ...
    def teleport_robot(self, robot_id: str, x: float, y: float, yaw_deg: float) -> None: ...


class _Commanded(Protocol):
    v_cmd: np.ndarray
    kp: np.ndarray
    kd: np.ndarray
    tau: np.ndarray


def limp(robot: _Commanded) -> None:
    """The robot's commands set aside until its agent sends the next: no motor speed, no PD
    gain or torque. What a repeated fault does to every robot, since the same state and the
    same commands would fail the same way again."""
    robot.v_cmd[:] = 0.0
    robot.kp[:] = 0.0
    robot.kd[:] = 0.0
    robot.tau[:] = 0.0


def crowds(engine: _Movable, suspects: Iterable[str] = ()) -> list[list[str]]:
    """Groups of robots that touch or stand within CROWD_RADIUS of each other (and the
    suspects, each a group of one when alone), largest first."""
    ids = engine.robot_ids()
    where = {rid: engine.robot_pose(rid)[0] for rid in ids}
    parent = {rid: rid for rid in ids}

    def root(r: str) -> str:
        while parent[r] != r:
            parent[r] = parent[parent[r]]
            r = parent[r]
        return r

    def join(a: str, b: str) -> None:
        if a in parent and b in parent:
            parent[root(a)] = root(b)

    for a, b in engine.robot_contacts():
        join(a, b)
    for i, a in enumerate(ids):
        ax, ay, _ = where[a]
        for b in ids[i + 1:]:
            bx, by, _ = where[b]
            if (ax - bx) ** 2 + (ay - by) ** 2 < CROWD_RADIUS ** 2:
                join(a, b)
    groups: dict[str, list[str]] = {}
    for rid in ids:
        groups.setdefault(root(rid), []).append(rid)
    chosen = [g for g in groups.values() if len(g) > 1]
    for rid in suspects:
        if rid in parent and len(groups[root(rid)]) == 1:
            chosen.append([rid])
    return sorted(chosen, key=len, reverse=True)


def separate(engine: _Movable, groups: list[list[str]]) -> int:
    """Each group's robots beamed upright on a circle around where the group stands, SPACING
    apart, each keeping its heading (a lone robot: upright where it is). Returns robots moved."""
    moved = 0
    field = engine.field
    lx, ly = field.half_length + WORLD_MARGIN / 2, field.half_width + WORLD_MARGIN / 2
    for group in groups:
        points = [engine.robot_pose(rid)[0] for rid in group]
        cx = sum(p[0] for p in points) / len(points)
        cy = sum(p[1] for p in points) / len(points)
        radius = 0.0 if len(group) == 1 else max(SPACING, SPACING * len(group) / (2 * math.pi))
        for k, rid in enumerate(group):
            angle = 2 * math.pi * k / len(group)
            x = min(lx, max(-lx, cx + radius * math.cos(angle)))
            y = min(ly, max(-ly, cy + radius * math.sin(angle)))
            yaw = engine.robot_yaw(rid)
            engine.teleport_robot(rid, x, y, yaw if math.isfinite(yaw) else 0.0)
            moved += 1
    return moved


def free_spot(x: float, y: float, others: np.ndarray) -> tuple[float, float]:
    """(x, y), or the nearest point on rings around it MIN_APART from every other robot's
    root (others: (n, 2)). A robot placed into another (a beam, a trainer's move, a spawn)
    is an explosion for ODE and a pile DART grinds on for seconds a step: a placement is
    made beside, as a referee would put it."""
    def free(px: float, py: float) -> bool:
        return len(others) == 0 or bool((((others[:, 0] - px) ** 2 + (others[:, 1] - py) ** 2)
                                         >= MIN_APART ** 2).all())

    if free(x, y):
        return x, y
    for ring in range(1, 40):
        count = 6 * ring
        for k in range(count):
            angle = 2 * math.pi * k / count
            px, py = x + ring * MIN_APART * math.cos(angle), y + ring * MIN_APART * math.sin(angle)
            if free(px, py):
                return px, py
    return x, y


class FaultLog:
    """Counts an engine's physics faults and says them: one line at most every LOG_EVERY s."""

    def __init__(self, engine_name: str, log: logging.Logger = _log) -> None:
        self.engine_name = engine_name
        self.log = log
        self.faults = 0
        self.last_cycle = -2  # cycle of the last fault
        self._unsaid = 0
        self._said_at = -math.inf

    def repeated(self, cycle: int) -> bool:
        """The previous cycle faulted too: the same state and commands would fault again, so
        every robot is to be moved, not only the suspects."""
        return cycle == self.last_cycle + 1

    def fault(self, cycle: int, why: str, moved: int) -> None:
        self.faults += 1
        self.last_cycle = cycle
        self._unsaid += 1
        now = time.monotonic()
        if now - self._said_at < LOG_EVERY:
            return
        more = f" ({self._unsaid - 1} more since the last line)" if self._unsaid > 1 else ""
        self.log.warning("%s physics fault at cycle %d: %s; the step was rolled back and %d robots "
                         "separated, the match goes on%s", self.engine_name, cycle, why, moved, more)
        self._said_at = now
        self._unsaid = 0
