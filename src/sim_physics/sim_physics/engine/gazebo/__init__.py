"""The gz-physics engine node (needs the sim_gazebo C++ module)."""
