"""ODE engine node: the same worlds, robots, effectors and sensors as the other engines,
stepped by ODE, the physics library rcssserver3d steps, built and driven as SimSpark does.

What that means, and why it is its own engine: SimSpark agents are tuned on ODE's contacts
(soft ERP/CFM, unbounded friction with force-dependent slip, up to 4 contacts per geom pair,
dWorldStep's exact solver) and its hinge motors (a velocity constraint bounded by 10 N m);
MuJoCo and DART approximate them (docs/fidelity.md). Here the scene is rcssserver3d's:
- one 0.02 s `dWorldStep` per cycle, global CFM 1e-5, contact surface layer 1 mm, bodies
  auto-disabled at rest (spark.rb);
- hinges are ODE hinge joints with their motor, stops and CFM as nao/hingejoint.rsg; a speed
  is taken only strictly inside the joint's range and wakes the joint (its HingeEffector);
- contact surfaces per geom, mixed as its ContactJointHandler mixes them (engine/ode/simspark.py);
- a DragController on every robot body.
The node is the articulated engine's (engine/articulated.py), over the `sim_ode` module with
the same array interface as gz-physics: robots join and leave without rebuilding anything,
sensors and vision are shared.
rcsssmj robots (PD motors) run as a PD torque each step: they are tuned for MuJoCo, which
stays their engine."""
from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from sim_physics.engine.articulated import ArticulatedEngine, PhysicsWorld, TemplateReader
from sim_physics.engine.node import Feature
from sim_physics.engine.ode import simspark
from sim_physics.engine.recovery import crowds, separate
from sim_physics.engine.robot import Robot

if TYPE_CHECKING:
    from sim_ode import OdeWorld, Surface


def _surface(figures: simspark.SurfaceFigures) -> Surface:
    from sim_ode import Surface

    s = Surface()
    if figures.soft_erp is not None:
        s.soft_erp_on, s.soft_erp = True, figures.soft_erp
    if figures.soft_cfm is not None:
        s.soft_cfm_on, s.soft_cfm = True, figures.soft_cfm
    if figures.slip is not None:
        s.slip_on, s.slip = True, figures.slip
    if figures.bounce is not None:
        s.bounce_on, (s.bounce, s.bounce_vel) = True, figures.bounce
    return s


AUTO_THREADS = 0  # step_threads: one per core this process may use
MAX_AUTO_THREADS = 4  # 22 robots are 22 islands; beyond 4 threads the step is mostly waiting


def island_threads(requested: int) -> int:
    """The thread count to step with: `requested`, or for AUTO_THREADS the cores this process
    may use (its CPU affinity, as taskset or a container sets it), 1 to MAX_AUTO_THREADS."""
    if requested != AUTO_THREADS:
        return requested
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(MAX_AUTO_THREADS, usable))


class OdeEngine(ArticulatedEngine):
    """Implements SimulationNode with ODE (see sim_physics.engine.node).

    `step_threads` steps ODE's islands (each robot apart is one) on that many threads, each
    island's stages on one thread (sim_ode's island_threading): the state after any number of
    steps is the one-thread state bit for bit (22 awake robots: the step 1.6-1.7x faster on
    2 cores, docs/speed.md). AUTO_THREADS (0) takes one per core this process may use, up to
    MAX_AUTO_THREADS. An ODE fault on a pool thread fails the step, as on one thread."""

    physics = "ode"

    FEATURES: ClassVar[frozenset[Feature]] = frozenset({Feature.LIBRARY_STEP_TIME, Feature.MODELS_READ_AHEAD,
                                                        Feature.OVERLAPPED_STEP})

    def __init__(self, world: str = "simspark_field", *, step_threads: int = 1, **kwargs: Any) -> None:
        self._step_threads = island_threads(step_threads)  # the module refuses a count above 16 (ValueError)
        self._failed_pairs = 0  # ODE's collision faults when the step in progress began
        super().__init__(world, **kwargs)

    @property
    def step_threads(self) -> int:
        """Threads ODE steps the islands on (`simulation stats`)."""
        return self._step_threads

    def exact_digest(self) -> str:
        """Every body's pose and velocity hashed bit for bit (the snapshot's digest rounds to
        1e-6): what shows whether two thread counts stepped the same world the same way."""
        state = np.asarray(self._ode.link_poses()).tobytes() + np.asarray(self._ode.link_velocities()).tobytes()
        return hashlib.sha256(state).hexdigest()[:16]

    def _open_world(self, path: str, timestep: float) -> PhysicsWorld:
        from sim_ode import OdeWorld, Settings  # the C++ module: only needed when this engine is chosen

        settings = Settings()
        settings.erp, settings.cfm = simspark.WORLD_ERP, simspark.WORLD_CFM
        settings.surface_layer, settings.auto_disable = simspark.SURFACE_LAYER, simspark.AUTO_DISABLE
        settings.max_contacts = simspark.MAX_CONTACTS
        settings.pile_models, settings.pile_contacts = simspark.PILE_MODELS, simspark.PILE_CONTACTS
        settings.hinge_cfm, settings.stop_cfm = simspark.HINGE_CFM, simspark.STOP_CFM
        settings.stop_erp, settings.fudge = simspark.STOP_ERP, simspark.FUDGE_FACTOR
        settings.stop_bounce = simspark.STOP_BOUNCE
        world = OdeWorld(path, timestep, settings)
        self._ode: OdeWorld = world  # ODE's own calls beyond the array interface
        world.step_threads = self._step_threads
        world.set_static_surfaces(_surface(simspark.FIELD), _surface(simspark.GOAL))  # the field, the goals
        world.set_surface("ball", _surface(simspark.BALL))
        return world

    def _template_reader(self) -> TemplateReader:
        return self._ode

    def _start_update(self) -> None:
        self._failed_pairs = self._ode.collision_faults  # before the step, which may run on ODE's thread
        super()._start_update()

    def _physics_step(self) -> tuple[str | None, list[str]]:
        """The step, and ODE's collision faults: a geom pair ODE could not collide (two boxes at
        one spot have no contact normal) had no contact; the robots crowding are taken apart."""
        failed_pairs = self._failed_pairs
        result = super()._physics_step()
        if result[0] is None and self._ode.collision_faults > failed_pairs:
            self._record_contacts()
            moved = separate(self, crowds(self))
            self.faults.fault(self.cycle, f"ODE could not collide a pair ({self._ode.last_collision_fault})", moved)
        return result

    def _roll_back(self, before: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        """ODE keeps every body's state from the start of the step (and has restored it
        itself when it threw): exact, joints' internal state included."""
        if not self._ode.rollback():  # nothing saved (a robot joined or left since): from the arrays
            super()._roll_back(before)

    def _dress(self, name: str, robot: Robot) -> None:
        self._ode.set_surface(name, _surface(simspark.ROBOT))
        self._ode.set_drag(name, *simspark.ROBOT_DRAG)
