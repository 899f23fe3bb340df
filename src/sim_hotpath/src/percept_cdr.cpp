// CDR (XCDR1, little endian) as Fast CDR writes a ROS 2 message: a 4-byte encapsulation
// header (00 01 00 00), then each field in declaration order aligned to its own size (at most
// 8) from the end of the header; a string is its length with the terminating NUL, the bytes
// and the NUL; a sequence its element count then its elements. The field order is
// sim_msgs/msg/Percept.msg's; test_percept_cdr.py holds it to rclpy's own serializer.
#include "percept_cdr.hpp"

#include <cstring>
#include <vector>
#include <string>

#include "pytext.hpp"

namespace sim_hotpath {
namespace {

class CdrWriter {
 public:
  CdrWriter() {
    out_.reserve(8192);
    out_.append("\x00\x01\x00\x00", 4);  // CDR_LE, no options
  }

  void u8(unsigned v) { out_.push_back(static_cast<char>(v)); }
  void boolean(bool v) { u8(v ? 1 : 0); }
  void u16(std::uint16_t v) { put(v); }
  void i32(std::int32_t v) { put(v); }
  void u32(std::uint32_t v) { put(v); }
  void f32(float v) { put(v); }
  void f64(double v) { put(v); }

  void str(const char* text, std::size_t size) {
    u32(static_cast<std::uint32_t>(size + 1));
    out_.append(text, size);
    out_.push_back('\0');
  }

  // str(value) as UTF-8, as rclpy converts a string field
  void str(PyObject* value) {
    if (!PyUnicode_Check(value)) throw py::type_error("a string field holds a str");
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(value, &size);
    if (text == nullptr) throw py::error_already_set();
    str(text, static_cast<std::size_t>(size));
  }

  void count(Py_ssize_t n) { u32(static_cast<std::uint32_t>(n)); }

  std::string& bytes() { return out_; }

 private:
  template <typename T>
  void put(T v) {
    const std::size_t size = sizeof(T);
    const std::size_t misalign = (out_.size() - 4) % size;
    if (misalign != 0) out_.append(size - misalign, '\0');
    char raw[sizeof(T)];
    std::memcpy(raw, &v, size);  // little-endian hosts only (x86-64, aarch64)
    out_.append(raw, size);
  }

  std::string out_;
};

double number(PyObject* value) { return as_double(value); }

// An integer field's value, range-checked as rclpy checks it.
long long integer(PyObject* value, long long low, long long high, const char* what) {
  const long long v = PyLong_AsLongLong(value);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (v < low || v > high) throw py::value_error(what);
  return v;
}

void vec3(CdrWriter& w, PyObject* value, const char* what) {
  py::object seq = fast_sequence(value, what);
  if (PySequence_Fast_GET_SIZE(seq.ptr()) != 3) throw py::type_error(what);
  for (Py_ssize_t i = 0; i < 3; ++i) w.f64(number(PySequence_Fast_GET_ITEM(seq.ptr(), i)));
}

void float64s(CdrWriter& w, PyObject* value, const char* what) {
  py::object seq = fast_sequence(value, what);
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  w.count(n);
  for (Py_ssize_t i = 0; i < n; ++i) w.f64(number(PySequence_Fast_GET_ITEM(seq.ptr(), i)));
}

void strings(CdrWriter& w, PyObject* value, const char* what) {
  py::object seq = fast_sequence(value, what);
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  w.count(n);
  for (Py_ssize_t i = 0; i < n; ++i) w.str(PySequence_Fast_GET_ITEM(seq.ptr(), i));
}

// One sim_msgs/VisionObjects, from its rows: (name, team, unum, polar).
struct SeenRow {
  PyObject* name;
  PyObject* team;  // nullptr: ""
  long long unum;
  PyObject* polar;
};

void vision_objects(CdrWriter& w, const std::vector<SeenRow>& rows) {
  w.count(static_cast<Py_ssize_t>(rows.size()));
  for (const auto& r : rows) w.str(r.name);
  w.count(static_cast<Py_ssize_t>(rows.size()));
  for (const auto& r : rows) {
    if (r.team == nullptr) {
      w.str("", 0);
    } else {
      w.str(r.team);
    }
  }
  w.count(static_cast<Py_ssize_t>(rows.size()));
  for (const auto& r : rows) w.u8(static_cast<unsigned>(r.unum));
  for (int column = 0; column < 3; ++column) {
    w.count(static_cast<Py_ssize_t>(rows.size()));
    for (const auto& r : rows) {
      py::object polar = fast_sequence(r.polar, "a polar is 3 numbers");
      if (PySequence_Fast_GET_SIZE(polar.ptr()) != 3) throw py::type_error("a polar is 3 numbers");
      w.f32(static_cast<float>(number(PySequence_Fast_GET_ITEM(polar.ptr(), column))));
    }
  }
}

void named_rows(std::vector<SeenRow>& rows, PyObject* dict, PyObject* team, long long unum, const char* what) {
  if (!PyDict_Check(dict)) throw py::type_error(what);
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(dict, &pos, &key, &value)) rows.push_back({key, team, unum, value});
}

void vision(CdrWriter& w, PyObject* vision_obj) {
  w.boolean(vision_obj != Py_None);
  std::vector<SeenRow> seen;
  std::vector<SeenRow> ends;
  py::object truth;
  // references the rows borrow from, alive until the rows are written
  std::vector<py::object> keep;
  static PyObject* const line_end = PyUnicode_InternFromString("L");
  if (vision_obj != Py_None) {
    py::object objects = SIM_HOTPATH_ATTR(vision_obj, "objects");
    named_rows(seen, objects.ptr(), nullptr, 0, "Vision.objects is a dict");
    keep.push_back(objects);
    py::object players = fast_sequence(SIM_HOTPATH_ATTR(vision_obj, "players").ptr(), "Vision.players is a list");
    keep.push_back(players);
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(players.ptr()); ++i) {
      PyObject* player = PySequence_Fast_GET_ITEM(players.ptr(), i);
      py::object team = SIM_HOTPATH_ATTR(player, "team");
      py::object parts = SIM_HOTPATH_ATTR(player, "parts");
      const long long unum = integer(SIM_HOTPATH_ATTR(player, "unum").ptr(), 0, 255, "a seen player's unum is 0-255");
      named_rows(seen, parts.ptr(), team.ptr(), unum, "SeenPlayer.parts is a dict");
      keep.push_back(team);
      keep.push_back(parts);
    }
    py::object lines = fast_sequence(SIM_HOTPATH_ATTR(vision_obj, "lines").ptr(), "Vision.lines is a list");
    keep.push_back(lines);
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(lines.ptr()); ++i) {
      py::object pair = fast_sequence(PySequence_Fast_GET_ITEM(lines.ptr(), i), "a seen line is two polars");
      if (PySequence_Fast_GET_SIZE(pair.ptr()) != 2) throw py::type_error("a seen line is two polars");
      keep.push_back(pair);
      ends.push_back({line_end, nullptr, 0, PySequence_Fast_GET_ITEM(pair.ptr(), 0)});
      ends.push_back({line_end, nullptr, 0, PySequence_Fast_GET_ITEM(pair.ptr(), 1)});
    }
    truth = SIM_HOTPATH_ATTR(vision_obj, "truth");
    if (!PyDict_Check(truth.ptr())) throw py::type_error("Vision.truth is a dict");
  }
  vision_objects(w, seen);
  vision_objects(w, ends);
  // ground truth: my_pos, my_orien, ball_pos (sim_bridge.ros.percepts.TRUTH_FIELDS)
  for (const char* key : {"mypos", "myorien", "ballpos"}) {
    PyObject* numbers = truth ? PyDict_GetItemString(truth.ptr(), key) : nullptr;
    if (numbers == nullptr) {
      w.count(0);
    } else {
      float64s(w, numbers, "a ground truth item is a sequence of numbers");
    }
  }
}

}  // namespace

py::bytes percept_cdr(py::handle percept, std::int32_t sec, std::uint32_t nanosec, py::handle side, int unum) {
  if (nanosec > 999'999'999u) throw py::value_error("nanosec is 0-999999999");
  if (unum < 0 || unum > 255) throw py::value_error("unum is 0-255");
  PyObject* p = percept.ptr();
  CdrWriter w;
  // std_msgs/Header
  w.i32(sec);
  w.u32(nanosec);
  w.str("torso", 5);
  // sim_msgs/GameState (play_mode_index, half and the last touch travel on /game_state)
  py::object game = SIM_HOTPATH_ATTR(p, "game");
  w.i32(sec);
  w.u32(nanosec);
  w.str(SIM_HOTPATH_ATTR(game.ptr(), "play_mode").ptr());
  w.u8(0);
  w.f64(number(SIM_HOTPATH_ATTR(game.ptr(), "game_time").ptr()));
  w.u8(0);
  w.str(SIM_HOTPATH_ATTR(game.ptr(), "team_left").ptr());
  w.str(SIM_HOTPATH_ATTR(game.ptr(), "team_right").ptr());
  w.u16(static_cast<std::uint16_t>(
      integer(SIM_HOTPATH_ATTR(game.ptr(), "score_left").ptr(), 0, 65535, "a score is 0-65535")));
  w.u16(static_cast<std::uint16_t>(
      integer(SIM_HOTPATH_ATTR(game.ptr(), "score_right").ptr(), 0, 65535, "a score is 0-65535")));
  w.str("", 0);
  w.u8(0);
  // the player
  w.u8(static_cast<unsigned>(unum));
  w.str(side.ptr());
  vec3(w, SIM_HOTPATH_ATTR(p, "gyro").ptr(), "Percept.gyro is 3 numbers");
  vec3(w, SIM_HOTPATH_ATTR(p, "accel").ptr(), "Percept.accel is 3 numbers");
  // geometry_msgs/Pose: position, then the quaternion as x y z w (the percept holds w x y z)
  vec3(w, SIM_HOTPATH_ATTR(p, "torso_position").ptr(), "Percept.torso_position is 3 numbers");
  {
    py::object q = fast_sequence(SIM_HOTPATH_ATTR(p, "torso_quaternion").ptr(), "Percept.torso_quaternion is 4 numbers");
    if (PySequence_Fast_GET_SIZE(q.ptr()) != 4) throw py::type_error("Percept.torso_quaternion is 4 numbers");
    for (Py_ssize_t i : {1, 2, 3, 0}) w.f64(number(PySequence_Fast_GET_ITEM(q.ptr(), i)));
  }
  strings(w, SIM_HOTPATH_ATTR(p, "joint_names").ptr(), "Percept.joint_names is a list of str");
  float64s(w, SIM_HOTPATH_ATTR(p, "joint_angles").ptr(), "Percept.joint_angles is a list of numbers");
  float64s(w, SIM_HOTPATH_ATTR(p, "joint_velocities").ptr(), "Percept.joint_velocities is a list of numbers");
  {
    py::object feet = fast_sequence(SIM_HOTPATH_ATTR(p, "foot_resistance").ptr(), "Percept.foot_resistance is a list");
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(feet.ptr());
    w.count(n);
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* f = PySequence_Fast_GET_ITEM(feet.ptr(), i);
      w.str(SIM_HOTPATH_ATTR(f, "name").ptr());
      vec3(w, SIM_HOTPATH_ATTR(f, "center").ptr(), "ForceResistance.center is 3 numbers");
      vec3(w, SIM_HOTPATH_ATTR(f, "force").ptr(), "ForceResistance.force is 3 numbers");
    }
  }
  vision(w, SIM_HOTPATH_ATTR(p, "vision").ptr());
  {
    py::object heard = fast_sequence(SIM_HOTPATH_ATTR(p, "heard").ptr(), "Percept.heard is a list");
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(heard.ptr());
    w.count(n);
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* h = PySequence_Fast_GET_ITEM(heard.ptr(), i);
      w.f64(number(SIM_HOTPATH_ATTR(h, "time").ptr()));
      w.boolean(is_true(SIM_HOTPATH_ATTR(h, "from_self").ptr()));
      w.boolean(is_true(SIM_HOTPATH_ATTR(h, "from_teammate").ptr()));
      w.f32(static_cast<float>(number(SIM_HOTPATH_ATTR(h, "direction").ptr())));
      w.str(SIM_HOTPATH_ATTR(h, "message").ptr());
      w.str(SIM_HOTPATH_ATTR(h, "team").ptr());
    }
  }
  std::string& out = w.bytes();
  return py::bytes(out.data(), out.size());
}

}  // namespace sim_hotpath
