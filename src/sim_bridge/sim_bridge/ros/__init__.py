"""The bridge's ROS side: its node, and the percept and command messages of its players."""
