"""The world as a scene: link poses from the engine contract (`frames()`) or from a
snapshot and the model specs (forward kinematics), for monitors, replay and pictures. No
physics engine is imported here."""
