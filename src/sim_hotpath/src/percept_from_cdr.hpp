// sim_msgs/Percept CDR bytes -> a sim_contracts Percept (the inverse of percept_cdr.hpp).
#pragma once

#include <pybind11/pybind11.h>

namespace sim_hotpath {

// The Percept of serialized sim_msgs/Percept `data`; `types` are sim_contracts.percept's
// (Percept, GameStateView, ForceResistance, Vision, SeenPlayer, Polar, Heard). ValueError for
// bytes that are not such a message.
pybind11::object percept_from_cdr(pybind11::bytes data, pybind11::tuple types);

}  // namespace sim_hotpath
