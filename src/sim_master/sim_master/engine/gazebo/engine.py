"""The Gazebo backend of the articulated engine (engine/articulated.py): the same worlds, robots,
effectors and sensors as the other engines, stepped by Gazebo's physics (Ignition Physics 5
with DART, the `sim_gazebo` module).

What differs from MuJoCo, and why:
- The world and SDF robots are read by SDFormat and built by gz-physics from the files
  themselves (models registered from text are written back to SDF first).
- One 0.02 s DART step per cycle by default, as rcssserver3d takes one 0.02 s ODE step: a
  SimSpark hinge motor is DART's velocity actuator (the joint moves v * dt per step and holds
  rigidly at 0, cut so it stops at its range). DART's velocity actuator has no torque bound;
  `hinge_motor="servo"` bounds it by the joint's effort (DART's servo constraint), at about
  twice the step cost.
- An rcsssmj PD motor is DART's implicit joint spring (kp, rest q*) and damper (kd) plus the
  force kd * dq* + tau, so stiff gains stay stable at the long step.
- Robots join and leave without rebuilding anything: gz-physics adds and removes the model.
Sensors follow the MuJoCo engine's conventions: GYR in the torso frame, SimSpark's ACC one
cycle late, FRP in the foot box's frame, the vision of engine/vision.py."""
from __future__ import annotations

from typing import Any, ClassVar

from sim_master.engine.articulated import ArticulatedEngine, PhysicsWorld
from sim_master.engine.node import Feature
from sim_master.engine.robot import Robot

# DART slip compliance of SimSpark robots' shapes in a world with rcssserver3d's slipping
# contacts (<soccer:contact slip>). DART spreads it over a pair's contacts and its motors are
# rigid, so rcssserver3d's figure does not carry over; chosen by FC Portugal's walk (falls in
# 60 s, mean of 8 runs): none 20, 0.02 13, 0.1 8 (median 4.5), 0.3 12 (MuJoCo engine 4,
# rcssserver3d 0).
DART_ROBOT_SLIP = 0.1


class GazeboEngine(ArticulatedEngine):
    """Implements SimulationNode with gz-physics and DART (see sim_master.engine.node)."""

    physics = "gazebo"

    FEATURES: ClassVar[frozenset[Feature]] = frozenset({Feature.LIBRARY_STEP_TIME})

    def _open_world(self, path: str, timestep: float) -> PhysicsWorld:
        from sim_gazebo import GzWorld  # the C++ module: only needed when this engine is chosen

        world: Any = GzWorld(path, timestep)
        return world

    def _dress(self, name: str, robot: Robot) -> None:
        if self.world.contact_slip > 0 and robot.acc_lag:  # a SimSpark robot on a SimSpark field
            self._physics.set_slip_compliance(name, DART_ROBOT_SLIP)  # type: ignore[attr-defined]  # DART's own
