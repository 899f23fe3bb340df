// sim_msgs/JointCommand from its CDR bytes, as a ROS player's effector topic delivers them
// (read raw: rclpy's conversion of a message with 22 names cost the server ~0.1 ms per player
// and cycle, issue 28). Every count and length is checked against the bytes: a malformed
// message is a ValueError, never a read past its end.
#pragma once

#include <pybind11/pybind11.h>

namespace sim_hotpath {

// (mode, names, velocities, q, dq, kp, kd, tau, synchronize) of a serialized JointCommand.
pybind11::tuple joint_command_from_cdr(pybind11::bytes data);

}  // namespace sim_hotpath
