"""The Gazebo backend of the articulated engine (engine/articulated.py): the same worlds, robots,
effectors and sensors as the other engines, stepped by Gazebo's physics (Ignition Physics 5
with DART, the `sim_gazebo` module).

What differs from MuJoCo, and why:
- The world and SDF robots are read by SDFormat and built by gz-physics from the files
  themselves (models registered from text are written back to SDF first).
- On rcssserver3d's field one 0.02 s DART step per cycle, as rcssserver3d takes one 0.02 s ODE
  step: a SimSpark hinge motor is DART's velocity actuator (the joint moves v * dt per step and
  holds rigidly at 0, cut so it stops at its range) while it needs no more than the joint's
  effort; one that needed more is DART's servo (bounded by the effort) for that step, taken
  again (GzWorld::Step). `hinge_motor="servo"` makes every motor a servo, always.
- On rcsssmj's fields four 0.005 s steps per cycle, as rcssservermj's MuJoCo: its PD motor is
  the force kp (q* - q) + kd (dq* - dq) + tau from each step's state, bounded by the joint's
  effort, as MuJoCo applies it (GzWorld::DriveHinges says why not DART's implicit spring), and
  the MJCF's joint armature is in the links' inertia (DART has none).
- Robots join and leave without rebuilding anything: gz-physics adds and removes the model.
Sensors follow the MuJoCo engine's conventions: GYR in the torso frame, SimSpark's ACC one
cycle late, FRP in the foot box's frame, the vision of engine/vision.py."""
from __future__ import annotations

from typing import ClassVar

from sim_physics.engine.articulated import ArticulatedEngine, PhysicsWorld
from sim_physics.engine.node import Feature
from sim_physics.engine.ode import simspark
from sim_physics.engine.robot import Robot
from sim_physics.world.spec import WorldSpec

# DART takes the smaller of two touching shapes' friction coefficients (and caps it at 100),
# and SDF's default is 1: a field without <friction> held every robot at mu 1, so a standing
# Nao spun freely under a 10 N m yaw torque (ODE, as rcssserver3d: unbounded friction, 16
# degrees of slip in 0.5 s). The world's static models get DART's cap, so a contact takes the
# moving body's own coefficient: a Nao's 100 (unbounded in effect, as rcssserver3d), an rcsssmj
# robot's own (MuJoCo's rule takes the larger of the two), the ball's.
STATIC_FRICTION = 100.0
# DART's slip compliance acts per touching pair where ODE's acts per contact point: a flat foot
# touches at 4 points, so rcssserver3d's 0.005 (m/s)/N per contact is 0.005 / 4 per foot
# (measured: a standing Nao pushed by 4 N slides 3.1 mm/s here, 2.3 mm/s on ODE; twisted by
# 3 N m it turns 4.9 degrees in 0.5 s, 4.8 on ODE).
CONTACTS_PER_FOOT = 4
# DART's contact error correction (process-wide: DART keeps it in class statics). Its defaults
# (ERP 0.01, at most 1 mm/s, no allowance) left a beamed Nao 4 mm deep in the field with its
# feet locked there (the hip-step trace: the legs did not tip). ERP 0.2 up to 0.1 m/s beyond
# rcssserver3d's 1 mm surface layer puts the Nao at rcssserver3d's height without launching it;
# the relative CFM 0.05 keeps feet on the ground through a step (without it: FRP 0 N for a
# cycle, then 92 N; at 0.01, 9 deg/s jolts in the slow squat as the feet settle).
CONTACT_ERP = 0.2
CONTACT_MAX_CORRECTION = 0.1  # m/s
CONTACT_CFM = 0.05
# DART's defaults (erp, cfm, allowance, max correction), for worlds that are not rcssserver3d's:
# rcssservermj's NN walker (T1) walks 3.2 m upright in 7 s on them and falls after 3.4 s on the
# settings above (the model is process-wide, so each world sets it when it opens).
DART_CONTACT = (0.01, 1e-5, 0.0, 1e-3)


# rcssservermj's step (its world's MuJoCo timestep) for rcsssmj's fields: the explicit PD motor
# needs it (a T1's ankle under kp 200 holds at 0.005 s, and rings at 0.02 s).
RCSSSMJ_STEP = (4, 0.005)  # substeps per cycle, seconds


class GazeboEngine(ArticulatedEngine):
    """Implements SimulationNode with gz-physics and DART (see sim_physics.engine.node)."""

    physics = "gazebo"

    FEATURES: ClassVar[frozenset[Feature]] = frozenset({Feature.LIBRARY_STEP_TIME})
    # DART has no joint armature: MJCF robots' rotor inertia goes into their links (without it an
    # explicit PD on a T1's head or foot turns 3-5x faster than on MuJoCo and rings at high gains).
    ARMATURE_AS_INERTIA = True

    def _default_step(self, world: WorldSpec) -> tuple[int, float]:
        """rcssserver3d's 1 x 0.02 s on its field (a world with its contact slip), rcssservermj's
        4 x 0.005 s on rcsssmj's."""
        return (1, 0.02) if world.contact_slip > 0 else RCSSSMJ_STEP

    def _open_world(self, path: str, timestep: float) -> PhysicsWorld:
        from sim_gazebo import GzWorld  # the C++ module: only needed when this engine is chosen

        world = GzWorld(path, timestep)
        if self.world.contact_slip > 0:  # rcssserver3d's field (<soccer:contact slip>): its contacts
            GzWorld.set_contact_model(CONTACT_ERP, CONTACT_CFM, simspark.SURFACE_LAYER, CONTACT_MAX_CORRECTION)
        else:  # rcsssmj's fields: DART's own (its walkers, tuned on MuJoCo, walk on them; not on the above)
            GzWorld.set_contact_model(*DART_CONTACT)
        for model in world.layout():
            if model.is_static:
                world.set_friction(model.name, STATIC_FRICTION)
            elif model.name == "ball":  # DART takes the smaller of two friction coefficients
                world.set_friction(model.name, self.world.ball_friction[0])
        return world

    def _dress(self, name: str, robot: Robot) -> None:
        if self.world.contact_slip > 0 and robot.simspark_model:  # a SimSpark robot on a SimSpark field
            slip = self.world.contact_slip / CONTACTS_PER_FOOT
            self._physics.set_slip_compliance(name, slip)  # type: ignore[attr-defined]  # DART's own

