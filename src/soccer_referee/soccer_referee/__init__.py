"""Soccer referee: play modes, rule books and the referee that enforces them; ROS 2 node around the pure core."""
