// Reads XCDR1 as rmw_fastrtps writes it (see percept_cdr.cpp for the layout), in the field
// order of sim_msgs/msg/JointCommand.msg; test_joint_command_cdr.py holds it to rclpy's own
// serializer and feeds it broken bytes.
#include "joint_command_cdr.hpp"

#include "cdr_reader.hpp"

#include <cstdint>
#include <cstring>
#include <string_view>

namespace py = pybind11;

namespace sim_hotpath {

py::tuple joint_command_from_cdr(py::bytes data) {
  char* buffer = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(data.ptr(), &buffer, &size) != 0) throw py::error_already_set();
  CdrReader r(std::string_view(buffer, static_cast<std::size_t>(size)), "joint_command");
  const std::uint8_t mode = r.u8();
  py::list names = r.strs();
  py::list velocities = r.float64s();
  py::list q = r.float64s();
  py::list dq = r.float64s();
  py::list kp = r.float64s();
  py::list kd = r.float64s();
  py::list tau = r.float64s();
  const bool synchronize = r.u8() != 0;
  return py::make_tuple(mode, names, velocities, q, dq, kp, kd, tau, synchronize);
}

}  // namespace sim_hotpath
