// Hinge speed messages: a strict subset of what the dialect's parser accepts (printable ASCII,
// flat lists, plain decimal numbers), read in one pass; anything outside it is handed back.
#include "effectors.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sim_hotpath {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?: forms every agent sends, each
// read by from_chars exactly as Python's float() reads it (both round correctly, neither
// depends on the locale).
bool plain_number(std::string_view s) {
  size_t i = 0, n = s.size();
  if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
  size_t digits = 0;
  while (i < n && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (i < n && s[i] == '.') {
    ++i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == n;
}

bool read_number(std::string_view token, double& value) {
  if (!plain_number(token)) return false;
  if (token.front() == '+') token.remove_prefix(1);  // from_chars takes no '+'
  const auto read = std::from_chars(token.data(), token.data() + token.size(), value);
  return read.ec == std::errc() && read.ptr == token.data() + token.size() && std::isfinite(value);
}

// Calls item(tokens, count) for each top-level list of a flat message of printable ASCII;
// false as soon as the message or an item (more than max_tokens, nested) is not of that shape.
template <int MaxTokens, typename Item>
bool scan_flat(std::string_view text, Item item) {
  for (char c : text)
    if (!((c >= 0x20 && c <= 0x7e) || is_space(c))) return false;
  size_t i = 0;
  const size_t n = text.size();
  while (true) {
    while (i < n && is_space(text[i])) ++i;
    if (i == n) return true;
    if (text[i] != '(') return false;
    ++i;
    std::string_view tokens[MaxTokens];
    int count = 0;
    while (true) {
      while (i < n && is_space(text[i])) ++i;
      if (i == n || text[i] == '(') return false;
      if (text[i] == ')') {
        ++i;
        break;
      }
      const size_t start = i;
      while (i < n && !is_space(text[i]) && text[i] != '(' && text[i] != ')') ++i;
      if (count == MaxTokens) return false;
      tokens[count++] = text.substr(start, i - start);
    }
    if (!item(tokens, count)) return false;
  }
}

// The every-cycle message of either dialect: (syn) counted here, every other top-level list
// handed to item(tokens, count). The number of (syn), or nothing when the message is not of
// that shape (the dialect's Python parser reads it then).
template <int MaxTokens, typename Item>
std::optional<long> scan_actions(pybind11::bytes payload, Item item) {
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(payload.ptr(), &data, &size) != 0) throw pybind11::error_already_set();
  long syns = 0;
  const bool ok = scan_flat<MaxTokens>(std::string_view(data, static_cast<size_t>(size)),
                                       [&](const std::string_view* tokens, int count) {
    if (count == 1 && tokens[0] == "syn") {
      ++syns;
      return true;
    }
    return item(tokens, count);
  });
  if (!ok) return std::nullopt;
  return syns;
}

bool named_effector(std::string_view name) {
  return name == "syn" || name == "scene" || name == "init" || name == "beam" || name == "say" || name == "pass";
}

}  // namespace

pybind11::object parse_simspark_hinges(pybind11::bytes payload) {
  namespace py = pybind11;
  py::dict speeds;
  const auto syns = scan_actions<2>(payload, [&](const std::string_view* tokens, int count) {
    double value = 0;
    if (count != 2 || named_effector(tokens[0]) || !read_number(tokens[1], value)) return false;
    speeds[py::str(tokens[0].data(), tokens[0].size())] = value;
    return true;
  });
  if (!syns) return py::none();
  return py::make_tuple(speeds, *syns);
}

pybind11::object parse_rcsssmj_motors(pybind11::bytes payload) {
  namespace py = pybind11;
  constexpr double kRadians = M_PI / 180.0;  // math.radians multiplies by this
  py::dict targets;
  const auto syns = scan_actions<6>(payload, [&](const std::string_view* tokens, int count) {
    const std::string_view name = tokens[0];
    if (count != 6 || name == "syn" || name == "init" || name == "beam" || name == "SPK") return false;
    double v[5];
    for (int k = 0; k < 5; ++k)
      if (!read_number(tokens[k + 1], v[k])) return false;
    targets[py::str(name.data(), name.size())] = py::make_tuple(v[0] * kRadians, v[1] * kRadians, v[2], v[3], v[4]);
    return true;
  });
  if (!syns) return py::none();
  return py::make_tuple(targets, *syns);
}

}  // namespace sim_hotpath

namespace sim_hotpath {
namespace {

template <typename T>
T* writable(pybind11::array& a, const char* what, pybind11::ssize_t n) {
  namespace py = pybind11;
  if (!a.dtype().is(py::dtype::of<T>()) || !(a.flags() & py::array::c_style) || !a.writeable() || a.ndim() != 1 ||
      a.shape(0) != n)
    throw py::type_error(std::string(what) + ": a writable contiguous 1-d array of the joints' length");
  return static_cast<T*>(a.mutable_data());
}

std::string repr(PyObject* obj) {
  namespace py = pybind11;
  py::str text = py::repr(obj);
  return text.cast<std::string>();
}

}  // namespace

pybind11::tuple command_speeds(pybind11::dict names_index, pybind11::dict speeds, pybind11::array mode,
                               pybind11::array max_speed, pybind11::array v_cmd, int velocity_mode) {
  namespace py = pybind11;
  const py::ssize_t n = mode.ndim() == 1 ? mode.shape(0) : -1;
  auto* modes = writable<std::int8_t>(mode, "mode", n);
  auto* limits = writable<double>(max_speed, "max_speed", n);
  auto* commanded = writable<double>(v_cmd, "v_cmd", n);
  py::list errors;
  bool changed = false;
  PyObject *name, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(speeds.ptr(), &pos, &name, &value)) {
    PyObject* index = PyDict_GetItemWithError(names_index.ptr(), name);
    if (index == nullptr) {
      if (PyErr_Occurred()) throw py::error_already_set();
      errors.append("unknown joint effector " + repr(name));
      continue;
    }
    const long i = PyLong_AsLong(index);
    if (i == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (i < 0 || i >= n) throw py::index_error("joint index out of range");
    const double v = PyFloat_AsDouble(value);
    if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    if (!std::isfinite(v)) {
      errors.append("non-finite speed " + repr(value) + " for " + repr(name) + " rejected");
      continue;
    }
    if (modes[i] != velocity_mode) {
      modes[i] = static_cast<std::int8_t>(velocity_mode);
      changed = true;
    }
    const double limit = limits[i];
    commanded[i] = v > limit ? limit : v < -limit ? -limit : v;
  }
  return py::make_tuple(errors, changed);
}

pybind11::object command_pd(pybind11::dict names_index, pybind11::dict targets, pybind11::array mode,
                            pybind11::array kp, pybind11::array kd, pybind11::array q_target,
                            pybind11::array dq_target, pybind11::array tau, pybind11::array v_cmd, int pd_mode,
                            pybind11::tuple bounds) {
  namespace py = pybind11;
  const py::ssize_t n = mode.ndim() == 1 ? mode.shape(0) : -1;
  auto* modes = writable<std::int8_t>(mode, "mode", n);
  double* arrays[6];  // kp, kd, q_target, dq_target, tau, v_cmd
  py::array* given[6] = {&kp, &kd, &q_target, &dq_target, &tau, &v_cmd};
  const char* names[6] = {"kp", "kd", "q_target", "dq_target", "tau", "v_cmd"};
  for (int k = 0; k < 6; ++k) arrays[k] = writable<double>(*given[k], names[k], n);
  if (bounds.size() != 5) throw py::value_error("bounds: 5 numbers");
  double bound[5];
  for (int k = 0; k < 5; ++k) bound[k] = bounds[k].cast<double>();
  // First check everything (nothing changes unless every command is taken) ...
  std::vector<std::pair<long, std::array<double, 5>>> taken;
  PyObject *name, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(targets.ptr(), &pos, &name, &value)) {
    PyObject* index = PyDict_GetItemWithError(names_index.ptr(), name);
    if (index == nullptr) {
      if (PyErr_Occurred()) throw py::error_already_set();
      return py::none();
    }
    const long i = PyLong_AsLong(index);
    if (i == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (i < 0 || i >= n) throw py::index_error("joint index out of range");
    if (!PyTuple_Check(value) || PyTuple_GET_SIZE(value) != 5) return py::none();
    std::array<double, 5> v{};
    for (int k = 0; k < 5; ++k) {
      PyObject* item = PyTuple_GET_ITEM(value, k);
      if (!PyFloat_Check(item) && !PyLong_Check(item)) return py::none();
      v[k] = PyFloat_AsDouble(item);
      if (v[k] == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return py::none();
      }
      if (!std::isfinite(v[k]) || std::abs(v[k]) > bound[k]) return py::none();
    }
    if (v[2] < 0 || v[3] < 0) return py::none();
    taken.emplace_back(i, v);
  }
  // ... then take it all.
  bool changed = false;
  for (const auto& [i, v] : taken) {
    if (modes[i] != pd_mode || arrays[0][i] != v[2] || arrays[1][i] != v[3]) {
      modes[i] = static_cast<std::int8_t>(pd_mode);
      arrays[0][i] = v[2];
      arrays[1][i] = v[3];
      changed = true;
    }
    arrays[2][i] = v[0];
    arrays[3][i] = v[1];
    arrays[4][i] = v[4];
    arrays[5][i] = 0.0;
  }
  return py::bool_(changed);
}

}  // namespace sim_hotpath
