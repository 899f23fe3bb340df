// rcsssmj perception text: time, GS, quat, pos, GYR, ACC (torso axes), HJ in rcsssmj's joint
// order with angle and speed, MIC (base64 of Latin-1), See of objects and players (no lines).
#include "rcsssmj_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "pytext.hpp"

namespace sim_hotpath {

void put_python_float(std::string& out, double v) {
  if (put_nonfinite(out, v)) return;
  if (v == 0) {
    out += std::signbit(v) ? "-0.0" : "0.0";
    return;
  }
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);  // shortest
  std::string_view text(buf, static_cast<size_t>(r.ptr - buf));
  if (text.front() == '-') {
    out += '-';
    text.remove_prefix(1);
  }
  const size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e))
    if (c != '.') digits += c;
  int exponent = 0;
  std::string_view exp_text = text.substr(e + 1);
  if (exp_text.front() == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
  const int decpt = exponent + 1;  // v = 0.DIGITS x 10^decpt
  const int n = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {
    out += digits[0];
    if (n > 1) {
      out += '.';
      out.append(digits, 1, std::string::npos);
    }
    const int shown = decpt - 1;
    out += shown < 0 ? "e-" : "e+";
    const int magnitude = std::abs(shown);
    if (magnitude < 10) out += '0';
    out += std::to_string(magnitude);
  } else if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-decpt), '0');
    out += digits;
  } else if (decpt >= n) {
    out += digits;
    out.append(static_cast<size_t>(decpt - n), '0');
    out += ".0";
  } else {
    out.append(digits, 0, static_cast<size_t>(decpt));
    out += '.';
    out.append(digits, static_cast<size_t>(decpt), std::string::npos);
  }
}

void put_truncated(std::string& out, double v, int digits) {
  const double scale = digits == 2 ? 100.0 : digits == 3 ? 1000.0 : std::pow(10.0, digits);
  const double rounded = std::nearbyint(std::abs(v) * scale * 1e6) / 1e6;  // numpy's round(x, 6)
  const double cut = std::trunc(rounded) / scale;
  if (std::signbit(v)) out += '-';
  put_python_float(out, cut);
}

namespace {

void put_numbers(std::string& out, PyObject* seq_obj, size_t n, int digits, const char* what) {
  py::object seq = fast_sequence(seq_obj, what);
  if (static_cast<size_t>(PySequence_Fast_GET_SIZE(seq.ptr())) != n) throw py::type_error(what);
  for (size_t i = 0; i < n; ++i) {
    if (i) out += ' ';
    put_truncated(out, as_double(PySequence_Fast_GET_ITEM(seq.ptr(), i)), digits);
  }
}

// rcsssmj's HJ order: head, left arm, right arm, torso, left leg, right leg; others last.
int joint_group(std::string_view name) {
  static const char* const prefixes[] = {"hj", "laj", "raj", "tj", "llj", "rlj"};
  for (int g = 0; g < 6; ++g)
    if (name.substr(0, std::string_view(prefixes[g]).size()) == prefixes[g]) return g;
  return 9;
}

const char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(const std::string& bytes) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += kBase64[(v >> 18) & 63], out += kBase64[(v >> 12) & 63], out += kBase64[(v >> 6) & 63];
    out += kBase64[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    out += kBase64[(v >> 18) & 63], out += kBase64[(v >> 12) & 63], out += "==";
  } else if (i + 2 == bytes.size()) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += kBase64[(v >> 18) & 63], out += kBase64[(v >> 12) & 63], out += kBase64[(v >> 6) & 63], out += '=';
  }
  return out;
}

// message.encode("latin-1", "replace"): a character above U+00FF becomes '?'.
std::string latin1(PyObject* text) {
  if (!PyUnicode_Check(text)) throw py::type_error("a heard message is a str");
  std::string out;
  const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
  for (Py_ssize_t i = 0; i < n; ++i) {
    const Py_UCS4 c = PyUnicode_READ_CHAR(text, i);
    out += c <= 0xff ? static_cast<char>(c) : '?';
  }
  return out;
}

void put_mj_pol(std::string& out, PyObject* polar) {
  out += "(pol ";
  put_numbers(out, polar, 3, 2, "a polar is 3 numbers");
  out += ')';
}

// "(name (pol d a e))" for each item of a {name: Polar} dict, nothing between them.
void put_named_mj_pols(std::string& out, PyObject* dict, const char* what) {
  if (!PyDict_Check(dict)) throw py::type_error(what);
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(dict, &pos, &key, &value)) {
    out += '(';
    put_str(out, key);
    out += ' ';
    put_mj_pol(out, value);
    out += ')';
  }
}

}  // namespace

py::bytes encode_rcsssmj_percept(py::handle percept) {
  PyObject* p = percept.ptr();
  std::string out;
  out.reserve(4096);
  py::object game = SIM_HOTPATH_FIELD(p, Percept, game);
  out += "(time (now ";
  put_truncated(out, as_double(SIM_HOTPATH_FIELD(p, Percept, time).ptr()), 2);
  out += "))(GS (t ";
  put_truncated(out, as_double(SIM_HOTPATH_FIELD(game.ptr(), GameStateView, game_time).ptr()), 3);
  out += ")(pm ";
  put_str(out, SIM_HOTPATH_FIELD(game.ptr(), GameStateView, play_mode).ptr());
  out += ')';
  const std::pair<py::object, const char*> teams[] = {
      {SIM_HOTPATH_FIELD(game.ptr(), GameStateView, team_left), "(tl "},
      {SIM_HOTPATH_FIELD(game.ptr(), GameStateView, team_right), "(tr "}};
  for (const auto& [team, tag] : teams) {
    if (is_true(team.ptr())) {
      out += tag;
      put_str(out, team.ptr());
      out += ')';
    }
  }
  out += "(sl ";
  put_str(out, SIM_HOTPATH_FIELD(game.ptr(), GameStateView, score_left).ptr());
  out += ")(sr ";
  put_str(out, SIM_HOTPATH_FIELD(game.ptr(), GameStateView, score_right).ptr());
  out += "))(quat (n torso_quat) (q ";
  put_numbers(out, SIM_HOTPATH_FIELD(p, Percept, torso_quaternion).ptr(), 4, 3, "torso_quaternion is 4 numbers");
  out += "))(pos (n torso_pos) (p ";
  put_numbers(out, SIM_HOTPATH_FIELD(p, Percept, torso_position).ptr(), 3, 3, "torso_position is 3 numbers");
  // GYR and ACC in the torso frame (x forward, y left, z up); the Percept carries them in
  // SimSpark's body axes (x right, y forward, z up).
  const std::pair<py::object, const char*> imu[] = {
      {SIM_HOTPATH_FIELD(p, Percept, gyro), "))(GYR (n torso_gyro) (rt "},
      {SIM_HOTPATH_FIELD(p, Percept, accel), "))(ACC (n torso_acc) (a "}};
  for (const auto& [vec, head] : imu) {
    py::object seq = fast_sequence(vec.ptr(), "expected 3 numbers");
    if (PySequence_Fast_GET_SIZE(seq.ptr()) != 3) throw py::type_error("expected 3 numbers");
    PyObject* x_item = PySequence_Fast_GET_ITEM(seq.ptr(), 0);
    const double x = as_double(x_item);
    const double y = as_double(PySequence_Fast_GET_ITEM(seq.ptr(), 1));
    const double z = as_double(PySequence_Fast_GET_ITEM(seq.ptr(), 2));
    // -x as Python negates it: an integer 0 stays 0 (a float 0.0 becomes -0.0)
    const double minus_x = (x == 0 && PyLong_Check(x_item)) ? 0.0 : -x;
    out += head;
    put_truncated(out, y, 2);
    out += ' ';
    put_truncated(out, minus_x, 2);
    out += ' ';
    put_truncated(out, z, 2);
  }
  out += "))";

  py::object names = fast_sequence(SIM_HOTPATH_FIELD(p, Percept, joint_names).ptr(), "Percept.joint_names is a list");
  py::object angles = fast_sequence(SIM_HOTPATH_FIELD(p, Percept, joint_angles).ptr(), "Percept.joint_angles is a list");
  py::object speeds = fast_sequence(SIM_HOTPATH_FIELD(p, Percept, joint_velocities).ptr(), "Percept.joint_velocities is a list");
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(names.ptr());
  if (PySequence_Fast_GET_SIZE(angles.ptr()) != n || PySequence_Fast_GET_SIZE(speeds.ptr()) != n)
    throw py::type_error("one joint angle and one joint speed per joint name");
  std::vector<std::pair<int, Py_ssize_t>> order;
  std::vector<std::string> joint(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    put_str(joint[i], PySequence_Fast_GET_ITEM(names.ptr(), i));
    order.emplace_back(joint_group(joint[i]), i);
  }
  std::sort(order.begin(), order.end());
  for (const auto& [_, i] : order) {
    out += "(HJ (n q_";
    out += joint[i];
    out += ")(ax ";
    put_truncated(out, as_double(PySequence_Fast_GET_ITEM(angles.ptr(), i)), 2);
    out += ")(vx ";
    put_truncated(out, as_double(PySequence_Fast_GET_ITEM(speeds.ptr(), i)), 2);
    out += "))";
  }

  py::object heard = fast_sequence(SIM_HOTPATH_FIELD(p, Percept, heard).ptr(), "Percept.heard is a list");
  std::string mic;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(heard.ptr()); ++i) {
    PyObject* h = PySequence_Fast_GET_ITEM(heard.ptr(), i);
    if (is_true(SIM_HOTPATH_FIELD(h, Heard, from_self).ptr())) continue;
    const std::string bytes = latin1(SIM_HOTPATH_FIELD(h, Heard, message).ptr());
    if (bytes.size() > 10) continue;  // rcsssmj drops longer messages
    const double direction = std::nearbyint(as_double(SIM_HOTPATH_FIELD(h, Heard, direction).ptr()));  // round half even
    if (!std::isfinite(direction)) throw py::value_error("a heard direction is finite");
    mic += '(';
    mic += std::to_string(static_cast<long long>(direction));
    mic += ' ';
    mic += base64(bytes);
    mic += ')';
  }
  if (!mic.empty()) {
    out += "(MIC hear ";
    out += mic;
    out += ')';
  }

  py::object vision = SIM_HOTPATH_FIELD(p, Percept, vision);
  if (!vision.is_none()) {
    out += "(See ";
    put_named_mj_pols(out, SIM_HOTPATH_FIELD(vision.ptr(), Vision, objects).ptr(), "Vision.objects is a dict");
    py::object players = fast_sequence(SIM_HOTPATH_FIELD(vision.ptr(), Vision, players).ptr(), "Vision.players is a list");
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(players.ptr()); ++i) {
      PyObject* player = PySequence_Fast_GET_ITEM(players.ptr(), i);
      out += "(P (team ";
      put_str(out, SIM_HOTPATH_FIELD(player, SeenPlayer, team).ptr());
      out += ")(id ";
      put_str(out, SIM_HOTPATH_FIELD(player, SeenPlayer, unum).ptr());
      out += ')';
      put_named_mj_pols(out, SIM_HOTPATH_FIELD(player, SeenPlayer, parts).ptr(), "SeenPlayer.parts is a dict");
      out += ')';
    }
    out += ')';
  }
  return py::bytes(out);
}

}  // namespace sim_hotpath
