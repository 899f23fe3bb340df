// Python values to wire text, each exactly as Python's own formatting prints it: "%.2f" of a
// number, str() of a string or an integer. The perception texts are built from these alone.
#pragma once

#include <Python.h>
#include <pybind11/pybind11.h>

#include <charconv>
#include <cmath>
#include <string>

#include "sim_hotpath_tables.hpp"

namespace sim_hotpath {

namespace py = pybind11;

// A Python number as a double (float, int, numpy scalar), or the Python error raised.
inline double as_double(PyObject* value) {
  if (PyFloat_CheckExact(value)) return PyFloat_AS_DOUBLE(value);
  const double v = PyFloat_AsDouble(value);
  if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

// How Python prints a NaN or an infinity whatever the format: nan (never -nan), inf, -inf.
// False (nothing printed) for a finite v.
inline bool put_nonfinite(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
    return true;
  }
  if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
    return true;
  }
  return false;
}

// bool(value), or the Python error raised.
inline bool is_true(PyObject* value) {
  const int truth = PyObject_IsTrue(value);
  if (truth < 0) throw py::error_already_set();
  return truth != 0;
}

// A list or tuple as it is, subclasses too (a Polar is a tuple subclass, which
// PySequence_Fast would copy into a new list: twice the time of a See), anything else iterable
// copied into a list; to index with PySequence_Fast_GET_ITEM. TypeError `what` otherwise.
inline py::object fast_sequence(PyObject* obj, const char* what) {
  if (PyTuple_Check(obj) || PyList_Check(obj)) return py::reinterpret_borrow<py::object>(obj);
  py::object seq = py::reinterpret_steal<py::object>(PySequence_Fast(obj, what));
  if (!seq) throw py::error_already_set();
  return seq;
}

// "%.2f" % v: correctly rounded like Python's (both round the exact binary value); Python
// prints nan and inf without digits and drops the sign of a NaN.
inline void put_f2(std::string& out, double v) {
  // Most numbers: round v * 100 to an integer. v * 100 is off the exact product by at most half
  // an ulp (< 1e-7 below 1e7), so away from a tie (.5) the rounding is the exact value's.
  if (std::abs(v) < 1e7) {
    const double scaled = std::abs(v) * 100.0;
    const double whole = std::floor(scaled);
    const double frac = scaled - whole;
    if (std::abs(frac - 0.5) > 1e-6) {
      const long long cents = static_cast<long long>(whole) + (frac > 0.5 ? 1 : 0);
      char buf[32];
      char* end = buf + sizeof buf;
      char* p = end;
      const long long units = cents / 100;
      const int rest = static_cast<int>(cents % 100);
      *--p = static_cast<char>('0' + rest % 10);
      *--p = static_cast<char>('0' + rest / 10);
      *--p = '.';
      long long u = units;
      do {
        *--p = static_cast<char>('0' + u % 10);
        u /= 10;
      } while (u != 0);
      if (std::signbit(v)) *--p = '-';
      out.append(p, end);
      return;
    }
  }
  if (put_nonfinite(out, v)) return;
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

// getattr(obj, name) as a new reference, raising the Python error. `name` is a string
// literal: its interned Python string is made once per call site.
#define SIM_HOTPATH_ATTR(obj, name)                                   \
  ([](PyObject* o) {                                                  \
    static PyObject* const key = PyUnicode_InternFromString(name);    \
    PyObject* value = PyObject_GetAttr(o, key);                       \
    if (value == nullptr) throw py::error_already_set();              \
    return py::reinterpret_steal<py::object>(value);                  \
  }(obj))

// getattr(obj, <attribute of the sim_contracts class cls>): the name comes from the table
// generated from sim_contracts (sim_hotpath_tables.hpp), so a renamed attribute fails the build.
#define SIM_HOTPATH_FIELD(obj, cls, name) SIM_HOTPATH_ATTR(obj, ::sim_hotpath::contract::cls::name)

// Calls visitor.<field>() for each field a generated message table lists, in its order.
#define SIM_HOTPATH_VISIT_FIELD(name) visitor.name();

}  // namespace sim_hotpath
