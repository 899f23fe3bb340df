// rcsssmj (0.2) perception text of a sim_contracts Percept, byte for byte what
// sim_bridge.dialects.rcsssmj's reference encoder prints: numbers truncated to their digits
// and printed as Python prints floats.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace sim_hotpath {

// str(float(v)) of Python: the shortest digits that read back as v; exponent form below 1e-4
// and from 1e16.
void put_python_float(std::string& out, double v);

// What the reference prints for v kept to `digits` decimals: |v| * 10^digits rounded to 6
// decimals (as numpy rounds), truncated, scaled back, printed as Python prints it, with a
// '-' for a negative v (-0.0 too).
void put_truncated(std::string& out, double v, int digits);

pybind11::bytes encode_rcsssmj_percept(pybind11::handle percept);

}  // namespace sim_hotpath
