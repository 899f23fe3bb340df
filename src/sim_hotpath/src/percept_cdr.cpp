// CDR (XCDR1, little endian) as Fast CDR writes a ROS 2 message: a 4-byte encapsulation
// header (00 01 00 00), then each field in declaration order aligned to its own size (at most
// 8) from the end of the header; a string is its length with the terminating NUL, the bytes
// and the NUL; a sequence its element count then its elements. The field order is the
// generated table's (sim_hotpath_tables.hpp, from sim_msgs/msg/Percept.msg): each field has a
// handler below; test_percept_cdr.py holds the bytes to rclpy's own serializer.
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

// One sim_msgs/VisionObjects from its rows (name, team, unum, polar): one handler per field of
// the message, called in its .msg order.
struct SeenRow {
  PyObject* name;
  PyObject* team;  // nullptr: ""
  long long unum;
  PyObject* polar;
};

class VisionObjectsOut {
 public:
  VisionObjectsOut(CdrWriter& w, const std::vector<SeenRow>& rows) : w_(w), rows_(rows) {}
  void name() {
    count();
    for (const auto& r : rows_) w_.str(r.name);
  }
  void team() {
    count();
    for (const auto& r : rows_) {
      if (r.team == nullptr) {
        w_.str("", 0);
      } else {
        w_.str(r.team);
      }
    }
  }
  void unum() {
    count();
    for (const auto& r : rows_) w_.u8(static_cast<unsigned>(r.unum));
  }
  void distance() { column(0); }
  void azimuth() { column(1); }
  void elevation() { column(2); }

 private:
  void count() { w_.count(static_cast<Py_ssize_t>(rows_.size())); }
  void column(int index) {
    count();
    for (const auto& r : rows_) {
      py::object polar = fast_sequence(r.polar, "a polar is 3 numbers");
      if (PySequence_Fast_GET_SIZE(polar.ptr()) != 3) throw py::type_error("a polar is 3 numbers");
      w_.f32(static_cast<float>(number(PySequence_Fast_GET_ITEM(polar.ptr(), index))));
    }
  }
  CdrWriter& w_;
  const std::vector<SeenRow>& rows_;
};
static_assert(SIM_MSGS_VISION_OBJECTS_COUNT == 6, "VisionObjectsOut writes 6 fields: sim_msgs changed");

void vision_objects(CdrWriter& w, const std::vector<SeenRow>& rows) {
  VisionObjectsOut visitor(w, rows);
  SIM_MSGS_VISION_OBJECTS(SIM_HOTPATH_VISIT_FIELD)
}

void named_rows(std::vector<SeenRow>& rows, PyObject* dict, PyObject* team, long long unum, const char* what) {
  if (!PyDict_Check(dict)) throw py::type_error(what);
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(dict, &pos, &key, &value)) rows.push_back({key, team, unum, value});
}

// A Percept's vision as the rows of the message's seen objects and line ends, and its truth.
struct VisionRows {
  explicit VisionRows(PyObject* vision_obj) : updated(vision_obj != Py_None) {
    static PyObject* const line_end = PyUnicode_InternFromString("L");
    if (!updated) return;
    py::object objects = SIM_HOTPATH_FIELD(vision_obj, Vision, objects);
    named_rows(seen, objects.ptr(), nullptr, 0, "Vision.objects is a dict");
    keep.push_back(objects);
    py::object players = fast_sequence(SIM_HOTPATH_FIELD(vision_obj, Vision, players).ptr(), "Vision.players is a list");
    keep.push_back(players);
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(players.ptr()); ++i) {
      PyObject* player = PySequence_Fast_GET_ITEM(players.ptr(), i);
      py::object team = SIM_HOTPATH_FIELD(player, SeenPlayer, team);
      py::object parts = SIM_HOTPATH_FIELD(player, SeenPlayer, parts);
      const long long unum =
          integer(SIM_HOTPATH_FIELD(player, SeenPlayer, unum).ptr(), 0, 255, "a seen player's unum is 0-255");
      named_rows(seen, parts.ptr(), team.ptr(), unum, "SeenPlayer.parts is a dict");
      keep.push_back(team);
      keep.push_back(parts);
    }
    py::object lines = fast_sequence(SIM_HOTPATH_FIELD(vision_obj, Vision, lines).ptr(), "Vision.lines is a list");
    keep.push_back(lines);
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(lines.ptr()); ++i) {
      py::object pair = fast_sequence(PySequence_Fast_GET_ITEM(lines.ptr(), i), "a seen line is two polars");
      if (PySequence_Fast_GET_SIZE(pair.ptr()) != 2) throw py::type_error("a seen line is two polars");
      keep.push_back(pair);
      ends.push_back({line_end, nullptr, 0, PySequence_Fast_GET_ITEM(pair.ptr(), 0)});
      ends.push_back({line_end, nullptr, 0, PySequence_Fast_GET_ITEM(pair.ptr(), 1)});
    }
    truth = SIM_HOTPATH_FIELD(vision_obj, Vision, truth);
    if (!PyDict_Check(truth.ptr())) throw py::type_error("Vision.truth is a dict");
  }

  // A ground truth item (rcssserver3d's mypos, myorien, ballpos) as a float64[].
  void truth_item(CdrWriter& w, const char* key) const {
    PyObject* numbers = truth ? PyDict_GetItemString(truth.ptr(), key) : nullptr;
    if (numbers == nullptr) {
      w.count(0);
    } else {
      float64s(w, numbers, "a ground truth item is a sequence of numbers");
    }
  }

  bool updated;
  std::vector<SeenRow> seen;
  std::vector<SeenRow> ends;
  py::object truth;
  std::vector<py::object> keep;  // references the rows borrow from, alive until written
};

// sim_msgs/GameState from the percept's GameStateView: one handler per field, in the .msg's
// order (play_mode_index, half and the last touch travel on /game_state, not here).
class GameStateOut {
 public:
  GameStateOut(CdrWriter& w, PyObject* game, std::int32_t sec, std::uint32_t nanosec)
      : w_(w), game_(game), sec_(sec), nanosec_(nanosec) {}
  void stamp() {
    w_.i32(sec_);
    w_.u32(nanosec_);
  }
  void play_mode() { w_.str(SIM_HOTPATH_FIELD(game_, GameStateView, play_mode).ptr()); }
  void play_mode_index() { w_.u8(0); }
  void game_time() { w_.f64(number(SIM_HOTPATH_FIELD(game_, GameStateView, game_time).ptr())); }
  void half() { w_.u8(0); }
  void team_left() { w_.str(SIM_HOTPATH_FIELD(game_, GameStateView, team_left).ptr()); }
  void team_right() { w_.str(SIM_HOTPATH_FIELD(game_, GameStateView, team_right).ptr()); }
  void score_left() { score(SIM_HOTPATH_FIELD(game_, GameStateView, score_left).ptr()); }
  void score_right() { score(SIM_HOTPATH_FIELD(game_, GameStateView, score_right).ptr()); }
  void last_touch_team() { w_.str("", 0); }
  void last_touch_unum() { w_.u8(0); }

 private:
  void score(PyObject* value) {
    w_.u16(static_cast<std::uint16_t>(integer(value, 0, 65535, "a score is 0-65535")));
  }
  CdrWriter& w_;
  PyObject* game_;
  std::int32_t sec_;
  std::uint32_t nanosec_;
};
static_assert(SIM_MSGS_GAME_STATE_COUNT == 11, "GameStateOut writes 11 fields: sim_msgs changed");

class ForceResistanceOut {
 public:
  ForceResistanceOut(CdrWriter& w, PyObject* frp) : w_(w), frp_(frp) {}
  void name() { w_.str(SIM_HOTPATH_FIELD(frp_, ForceResistance, name).ptr()); }
  void center() { vec3(w_, SIM_HOTPATH_FIELD(frp_, ForceResistance, center).ptr(), "ForceResistance.center is 3 numbers"); }
  void force() { vec3(w_, SIM_HOTPATH_FIELD(frp_, ForceResistance, force).ptr(), "ForceResistance.force is 3 numbers"); }

 private:
  CdrWriter& w_;
  PyObject* frp_;
};
static_assert(SIM_MSGS_FORCE_RESISTANCE_COUNT == 3, "ForceResistanceOut writes 3 fields: sim_msgs changed");

class HeardOut {
 public:
  HeardOut(CdrWriter& w, PyObject* heard) : w_(w), h_(heard) {}
  void time() { w_.f64(number(SIM_HOTPATH_FIELD(h_, Heard, time).ptr())); }
  void from_self() { w_.boolean(is_true(SIM_HOTPATH_FIELD(h_, Heard, from_self).ptr())); }
  void from_teammate() { w_.boolean(is_true(SIM_HOTPATH_FIELD(h_, Heard, from_teammate).ptr())); }
  void direction() { w_.f32(static_cast<float>(number(SIM_HOTPATH_FIELD(h_, Heard, direction).ptr()))); }
  void message() { w_.str(SIM_HOTPATH_FIELD(h_, Heard, message).ptr()); }
  void team() { w_.str(SIM_HOTPATH_FIELD(h_, Heard, team).ptr()); }

 private:
  CdrWriter& w_;
  PyObject* h_;
};
static_assert(SIM_MSGS_HEARD_MESSAGE_COUNT == 6, "HeardOut writes 6 fields: sim_msgs changed");

// sim_msgs/Percept from a sim_contracts Percept: one handler per message field, called in the
// .msg's order by the generated SIM_MSGS_PERCEPT table.
class PerceptOut {
 public:
  PerceptOut(CdrWriter& w, PyObject* p, std::int32_t sec, std::uint32_t nanosec, PyObject* side, int unum)
      : w_(w), p_(p), sec_(sec), nanosec_(nanosec), side_(side), unum_(unum),
        vision_(SIM_HOTPATH_FIELD(p, Percept, vision).ptr()) {}

  void header() {
    w_.i32(sec_);
    w_.u32(nanosec_);
    w_.str("torso", 5);
  }
  void game_state() {
    py::object game = SIM_HOTPATH_FIELD(p_, Percept, game);
    GameStateOut visitor(w_, game.ptr(), sec_, nanosec_);
    SIM_MSGS_GAME_STATE(SIM_HOTPATH_VISIT_FIELD)
  }
  void unum() { w_.u8(static_cast<unsigned>(unum_)); }
  void side() { w_.str(side_); }
  void gyro() { vec3(w_, SIM_HOTPATH_FIELD(p_, Percept, gyro).ptr(), "Percept.gyro is 3 numbers"); }
  void accelerometer() { vec3(w_, SIM_HOTPATH_FIELD(p_, Percept, accel).ptr(), "Percept.accel is 3 numbers"); }
  // geometry_msgs/Pose: position, then the quaternion as x y z w (the percept holds w x y z)
  void torso_pose() {
    vec3(w_, SIM_HOTPATH_FIELD(p_, Percept, torso_position).ptr(), "Percept.torso_position is 3 numbers");
    py::object q = fast_sequence(SIM_HOTPATH_FIELD(p_, Percept, torso_quaternion).ptr(),
                                 "Percept.torso_quaternion is 4 numbers");
    if (PySequence_Fast_GET_SIZE(q.ptr()) != 4) throw py::type_error("Percept.torso_quaternion is 4 numbers");
    for (Py_ssize_t i : {1, 2, 3, 0}) w_.f64(number(PySequence_Fast_GET_ITEM(q.ptr(), i)));
  }
  void joint_names() {
    strings(w_, SIM_HOTPATH_FIELD(p_, Percept, joint_names).ptr(), "Percept.joint_names is a list of str");
  }
  void joint_angles() {
    float64s(w_, SIM_HOTPATH_FIELD(p_, Percept, joint_angles).ptr(), "Percept.joint_angles is a list of numbers");
  }
  void joint_velocities() {
    float64s(w_, SIM_HOTPATH_FIELD(p_, Percept, joint_velocities).ptr(),
             "Percept.joint_velocities is a list of numbers");
  }
  void foot_resistance() {
    py::object feet = fast_sequence(SIM_HOTPATH_FIELD(p_, Percept, foot_resistance).ptr(),
                                    "Percept.foot_resistance is a list");
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(feet.ptr());
    w_.count(n);
    for (Py_ssize_t i = 0; i < n; ++i) {
      ForceResistanceOut visitor(w_, PySequence_Fast_GET_ITEM(feet.ptr(), i));
      SIM_MSGS_FORCE_RESISTANCE(SIM_HOTPATH_VISIT_FIELD)
    }
  }
  void vision_updated() { w_.boolean(vision_.updated); }
  void seen() { vision_objects(w_, vision_.seen); }
  void line_ends() { vision_objects(w_, vision_.ends); }
  void my_pos() { vision_.truth_item(w_, "mypos"); }
  void my_orien() { vision_.truth_item(w_, "myorien"); }
  void ball_pos() { vision_.truth_item(w_, "ballpos"); }
  void heard() {
    py::object heard = fast_sequence(SIM_HOTPATH_FIELD(p_, Percept, heard).ptr(), "Percept.heard is a list");
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(heard.ptr());
    w_.count(n);
    for (Py_ssize_t i = 0; i < n; ++i) {
      HeardOut visitor(w_, PySequence_Fast_GET_ITEM(heard.ptr(), i));
      SIM_MSGS_HEARD_MESSAGE(SIM_HOTPATH_VISIT_FIELD)
    }
  }

 private:
  CdrWriter& w_;
  PyObject* p_;
  std::int32_t sec_;
  std::uint32_t nanosec_;
  PyObject* side_;
  int unum_;
  VisionRows vision_;
};
static_assert(SIM_MSGS_PERCEPT_COUNT == 18, "PerceptOut writes 18 fields: sim_msgs changed");

}  // namespace

py::bytes percept_cdr(py::handle percept, std::int32_t sec, std::uint32_t nanosec, py::handle side, int unum) {
  if (nanosec > 999'999'999u) throw py::value_error("nanosec is 0-999999999");
  if (unum < 0 || unum > 255) throw py::value_error("unum is 0-255");
  CdrWriter w;
  PerceptOut visitor(w, percept.ptr(), sec, nanosec, side.ptr(), unum);
  SIM_MSGS_PERCEPT(SIM_HOTPATH_VISIT_FIELD)
  std::string& out = w.bytes();
  return py::bytes(out.data(), out.size());
}

}  // namespace sim_hotpath
