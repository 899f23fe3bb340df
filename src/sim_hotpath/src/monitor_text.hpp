// The numbers of the legacy monitor streams: each scene node's transform as the SLT text the
// scene builder (sim_physics/scene/monitor_scene.py) puts in a frame.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "arrays.hpp"

namespace sim_hotpath {

// "(SLT m00 m10 m20 0 m01 ... px py pz 1)" (column-major 4x4) of every transform trf (N, 3, 4)
// whose `which` is set, else None: numbers as Python's "{:.6g}" (SimSpark) or "{:.4f}"
// (rcsssmj) print them.
pybind11::list slt_texts(Array<double> trf, Array<bool> which, bool rcsssmj);

}  // namespace sim_hotpath
