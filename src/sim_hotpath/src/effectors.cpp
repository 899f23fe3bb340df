// Hinge speed messages: a strict subset of what the dialect's parser accepts (printable ASCII,
// flat lists, plain decimal numbers), read in one pass; anything outside it is handed back.
#include "effectors.hpp"

#include <charconv>
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
