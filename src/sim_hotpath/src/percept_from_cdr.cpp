// sim_msgs/Percept from the CDR bytes rmw_fastrtps delivers, straight into the sim_contracts
// Percept a dialect encodes: what the agent bridge does for every agent every cycle, where
// rclpy's conversion to a message and then to a Percept cost ~0.3 ms a percept (issue 44).
// The field order is the generated table's (sim_hotpath_tables.hpp, from Percept.msg); the bridge
// holds the two readers equal at start and falls back to rclpy's otherwise, and
// test_percept_contract.py holds this one to sim_bridge.ros.percepts.percept_from_msg.
#include "percept_from_cdr.hpp"

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "cdr_reader.hpp"
#include "pytext.hpp"

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

// The values of one sim_msgs/GameState: one handler per field, called in the .msg's order
// (its own stamp, play_mode_index, half and the last touch are /game_state's: skipped).
struct GameStateIn {
  explicit GameStateIn(CdrReader& reader) : r(reader) {}
  void stamp() {
    r.i32();
    r.u32();
  }
  void play_mode() { play_mode_value = r.str(); }
  void play_mode_index() { r.u8(); }
  void game_time() { game_time_value = r.f64(); }
  void half() { r.u8(); }
  void team_left() { team_left_value = r.str(); }
  void team_right() { team_right_value = r.str(); }
  void score_left() { score_left_value = r.u16(); }
  void score_right() { score_right_value = r.u16(); }
  void last_touch_team() { r.raw_str(); }
  void last_touch_unum() { r.u8(); }

  CdrReader& r;
  py::str play_mode_value, team_left_value, team_right_value;
  double game_time_value = 0.0;
  std::uint16_t score_left_value = 0, score_right_value = 0;
};
static_assert(SIM_MSGS_GAME_STATE_COUNT == 11, "GameStateIn reads 11 fields: sim_msgs changed");

struct ForceResistanceIn {
  explicit ForceResistanceIn(CdrReader& reader) : r(reader) {}
  void name() { name_value = r.str(); }
  void center() { center_value = cdr_vec3(r); }
  void force() { force_value = cdr_vec3(r); }

  CdrReader& r;
  py::str name_value;
  py::tuple center_value, force_value;
};
static_assert(SIM_MSGS_FORCE_RESISTANCE_COUNT == 3, "ForceResistanceIn reads 3 fields: sim_msgs changed");

struct HeardIn {
  explicit HeardIn(CdrReader& reader) : r(reader) {}
  void time() { time_value = r.f64(); }
  void from_self() { from_self_value = r.boolean(); }
  void from_teammate() { from_teammate_value = r.boolean(); }
  void direction() { direction_value = static_cast<double>(r.f32()); }
  void message() { message_value = r.str(); }
  void team() { team_value = r.str(); }

  CdrReader& r;
  double time_value = 0.0, direction_value = 0.0;
  bool from_self_value = false, from_teammate_value = false;
  py::str message_value, team_value;
};
static_assert(SIM_MSGS_HEARD_MESSAGE_COUNT == 6, "HeardIn reads 6 fields: sim_msgs changed");

// A smallest size of one element, for the sequences' counts to be checked against the bytes.
constexpr std::size_t kMinFootBytes = 5 + 48;
constexpr std::size_t kMinHeardBytes = 8 + 1 + 1 + 4 + 5 + 5;

// The values of one sim_msgs/Percept: one handler per field, called in the .msg's order by
// the generated SIM_MSGS_PERCEPT table.
struct PerceptIn {
  PerceptIn(CdrReader& reader, py::handle frp, py::handle heard_type) : r(reader), frp_t(frp), heard_t(heard_type) {}

  void header() {
    sec = r.i32();
    nanosec = r.u32();
    r.raw_str();  // frame_id
  }
  void game_state() {
    GameStateIn visitor(r);
    SIM_MSGS_GAME_STATE(SIM_HOTPATH_VISIT_FIELD)
    game.emplace(std::move(visitor));
  }
  void unum() { unum_value = r.u8(); }
  void side() { side_value = r.str(); }
  void gyro() { gyro_value = cdr_vec3(r); }
  void accelerometer() { accel_value = cdr_vec3(r); }
  void torso_pose() {
    position = cdr_vec3(r);
    const double qx = r.f64(), qy = r.f64(), qz = r.f64(), qw = r.f64();
    quaternion = py::make_tuple(qw, qx, qy, qz);
  }
  void joint_names() { joint_names_value = r.strs(); }
  void joint_angles() { joint_angles_value = r.float64s(); }
  void joint_velocities() { joint_velocities_value = r.float64s(); }
  void foot_resistance() {
    const std::uint32_t n = r.count(kMinFootBytes);
    feet = py::list(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      ForceResistanceIn visitor(r);
      SIM_MSGS_FORCE_RESISTANCE(SIM_HOTPATH_VISIT_FIELD)
      PyList_SET_ITEM(feet.ptr(), i,
                      frp_t(visitor.name_value, visitor.center_value, visitor.force_value).release().ptr());
    }
  }
  void vision_updated() { vision_updated_value = r.boolean(); }
  void seen() { seen_value = cdr_objects(r); }
  void line_ends() { ends_value = cdr_objects(r); }
  void my_pos() { truth_values[0] = r.float64s(); }
  void my_orien() { truth_values[1] = r.float64s(); }
  void ball_pos() { truth_values[2] = r.float64s(); }
  void heard() {
    const std::uint32_t n = r.count(kMinHeardBytes);
    heard_value = py::list(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      HeardIn visitor(r);
      SIM_MSGS_HEARD_MESSAGE(SIM_HOTPATH_VISIT_FIELD)
      PyList_SET_ITEM(heard_value.ptr(), i,
                      heard_t(visitor.time_value, visitor.direction_value, visitor.message_value,
                              visitor.from_self_value, visitor.from_teammate_value, visitor.team_value)
                          .release()
                          .ptr());
    }
  }

  CdrReader& r;
  py::handle frp_t, heard_t;
  std::int32_t sec = 0;
  std::uint32_t nanosec = 0;
  std::optional<GameStateIn> game;
  std::uint8_t unum_value = 0;
  py::str side_value;
  py::tuple gyro_value, accel_value, position, quaternion;
  py::list joint_names_value, joint_angles_value, joint_velocities_value, feet;
  bool vision_updated_value = false;
  CdrObjects seen_value, ends_value;
  py::list truth_values[3];
  py::list heard_value;
};
static_assert(SIM_MSGS_PERCEPT_COUNT == 18, "PerceptIn reads 18 fields: sim_msgs changed");

}  // namespace

py::object percept_from_cdr(py::bytes data, py::tuple types) {
  if (py::len(types) != 7) throw py::type_error("types: (Percept, GameStateView, ForceResistance, Vision, SeenPlayer, Polar, Heard)");
  const py::handle percept_t = types[0], game_t = types[1], frp_t = types[2], vision_t = types[3],
                   seen_player_t = types[4], polar_t = types[5], heard_t = types[6];
  char* buffer = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(data.ptr(), &buffer, &size) != 0) throw py::error_already_set();
  CdrReader r(std::string_view(buffer, static_cast<std::size_t>(size)), "percept");
  PerceptIn visitor(r, frp_t, heard_t);
  SIM_MSGS_PERCEPT(SIM_HOTPATH_VISIT_FIELD)
  // bytes after the message are not read (rclpy's serializer leaves its buffer's estimate)
  const PerceptIn& m = visitor;

  py::object vision = py::none();
  if (m.vision_updated_value) {
    const CdrObjects& seen = m.seen_value;
    const CdrObjects& ends = m.ends_value;
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
      py::object parts = SIM_HOTPATH_FIELD(player, SeenPlayer, parts);
      parts[name] = polar;
    }
    if (ends.unums.size() % 2 != 0) r.fail("line ends come in pairs");
    py::list lines;
    for (std::size_t i = 0; i + 1 < ends.unums.size(); i += 2)
      lines.append(py::make_tuple(cdr_polar(polar_t, ends, i), cdr_polar(polar_t, ends, i + 1)));
    py::dict truth;
    const char* keys[3] = {"mypos", "myorien", "ballpos"};
    for (int k = 0; k < 3; ++k) {
      if (py::len(m.truth_values[k]) > 0) truth[keys[k]] = py::tuple(m.truth_values[k]);
    }
    vision = vision_t(objects, player_list, lines, truth);
  }
  namespace c = contract;
  py::dict game_kwargs;
  game_kwargs[c::GameStateView::play_mode] = m.game->play_mode_value;
  game_kwargs[c::GameStateView::game_time] = m.game->game_time_value;
  game_kwargs[c::GameStateView::score_left] = static_cast<int>(m.game->score_left_value);
  game_kwargs[c::GameStateView::score_right] = static_cast<int>(m.game->score_right_value);
  game_kwargs[c::GameStateView::team_left] = m.game->team_left_value;
  game_kwargs[c::GameStateView::team_right] = m.game->team_right_value;
  game_kwargs[c::GameStateView::unum] = static_cast<int>(m.unum_value);
  game_kwargs[c::GameStateView::side] = m.side_value;
  static_assert(c::GameStateView::count == 8, "every GameStateView attribute is set above");
  py::dict kwargs;
  kwargs[c::Percept::time] = static_cast<double>(m.sec) + static_cast<double>(m.nanosec) * 1e-9;
  kwargs[c::Percept::game] = game_t(**game_kwargs);
  kwargs[c::Percept::gyro] = m.gyro_value;
  kwargs[c::Percept::accel] = m.accel_value;
  kwargs[c::Percept::joint_names] = m.joint_names_value;
  kwargs[c::Percept::joint_angles] = m.joint_angles_value;
  kwargs[c::Percept::joint_velocities] = m.joint_velocities_value;
  kwargs[c::Percept::foot_resistance] = m.feet;
  kwargs[c::Percept::torso_position] = m.position;
  kwargs[c::Percept::torso_quaternion] = m.quaternion;
  kwargs[c::Percept::vision] = vision;
  kwargs[c::Percept::heard] = m.heard_value;
  static_assert(c::Percept::count == 12, "every Percept attribute is set above");
  return percept_t(**kwargs);
}

}  // namespace sim_hotpath
