// The effector message every agent sends every cycle, parsed without Python objects per
// token: SimSpark's `(he1 1.5)(he2 -0.3)...(syn)`.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace sim_hotpath {

// (speeds {name: rad/s}, number of (syn)) when the message holds only hinge speeds and
// (syn); None for anything else (init, beam, say, an odd number, odd characters), which the
// dialect's full parser then reads, errors included. Names other than the dialect's named
// effectors with one finite number are hinge speeds, exactly as that parser takes them.
pybind11::object parse_simspark_hinges(pybind11::bytes payload);

}  // namespace sim_hotpath

namespace sim_hotpath {

// SimSpark hinge speeds into a robot's controller arrays (sim_master's engine/robot.py
// keeps their meaning): each name found in `names_index` sets mode[i] = velocity_mode and
// v_cmd[i] = the speed cut to +-max_speed[i]. Returns (errors, whether a mode changed); the
// errors read as the Python controller's.
pybind11::tuple command_speeds(pybind11::dict names_index, pybind11::dict speeds, pybind11::array mode,
                               pybind11::array max_speed, pybind11::array v_cmd, int velocity_mode);

}  // namespace sim_hotpath

namespace sim_hotpath {

// ({motor: (q rad, dq rad/s, kp, kd, tau)}, number of (syn)) when an rcsssmj message holds
// only motor nodes `(name q dq kp kd tau)` (degrees on the wire) and (syn); None for anything
// else, which the dialect's full parser reads.
pybind11::object parse_rcsssmj_motors(pybind11::bytes payload);

// rcsssmj PD commands into a robot's controller arrays, when every command names a joint
// and holds 5 finite numbers within `bounds` with kp, kd >= 0: sets mode pd_mode, kp, kd
// (noting a change), q_target, dq_target, tau, and v_cmd 0; returns whether a joint's mode
// or gains changed. None (nothing changed) otherwise: the Python controller then refuses
// what it must, one error each.
pybind11::object command_pd(pybind11::dict names_index, pybind11::dict targets, pybind11::array mode,
                            pybind11::array kp, pybind11::array kd, pybind11::array q_target,
                            pybind11::array dq_target, pybind11::array tau, pybind11::array v_cmd, int pd_mode,
                            pybind11::tuple bounds);

}  // namespace sim_hotpath
