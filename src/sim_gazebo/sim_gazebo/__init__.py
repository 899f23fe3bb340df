"""Gazebo's physics for the soccer engine node: `GzWorld` (the C++ module `_gz_physics`,
Ignition Physics 5 with its DART plugin, SDFormat 12) loads our SDF worlds and robots.
The engine node over it is sim_physics.engine.gazebo."""
from sim_gazebo._gz_physics import PD, SERVO, VELOCITY, GzWorld, ModelLayout

__all__ = ["PD", "SERVO", "VELOCITY", "GzWorld", "ModelLayout"]
