// Reads XCDR1 as rmw_fastrtps writes it (see percept_cdr.cpp for the layout), in the field
// order of the generated table (sim_hotpath_tables.hpp, from sim_msgs/msg/JointCommand.msg);
// test_joint_command_cdr.py holds it to rclpy's own serializer and feeds it broken bytes.
#include "joint_command_cdr.hpp"

#include "cdr_reader.hpp"
#include "pytext.hpp"

#include <cstdint>
#include <cstring>
#include <string_view>

namespace py = pybind11;

namespace sim_hotpath {
namespace {

// The values of one sim_msgs/JointCommand: one handler per field, called in the .msg's order
// by the generated SIM_MSGS_JOINT_COMMAND table.
struct JointCommandIn {
  explicit JointCommandIn(CdrReader& reader) : r(reader) {}
  void mode() { mode_value = r.u8(); }
  void names() { names_value = r.strs(); }
  void velocities() { velocities_value = r.float64s(); }
  void q() { q_value = r.float64s(); }
  void dq() { dq_value = r.float64s(); }
  void kp() { kp_value = r.float64s(); }
  void kd() { kd_value = r.float64s(); }
  void tau() { tau_value = r.float64s(); }
  void synchronize() { synchronize_value = r.u8() != 0; }

  CdrReader& r;
  std::uint8_t mode_value = 0;
  py::list names_value, velocities_value, q_value, dq_value, kp_value, kd_value, tau_value;
  bool synchronize_value = false;
};
static_assert(SIM_MSGS_JOINT_COMMAND_COUNT == 9, "JointCommandIn reads 9 fields: sim_msgs changed");

}  // namespace

py::tuple joint_command_from_cdr(py::bytes data) {
  char* buffer = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(data.ptr(), &buffer, &size) != 0) throw py::error_already_set();
  CdrReader r(std::string_view(buffer, static_cast<std::size_t>(size)), "joint_command");
  JointCommandIn visitor(r);
  SIM_MSGS_JOINT_COMMAND(SIM_HOTPATH_VISIT_FIELD)
  const JointCommandIn& c = visitor;
  return py::make_tuple(c.mode_value, c.names_value, c.velocities_value, c.q_value, c.dq_value, c.kp_value,
                        c.kd_value, c.tau_value, c.synchronize_value);
}

}  // namespace sim_hotpath
