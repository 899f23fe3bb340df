"""Physics engines behind the SimulationNode protocol (MuJoCo here; Gazebo can be added)."""
