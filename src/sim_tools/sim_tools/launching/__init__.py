"""A runner for standard ROS 2 launch XML (ros2 launch is not on PyPI)."""
