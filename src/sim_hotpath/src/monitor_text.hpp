// The numbers of the legacy monitor streams: each scene node's transform as the SLT text the
// scene builder (sim_master/server/monitor_scene.py) puts in a frame.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace sim_hotpath {

// "(SLT m00 m10 m20 0 m01 ... px py pz 1)" (column-major 4x4) of every transform trf (N, 3, 4)
// whose `which` is set, else None: numbers as Python's "{:.6g}" (SimSpark) or "{:.4f}"
// (rcsssmj) print them.
pybind11::list slt_texts(pybind11::array_t<double, pybind11::array::c_style | pybind11::array::forcecast> trf,
                         pybind11::array_t<bool, pybind11::array::c_style | pybind11::array::forcecast> which,
                         bool rcsssmj);

}  // namespace sim_hotpath
