// Hinge speed messages: a strict subset of what the dialect's parser accepts (printable ASCII,
// flat lists, plain decimal numbers), read in one pass; anything outside it is handed back.
#include "effectors.hpp"

#include <charconv>
#include <cstdint>
#include <string>
#include <cmath>
#include <string_view>

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

bool named_effector(std::string_view name) {
  return name == "syn" || name == "scene" || name == "init" || name == "beam" || name == "say" || name == "pass";
}

}  // namespace

pybind11::object parse_simspark_hinges(pybind11::bytes payload) {
  namespace py = pybind11;
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(payload.ptr(), &data, &size) != 0) throw py::error_already_set();
  const std::string_view text(data, static_cast<size_t>(size));
  for (char c : text)
    if (!((c >= 0x20 && c <= 0x7e) || is_space(c))) return py::none();
  py::dict speeds;
  long syns = 0;
  size_t i = 0;
  const size_t n = text.size();
  while (true) {
    while (i < n && is_space(text[i])) ++i;
    if (i == n) break;
    if (text[i] != '(') return py::none();
    ++i;
    std::string_view tokens[3];
    int count = 0;
    while (true) {
      while (i < n && is_space(text[i])) ++i;
      if (i == n || text[i] == '(') return py::none();
      if (text[i] == ')') {
        ++i;
        break;
      }
      const size_t start = i;
      while (i < n && !is_space(text[i]) && text[i] != '(' && text[i] != ')') ++i;
      if (count == 2) return py::none();  // more than (name value)
      tokens[count++] = text.substr(start, i - start);
    }
    if (count == 1 && tokens[0] == "syn") {
      ++syns;
      continue;
    }
    if (count != 2 || named_effector(tokens[0]) || !plain_number(tokens[1])) return py::none();
    std::string_view digits = tokens[1];
    if (digits.front() == '+') digits.remove_prefix(1);  // from_chars takes no '+'
    double value = 0;
    const auto read = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (read.ec != std::errc() || read.ptr != digits.data() + digits.size() || !std::isfinite(value))
      return py::none();
    speeds[py::str(tokens[0].data(), tokens[0].size())] = value;
  }
  return py::make_tuple(speeds, syns);
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

}  // namespace sim_hotpath
