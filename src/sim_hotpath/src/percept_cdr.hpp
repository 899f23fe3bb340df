// sim_msgs/Percept as the CDR bytes rmw_fastrtps puts on the wire, written straight from a
// sim_contracts Percept (issue 28: rclpy's conversion of the message to C and then to CDR
// was a third of a ROS player's cost to the server). rclpy publishes bytes as they are.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>

namespace sim_hotpath {

// The serialized sim_msgs/Percept (encapsulation header included) of `percept` stamped
// sec/nanosec, for the player `unum` on `side`: field for field what
// rclpy.serialization.serialize_message(sim_bridge.ros.percepts.percept_to_msg(...)) gives.
pybind11::bytes percept_cdr(pybind11::handle percept, std::int32_t sec, std::uint32_t nanosec,
                            pybind11::handle side, int unum);

}  // namespace sim_hotpath
