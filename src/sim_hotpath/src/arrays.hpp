// numpy arrays as the kernels take them: C-contiguous doubles (or the type asked for),
// converted if need be, and refused with a ValueError naming the argument when their shape
// is not the one the kernel indexes.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace sim_hotpath {

namespace py = pybind11;

template <typename T>
using Array = py::array_t<T, py::array::c_style | py::array::forcecast>;

// shape: the sizes wanted, -1 for any size of that axis.
template <typename T>
void require_shape(const Array<T>& a, const std::vector<py::ssize_t>& shape, const char* what) {
  bool ok = a.ndim() == static_cast<py::ssize_t>(shape.size());
  for (size_t i = 0; ok && i < shape.size(); ++i) ok = shape[i] < 0 || a.shape(i) == shape[i];
  if (!ok) throw py::value_error(std::string("bad shape of ") + what);
}

}  // namespace sim_hotpath
