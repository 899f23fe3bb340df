// Reads XCDR1 as rmw_fastrtps writes it (see percept_cdr.cpp for the layout), in the field
// order of sim_msgs/msg/JointCommand.msg; test_joint_command_cdr.py holds it to rclpy's own
// serializer and feeds it broken bytes.
#include "joint_command_cdr.hpp"

#include <cstdint>
#include <cstring>
#include <string_view>

namespace py = pybind11;

namespace sim_hotpath {
namespace {

class CdrReader {
 public:
  explicit CdrReader(std::string_view data) : data_(data) {
    if (data_.size() < 4) throw py::value_error("joint_command: not a serialized message (under 4 bytes)");
    if (data_[0] != 0 || data_[1] != 1)
      throw py::value_error("joint_command: only little-endian CDR is read (encapsulation 00 01)");
    pos_ = 4;
  }

  std::uint8_t u8() {
    need(1);
    return static_cast<std::uint8_t>(data_[pos_++]);
  }

  std::uint32_t u32() { return get<std::uint32_t>(); }
  double f64() { return get<double>(); }

  // A sequence's element count, at most what the remaining bytes can hold at `min_size` each.
  std::uint32_t count(std::size_t min_size) {
    const std::uint32_t n = u32();
    if (static_cast<std::uint64_t>(n) * min_size > data_.size() - pos_)
      throw py::value_error("joint_command: a sequence is longer than the message");
    return n;
  }

  py::str str() {
    const std::uint32_t size = u32();
    if (size == 0) throw py::value_error("joint_command: a string without its terminating NUL");
    need(size);
    if (data_[pos_ + size - 1] != '\0') throw py::value_error("joint_command: a string without its terminating NUL");
    PyObject* text = PyUnicode_DecodeUTF8(data_.data() + pos_, size - 1, "strict");
    if (text == nullptr) {
      PyErr_Clear();
      throw py::value_error("joint_command: a name is not UTF-8");
    }
    pos_ += size;
    return py::reinterpret_steal<py::str>(text);
  }

  py::list float64s() {
    const std::uint32_t n = count(8);
    py::list out(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      PyObject* value = PyFloat_FromDouble(f64());
      if (value == nullptr) throw py::error_already_set();
      PyList_SET_ITEM(out.ptr(), i, value);
    }
    return out;
  }

 private:
  void need(std::size_t size) const {
    if (size > data_.size() - pos_) throw py::value_error("joint_command: the message ends too early");
  }

  template <typename T>
  T get() {
    const std::size_t misalign = (pos_ - 4) % sizeof(T);
    if (misalign != 0) {
      need(sizeof(T) - misalign);
      pos_ += sizeof(T) - misalign;
    }
    need(sizeof(T));
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));  // little-endian hosts only
    pos_ += sizeof(T);
    return v;
  }

  std::string_view data_;
  std::size_t pos_ = 0;
};

}  // namespace

py::tuple joint_command_from_cdr(py::bytes data) {
  char* buffer = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(data.ptr(), &buffer, &size) != 0) throw py::error_already_set();
  CdrReader r(std::string_view(buffer, static_cast<std::size_t>(size)));
  const std::uint8_t mode = r.u8();
  const std::uint32_t n = r.count(5);  // a string is at least its length and NUL
  py::list names(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    py::str name = r.str();
    PyList_SET_ITEM(names.ptr(), i, name.release().ptr());
  }
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
