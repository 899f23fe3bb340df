// Reads XCDR1 as rmw_fastrtps writes it (see percept_cdr.cpp for the layout): each field in
// declaration order aligned to its own size from the end of the 4-byte encapsulation header.
// Every read is bounds-checked: the bytes come from any participant of the domain, so a short
// or lying message is a ValueError naming `what`, never a read past the end.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace sim_hotpath {

class CdrReader {
 public:
  CdrReader(std::string_view data, const char* what) : data_(data), what_(what) {
    if (data_.size() < 4) fail("not a serialized message (under 4 bytes)");
    if (data_[0] != 0 || data_[1] != 1) fail("only little-endian CDR is read (encapsulation 00 01)");
    pos_ = 4;
  }

  std::uint8_t u8() {
    need(1);
    return static_cast<std::uint8_t>(data_[pos_++]);
  }
  bool boolean() { return u8() != 0; }
  std::uint16_t u16() { return get<std::uint16_t>(); }
  std::int32_t i32() { return get<std::int32_t>(); }
  std::uint32_t u32() { return get<std::uint32_t>(); }
  float f32() { return get<float>(); }
  double f64() { return get<double>(); }

  // A sequence's element count, at most what the remaining bytes can hold at `min_size` each.
  std::uint32_t count(std::size_t min_size) {
    const std::uint32_t n = u32();
    if (static_cast<std::uint64_t>(n) * min_size > data_.size() - pos_) fail("a sequence is longer than the message");
    return n;
  }

  // A string field as a Python str (strict UTF-8).
  pybind11::str str() {
    const std::string_view text = raw_str();
    PyObject* out = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "strict");
    if (out == nullptr) {
      PyErr_Clear();
      fail("a string is not UTF-8");
    }
    return pybind11::reinterpret_steal<pybind11::str>(out);
  }

  // A string field's bytes (without its NUL), checked but not decoded.
  std::string_view raw_str() {
    const std::uint32_t size = u32();
    if (size == 0) fail("a string without its terminating NUL");
    need(size);
    if (data_[pos_ + size - 1] != '\0') fail("a string without its terminating NUL");
    std::string_view text(data_.data() + pos_, size - 1);
    pos_ += size;
    return text;
  }

  pybind11::list float64s() {
    const std::uint32_t n = count(8);
    pybind11::list out(n);
    for (std::uint32_t i = 0; i < n; ++i) PyList_SET_ITEM(out.ptr(), i, float_object(f64()));
    return out;
  }

  pybind11::list strs() {
    const std::uint32_t n = count(5);  // a string is at least its length and NUL
    pybind11::list out(n);
    for (std::uint32_t i = 0; i < n; ++i) PyList_SET_ITEM(out.ptr(), i, str().release().ptr());
    return out;
  }

  bool at_end() const { return pos_ == data_.size(); }

  [[noreturn]] void fail(const char* why) const { throw pybind11::value_error(std::string(what_) + ": " + why); }

  static PyObject* float_object(double v) {
    PyObject* value = PyFloat_FromDouble(v);
    if (value == nullptr) throw pybind11::error_already_set();
    return value;
  }

 private:
  void need(std::size_t size) const {
    if (size > data_.size() - pos_) fail("the message ends too early");
  }

  template <typename T>
  T get() {
    const std::size_t misalign = (pos_ - 4) % sizeof(T);
    if (misalign != 0) {
      need(sizeof(T) - misalign);
      pos_ += sizeof(T) - misalign;
    }
    need(sizeof(T));
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));  // little-endian hosts only (x86-64, aarch64)
    pos_ += sizeof(T);
    return v;
  }

  std::string_view data_;
  const char* what_;
  std::size_t pos_ = 0;
};

}  // namespace sim_hotpath
