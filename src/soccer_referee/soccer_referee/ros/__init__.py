"""ROS 2 layer of the referee: message conversion and the node interface."""
