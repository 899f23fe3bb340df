"""Thin rclpy layers: message conversion and the nodes of the server."""
