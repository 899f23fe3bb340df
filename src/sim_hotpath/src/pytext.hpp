// Python values to wire text, each exactly as Python's own formatting prints it: "%.2f" of a
// number, str() of a string or an integer. The perception texts are built from these alone.
#pragma once

#include <Python.h>
#include <pybind11/pybind11.h>

#include <charconv>
#include <cmath>
#include <string>

namespace sim_hotpath {

namespace py = pybind11;

// A Python number as a double (float, int, numpy scalar), or the Python error raised.
inline double as_double(PyObject* value) {
  const double v = PyFloat_AsDouble(value);
  if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

// "%.2f" % v: correctly rounded like Python's (both round the exact binary value); Python
// prints nan and inf without digits and drops the sign of a NaN.
inline void put_f2(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
    return;
  }
  char buf[400];  // the largest double prints 309 digits before the point
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 2);
  out.append(buf, r.ptr);
}

inline void put_f2(std::string& out, PyObject* value) { put_f2(out, as_double(value)); }

// str(value), UTF-8 (what `.encode()` of the whole text gives).
inline void put_str(std::string& out, PyObject* value) {
  if (PyUnicode_CheckExact(value)) {
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(value, &size);
    if (text == nullptr) throw py::error_already_set();
    out.append(text, static_cast<size_t>(size));
    return;
  }
  py::str text = py::str(value);
  put_str(out, text.ptr());
}

// "%d" % value: an integer (a float is truncated, as Python's %d does).
inline void put_int(std::string& out, PyObject* value) {
  if (PyLong_CheckExact(value)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (!overflow) {
      if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
      char buf[24];
      const auto r = std::to_chars(buf, buf + sizeof buf, v);
      out.append(buf, r.ptr);
      return;
    }
  }
  py::object number = py::reinterpret_steal<py::object>(PyNumber_Long(value));
  if (!number) throw py::error_already_set();
  put_str(out, number.ptr());
}

// getattr(obj, name) as a new reference, raising the Python error.
inline py::object attr(PyObject* obj, const char* name) {
  PyObject* value = PyObject_GetAttrString(obj, name);
  if (value == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(value);
}

}  // namespace sim_hotpath
