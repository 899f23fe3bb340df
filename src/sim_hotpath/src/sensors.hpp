// Sensors read from a step's arrays, for every robot at once: what the engine node computes
// after each physics step (rcssserver3d's ForceResistancePerceptor on every sensing foot).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "arrays.hpp"

namespace sim_hotpath {


// Every sensing foot's FRP in its box's frame and SimSpark axes: contacts (C, 2) link pairs,
// their points and forces on the first link (world); slot_of_link (L): the foot row of a
// link or -1; poses (L, 7) x y z qw qx qy qz; foot_links (F); box_pos (F, 3) and box_rot
// (F, 3, 3): the foot's box in its link. Each contact point counts with weight |f|. A list
// of F items: ((centre), (force)) for a foot whose contacts carry force; for a foot touching
// with no force (asleep: ODE does not step it) `last[i]`, or zeros if that is None; None
// for a foot without contact.
py::list foot_readings(Array<std::int64_t> links, Array<double> points, Array<double> forces,
                       Array<std::int64_t> slot_of_link, Array<double> poses, Array<std::int64_t> foot_links,
                       Array<double> box_pos, Array<double> box_rot, py::list last);

}  // namespace sim_hotpath

namespace sim_hotpath {

// Every robot's IMU from link states: for the link imu_links[r], with its linear velocity v
// and last cycle's vel_prev[r] (NaN: none yet, read as no change), acc = R^T ((v - vel_prev)
// / dt - gravity) and gyro = R^T w in deg/s, both in the link's axes; and v itself (the next
// vel_prev). Returns (acc (R, 3), gyro (R, 3), v (R, 3)).
py::tuple imu_readings(Array<double> poses, Array<double> twists, Array<std::int64_t> imu_links,
                       Array<double> vel_prev, Array<double> gravity, double dt);

}  // namespace sim_hotpath

namespace sim_hotpath {

// Who touched what in a step's contacts: link_robot (L) maps a link to its robot's row or -1.
// Returns (rows of robots touching the ball link, pairs (a < b) of rows of robots touching
// each other), each once, in order of first contact.
py::tuple contact_owners(Array<std::int64_t> links, Array<std::int64_t> link_robot, std::int64_t ball_link);

}  // namespace sim_hotpath

namespace sim_hotpath {

// A step's state checked in one pass (sim_physics.engine.recovery.health): poses (L, 7),
// twists (L, 6), per link the squared speed and spin limits, the heights allowed. Returns
// (what, value): 0 healthy; 1 a value not finite; 2 a link over its speed limit (value: the
// fastest link's speed); 3 over its spin limit (the fastest spin); 4 a link out of the height
// band (the height farthest from 0). Checked in that order, as the Python reference does.
py::tuple state_health(Array<double> poses, Array<double> twists, Array<double> speed_limit_sq,
                       Array<double> spin_limit_sq, double z_min, double z_max);

}  // namespace sim_hotpath
