// SimSpark perception text: the order of rcssserver3d 0.7's messages (time, GS, hear, GYR,
// ACC, HJ, See after the second joint, each foot's FRP after its lj5, toe FRP after lj7),
// every number with two decimals.
#include "simspark_text.hpp"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "pytext.hpp"

namespace sim_hotpath {
namespace {

// Three numbers, "x y z" with two decimals each.
void put_vec3(std::string& out, PyObject* vec, const char* what = "expected 3 numbers") {
  py::object seq = fast_sequence(vec, what);
  if (PySequence_Fast_GET_SIZE(seq.ptr()) != 3) throw py::type_error(what);
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  put_f2(out, items[0]);
  out += ' ';
  put_f2(out, items[1]);
  out += ' ';
  put_f2(out, items[2]);
}

// A Polar (distance, azimuth, elevation): any 3-sequence of numbers.
void put_pol(std::string& out, PyObject* polar) {
  out += "(pol ";
  put_vec3(out, polar, "a polar is 3 numbers");
  out += ')';
}

// "(name (pol d a e))" for each item of a {name: Polar} dict, a space before each but the
// first (`first` carries that over from what came before in the same list).
void put_named_pols(std::string& out, PyObject* dict, const char* what, bool& first) {
  if (!PyDict_Check(dict)) throw py::type_error(what);
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(dict, &pos, &key, &value)) {
    if (!first) out += ' ';
    first = false;
    out += '(';
    put_str(out, key);
    out += ' ';
    put_pol(out, value);
    out += ')';
  }
}

// Where an FRP follows a joint: after lj5 the foot, after lj7 the toe.
const char* frp_after(std::string_view joint) {
  if (joint == "rlj5") return "rf";
  if (joint == "llj5") return "lf";
  if (joint == "rlj7") return "rf1";
  if (joint == "llj7") return "lf1";
  return nullptr;
}

}  // namespace

void put_simspark_vision(std::string& out, PyObject* vision) {
  out += "(See ";
  bool first = true;  // items are separated by one space
  auto sep = [&]() {
    out += first ? "" : " ";
    first = false;
  };
  put_named_pols(out, SIM_HOTPATH_FIELD(vision, Vision, objects).ptr(), "Vision.objects is a dict", first);
  py::object players = fast_sequence(SIM_HOTPATH_FIELD(vision, Vision, players).ptr(), "Vision.players is a list");
  const Py_ssize_t n_players = PySequence_Fast_GET_SIZE(players.ptr());
  for (Py_ssize_t i = 0; i < n_players; ++i) {
    PyObject* player = PySequence_Fast_GET_ITEM(players.ptr(), i);
    sep();
    out += "(P (team ";
    put_str(out, SIM_HOTPATH_FIELD(player, SeenPlayer, team).ptr());
    out += ") (id ";
    put_int(out, SIM_HOTPATH_FIELD(player, SeenPlayer, unum).ptr());
    out += ") ";
    bool first_part = true;
    put_named_pols(out, SIM_HOTPATH_FIELD(player, SeenPlayer, parts).ptr(), "SeenPlayer.parts is a dict", first_part);
    out += ')';
  }
  py::object lines = fast_sequence(SIM_HOTPATH_FIELD(vision, Vision, lines).ptr(), "Vision.lines is a list");
  const Py_ssize_t n_lines = PySequence_Fast_GET_SIZE(lines.ptr());
  for (Py_ssize_t i = 0; i < n_lines; ++i) {
    py::object ends = fast_sequence(PySequence_Fast_GET_ITEM(lines.ptr(), i), "a seen line is two polars");
    if (PySequence_Fast_GET_SIZE(ends.ptr()) != 2) throw py::type_error("a seen line is two polars");
    sep();
    out += "(L ";
    put_pol(out, PySequence_Fast_GET_ITEM(ends.ptr(), 0));
    out += ' ';
    put_pol(out, PySequence_Fast_GET_ITEM(ends.ptr(), 1));
    out += ')';
  }
  // ground truth: (mypos x y z) (myorien a) (ballpos x y z), when the server offers it
  PyObject* truth = SIM_HOTPATH_FIELD(vision, Vision, truth).ptr();
  if (!PyDict_Check(truth)) throw py::type_error("Vision.truth is a dict");
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(truth, &pos, &key, &value)) {
    py::object numbers = fast_sequence(value, "a ground truth item is a sequence of numbers");
    sep();
    out += '(';
    put_str(out, key);
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(numbers.ptr());
    for (Py_ssize_t i = 0; i < n; ++i) {
      out += ' ';
      put_f2(out, PySequence_Fast_GET_ITEM(numbers.ptr(), i));
    }
    out += ')';
  }
  out += ')';
}

py::bytes encode_simspark_percept(py::handle percept) {
  PyObject* p = percept.ptr();
  std::string out;
  out.reserve(4096);
  out += "(time (now ";
  put_f2(out, SIM_HOTPATH_FIELD(p, Percept, time).ptr());
  out += "))(GS ";
  py::object game = SIM_HOTPATH_FIELD(p, Percept, game);
  py::object unum = SIM_HOTPATH_FIELD(game.ptr(), GameStateView, unum);
  if (is_true(unum.ptr())) {
    out += "(unum ";
    put_str(out, unum.ptr());
    out += ") (team ";
    put_str(out, SIM_HOTPATH_FIELD(game.ptr(), GameStateView, side).ptr());
    out += ") ";
  }
  out += "(sl ";
  put_int(out, SIM_HOTPATH_FIELD(game.ptr(), GameStateView, score_left).ptr());
  out += ") (sr ";
  put_int(out, SIM_HOTPATH_FIELD(game.ptr(), GameStateView, score_right).ptr());
  out += ") (t ";
  put_f2(out, SIM_HOTPATH_FIELD(game.ptr(), GameStateView, game_time).ptr());
  out += ") (pm ";
  put_str(out, SIM_HOTPATH_FIELD(game.ptr(), GameStateView, play_mode).ptr());
  out += "))";

  py::object heard = fast_sequence(SIM_HOTPATH_FIELD(p, Percept, heard).ptr(), "Percept.heard is a list");
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(heard.ptr()); ++i) {
    PyObject* h = PySequence_Fast_GET_ITEM(heard.ptr(), i);
    out += "(hear ";
    put_str(out, SIM_HOTPATH_FIELD(h, Heard, team).ptr());
    out += ' ';
    put_f2(out, SIM_HOTPATH_FIELD(h, Heard, time).ptr());
    out += ' ';
    if (is_true(SIM_HOTPATH_FIELD(h, Heard, from_self).ptr())) {
      out += "self";
    } else {
      put_f2(out, SIM_HOTPATH_FIELD(h, Heard, direction).ptr());
    }
    out += ' ';
    put_str(out, SIM_HOTPATH_FIELD(h, Heard, message).ptr());
    out += ')';
  }
  out += "(GYR (n torso) (rt ";
  put_vec3(out, SIM_HOTPATH_FIELD(p, Percept, gyro).ptr());
  out += "))(ACC (n torso) (a ";
  put_vec3(out, SIM_HOTPATH_FIELD(p, Percept, accel).ptr());
  out += "))";

  // Each foot's reading by name (the last one of a name counts, as in a dict).
  std::vector<std::pair<std::string, py::object>> frp;
  py::object feet = fast_sequence(SIM_HOTPATH_FIELD(p, Percept, foot_resistance).ptr(), "Percept.foot_resistance is a list");
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(feet.ptr()); ++i) {
    PyObject* f = PySequence_Fast_GET_ITEM(feet.ptr(), i);
    std::string name;
    put_str(name, SIM_HOTPATH_FIELD(f, ForceResistance, name).ptr());
    auto it = std::find_if(frp.begin(), frp.end(), [&](const auto& e) { return e.first == name; });
    if (it != frp.end()) {
      it->second = py::reinterpret_borrow<py::object>(f);
    } else {
      frp.emplace_back(std::move(name), py::reinterpret_borrow<py::object>(f));
    }
  }

  py::object names = fast_sequence(SIM_HOTPATH_FIELD(p, Percept, joint_names).ptr(), "Percept.joint_names is a list");
  py::object angles = fast_sequence(SIM_HOTPATH_FIELD(p, Percept, joint_angles).ptr(), "Percept.joint_angles is a list");
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(names.ptr());
  if (PySequence_Fast_GET_SIZE(angles.ptr()) < n) throw py::type_error("not enough joint angles for the joint names");
  py::object vision = SIM_HOTPATH_FIELD(p, Percept, vision);
  auto put_after = [&](std::string_view what) {
    if (what == "See") {
      if (!vision.is_none()) put_simspark_vision(out, vision.ptr());
      return;
    }
    for (const auto& [name, f] : frp) {
      if (name == what) {
        out += "(FRP (n ";
        out += name;
        out += ") (c ";
        put_vec3(out, SIM_HOTPATH_FIELD(f.ptr(), ForceResistance, center).ptr());
        out += ") (f ";
        put_vec3(out, SIM_HOTPATH_FIELD(f.ptr(), ForceResistance, force).ptr());
        out += "))";
        return;
      }
    }
  };
  // See goes after the second joint (after the last with fewer than two): "See" sorts before
  // every foot name, so it comes first where both follow one joint.
  const Py_ssize_t see_after = n >= 2 ? 1 : n - 1;
  if (n == 0) put_after("See");
  for (Py_ssize_t i = 0; i < n; ++i) {
    std::string name;
    put_str(name, PySequence_Fast_GET_ITEM(names.ptr(), i));
    out += "(HJ (n ";
    out += name;
    out += ") (ax ";
    put_f2(out, PySequence_Fast_GET_ITEM(angles.ptr(), i));
    out += "))";
    if (i == see_after) put_after("See");
    if (const char* foot = frp_after(name)) put_after(foot);
  }
  return py::bytes(out);
}

}  // namespace sim_hotpath
