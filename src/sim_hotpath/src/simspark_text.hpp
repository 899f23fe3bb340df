// SimSpark (rcssserver3d 0.7) perception text of a sim_contracts Percept, byte for byte what
// sim_bridge.dialects.simspark's reference encoder prints.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace sim_hotpath {

// "(See ...)" of a sim_contracts Vision.
void put_simspark_vision(std::string& out, PyObject* vision);

// The whole perception of a sim_contracts Percept.
pybind11::bytes encode_simspark_percept(pybind11::handle percept);

}  // namespace sim_hotpath
