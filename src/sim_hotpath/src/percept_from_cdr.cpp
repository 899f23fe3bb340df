// sim_msgs/Percept from the CDR bytes rmw_fastrtps delivers, straight into the sim_contracts
// Percept a dialect encodes: what the agent bridge does for every agent every cycle, where
// rclpy's conversion to a message and then to a Percept cost ~0.3 ms a percept (issue 44).
// The field order is sim_msgs/msg/Percept.msg's, as percept_cdr.cpp writes it; the bridge
// holds the two readers equal at start and falls back to rclpy's otherwise, and
// test_percept_contract.py holds this one to sim_bridge.ros.percepts.percept_from_msg.
#include "percept_from_cdr.hpp"

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "cdr_reader.hpp"

namespace py = pybind11;

namespace sim_hotpath {
namespace {

py::tuple cdr_vec3(CdrReader& r) {
  const double x = r.f64(), y = r.f64(), z = r.f64();
  return py::make_tuple(x, y, z);
}

// One sim_msgs/VisionObjects as its columns.
struct CdrObjects {
  py::list names, teams;
  std::vector<std::uint8_t> unums;
  std::vector<float> columns[3];
};

CdrObjects cdr_objects(CdrReader& r) {
  CdrObjects o;
  o.names = r.strs();
  o.teams = r.strs();
  const std::uint32_t n = r.count(1);
  o.unums.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) o.unums.push_back(r.u8());
  for (auto& column : o.columns) {
    const std::uint32_t m = r.count(4);
    column.reserve(m);
    for (std::uint32_t i = 0; i < m; ++i) column.push_back(r.f32());
  }
  const std::size_t rows = py::len(o.names);
  if (py::len(o.teams) != rows || o.unums.size() != rows || o.columns[0].size() != rows ||
      o.columns[1].size() != rows || o.columns[2].size() != rows)
    r.fail("the columns of a VisionObjects differ in length");
  return o;
}

py::object cdr_polar(const py::handle& polar, const CdrObjects& o, std::size_t i) {
  return polar(static_cast<double>(o.columns[0][i]), static_cast<double>(o.columns[1][i]),
               static_cast<double>(o.columns[2][i]));
}

}  // namespace

py::object percept_from_cdr(py::bytes data, py::tuple types) {
  if (py::len(types) != 7) throw py::type_error("types: (Percept, GameStateView, ForceResistance, Vision, SeenPlayer, Polar, Heard)");
  const py::handle percept_t = types[0], game_t = types[1], frp_t = types[2], vision_t = types[3],
                   seen_player_t = types[4], polar_t = types[5], heard_t = types[6];
  char* buffer = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(data.ptr(), &buffer, &size) != 0) throw py::error_already_set();
  CdrReader r(std::string_view(buffer, static_cast<std::size_t>(size)), "percept");
  // std_msgs/Header
  const std::int32_t sec = r.i32();
  const std::uint32_t nanosec = r.u32();
  r.raw_str();  // frame_id
  // sim_msgs/GameState: its own stamp, play_mode_index, half and the last touch are /game_state's
  r.i32();
  r.u32();
  py::str play_mode = r.str();
  r.u8();
  const double game_time = r.f64();
  r.u8();
  py::str team_left = r.str();
  py::str team_right = r.str();
  const std::uint16_t score_left = r.u16(), score_right = r.u16();
  r.raw_str();
  r.u8();
  const std::uint8_t unum = r.u8();
  py::str side = r.str();
  py::tuple gyro = cdr_vec3(r);
  py::tuple accel = cdr_vec3(r);
  py::tuple position = cdr_vec3(r);
  const double qx = r.f64(), qy = r.f64(), qz = r.f64(), qw = r.f64();
  py::list joint_names = r.strs();
  py::list joint_angles = r.float64s();
  py::list joint_velocities = r.float64s();
  const std::uint32_t feet = r.count(5 + 48);
  py::list foot_resistance(feet);
  for (std::uint32_t i = 0; i < feet; ++i) {
    py::str name = r.str();
    py::tuple center = cdr_vec3(r);
    py::tuple force = cdr_vec3(r);
    PyList_SET_ITEM(foot_resistance.ptr(), i, frp_t(name, center, force).release().ptr());
  }
  const bool vision_updated = r.boolean();
  CdrObjects seen = cdr_objects(r);
  CdrObjects ends = cdr_objects(r);
  py::list truth_values[3] = {r.float64s(), r.float64s(), r.float64s()};
  const std::uint32_t heard_n = r.count(8 + 1 + 1 + 4 + 5 + 5);
  py::list heard(heard_n);
  for (std::uint32_t i = 0; i < heard_n; ++i) {
    const double time = r.f64();
    const bool from_self = r.boolean(), from_teammate = r.boolean();
    const double direction = static_cast<double>(r.f32());
    py::str message = r.str();
    py::str team = r.str();
    PyList_SET_ITEM(heard.ptr(), i, heard_t(time, direction, message, from_self, from_teammate, team).release().ptr());
  }
  // bytes after the message are not read (rclpy's serializer leaves its buffer's estimate)

  py::object vision = py::none();
  if (vision_updated) {
    py::dict objects;
    py::dict players;  // (team, unum) -> SeenPlayer, in first-seen order
    py::list player_list;
    for (std::size_t i = 0; i < seen.unums.size(); ++i) {
      py::handle name = PyList_GET_ITEM(seen.names.ptr(), static_cast<Py_ssize_t>(i));
      py::handle team = PyList_GET_ITEM(seen.teams.ptr(), static_cast<Py_ssize_t>(i));
      py::object polar = cdr_polar(polar_t, seen, i);
      if (PyUnicode_GET_LENGTH(team.ptr()) == 0) {
        objects[name] = polar;
        continue;
      }
      py::tuple key = py::make_tuple(team, seen.unums[i]);
      PyObject* player = PyDict_GetItem(players.ptr(), key.ptr());  // borrowed
      if (player == nullptr) {
        py::object made = seen_player_t(team, static_cast<int>(seen.unums[i]), py::dict());
        players[key] = made;
        player_list.append(made);
        player = made.ptr();
      }
      py::object parts = py::reinterpret_borrow<py::object>(player).attr("parts");
      parts[name] = polar;
    }
    if (ends.unums.size() % 2 != 0) r.fail("line ends come in pairs");
    py::list lines;
    for (std::size_t i = 0; i + 1 < ends.unums.size(); i += 2)
      lines.append(py::make_tuple(cdr_polar(polar_t, ends, i), cdr_polar(polar_t, ends, i + 1)));
    py::dict truth;
    const char* keys[3] = {"mypos", "myorien", "ballpos"};
    for (int k = 0; k < 3; ++k) {
      if (py::len(truth_values[k]) > 0) truth[keys[k]] = py::tuple(truth_values[k]);
    }
    vision = vision_t(objects, player_list, lines, truth);
  }
  py::object game = game_t(play_mode, game_time, static_cast<int>(score_left), static_cast<int>(score_right),
                           team_left, team_right, static_cast<int>(unum), side);
  py::dict kwargs;
  kwargs["time"] = static_cast<double>(sec) + static_cast<double>(nanosec) * 1e-9;
  kwargs["game"] = game;
  kwargs["gyro"] = gyro;
  kwargs["accel"] = accel;
  kwargs["joint_names"] = joint_names;
  kwargs["joint_angles"] = joint_angles;
  kwargs["joint_velocities"] = joint_velocities;
  kwargs["foot_resistance"] = foot_resistance;
  kwargs["torso_position"] = position;
  kwargs["torso_quaternion"] = py::make_tuple(qw, qx, qy, qz);
  kwargs["vision"] = vision;
  kwargs["heard"] = heard;
  return percept_t(**kwargs);
}

}  // namespace sim_hotpath
