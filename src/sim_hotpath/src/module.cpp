// _hotpath: the per-agent work of a cycle, compiled (see CMakeLists.txt for why a module).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "effectors.hpp"
#include "joint_command_cdr.hpp"
#include "monitor_text.hpp"
#include "percept_cdr.hpp"
#include "sim_hotpath_tables.hpp"
#include "percept_from_cdr.hpp"
#include "rcsssmj_text.hpp"
#include "sensors.hpp"
#include "simspark_text.hpp"
#include "vision.hpp"

namespace py = pybind11;
using sim_hotpath::Figures;
using sim_hotpath::VisionKernel;

PYBIND11_MODULE(_hotpath, m) {
  m.doc() = "The per-agent hot path: vision for all cameras, SimSpark perception text, hinge speed messages.";

  py::class_<Figures>(m, "Figures")
      .def(py::init([](double view_half_angle_deg, double min_distance, double sigma_distance_per_100m,
                       double sigma_azimuth_deg, double sigma_elevation_deg) {
             return Figures{view_half_angle_deg, min_distance, sigma_distance_per_100m, sigma_azimuth_deg,
                            sigma_elevation_deg};
           }),
           py::arg("view_half_angle_deg"), py::arg("min_distance"), py::arg("sigma_distance_per_100m"),
           py::arg("sigma_azimuth_deg"), py::arg("sigma_elevation_deg"));

  py::class_<VisionKernel>(m, "VisionKernel")
      .def(py::init<py::list, sim_hotpath::Array<double>,
                    sim_hotpath::Array<double>,
                    sim_hotpath::Array<bool>, py::object, py::object, py::object,
                    Figures, bool, std::uint64_t>(),
           py::arg("names"), py::arg("landmarks"), py::arg("lines"), py::arg("shown"), py::arg("polar"),
           py::arg("seen_player"), py::arg("vision"), py::arg("figures"), py::arg("noise"), py::arg("seed"))
      .def("set_owners", &VisionKernel::set_owners, py::arg("groups"))
      .def("see", &VisionKernel::see, py::arg("cam_pos"), py::arg("cam_rot"), py::arg("calib"), py::arg("noisy"),
           py::arg("lines"), py::arg("dialect"), py::arg("points"));

  m.def("encode_simspark_percept", &sim_hotpath::encode_simspark_percept, py::arg("percept"),
        "A sim_contracts Percept as rcssserver3d 0.7's perception text.");
  m.def("parse_simspark_hinges", &sim_hotpath::parse_simspark_hinges, py::arg("payload"),
        "({hinge: speed}, number of (syn)) of a message of hinge speeds and (syn) only, else None.");
  m.def("command_speeds", &sim_hotpath::command_speeds, py::arg("names_index"), py::arg("speeds"), py::arg("mode"),
        py::arg("max_speed"), py::arg("v_cmd"), py::arg("velocity_mode"),
        "Hinge speeds into a robot's controller arrays: (errors, whether a joint's mode changed).");
  m.def("foot_readings", &sim_hotpath::foot_readings, py::arg("links"), py::arg("points"), py::arg("forces"),
        py::arg("slot_of_link"), py::arg("poses"), py::arg("foot_links"), py::arg("box_pos"), py::arg("box_rot"),
        py::arg("last"), "Every sensing foot's FRP (centre, force) in its box's frame and SimSpark axes, or None.");
  m.def("encode_rcsssmj_percept", &sim_hotpath::encode_rcsssmj_percept, py::arg("percept"),
        "A sim_contracts Percept as rcsssmj 0.2's perception text.");
  m.def("parse_rcsssmj_motors", &sim_hotpath::parse_rcsssmj_motors, py::arg("payload"),
        "({motor: (q, dq, kp, kd, tau)} in radians, number of (syn)) of a message of motor nodes and (syn) only, "
        "else None.");
  m.def("command_pd", &sim_hotpath::command_pd, py::arg("names_index"), py::arg("targets"), py::arg("mode"),
        py::arg("kp"), py::arg("kd"), py::arg("q_target"), py::arg("dq_target"), py::arg("tau"), py::arg("v_cmd"),
        py::arg("pd_mode"), py::arg("bounds"),
        "PD commands into a robot's controller arrays when all are valid: whether a mode or gain changed; else None.");
  m.def("contact_owners", &sim_hotpath::contact_owners, py::arg("links"), py::arg("link_robot"), py::arg("ball_link"),
        "(robot rows touching the ball, pairs of robot rows touching each other) of a step's contacts.");
  m.def("slt_texts", &sim_hotpath::slt_texts, py::arg("trf"), py::arg("which"), py::arg("rcsssmj"),
        "The SLT text of every selected transform of a monitor frame, else None.");
  // the sim_msgs type hashes the CDR code was generated for (sim_bridge.ros.cdr_path checks them)
  m.attr("PERCEPT_TYPE_HASH") = SIM_MSGS_PERCEPT_TYPE_HASH;
  m.attr("JOINT_COMMAND_TYPE_HASH") = SIM_MSGS_JOINT_COMMAND_TYPE_HASH;
  m.def("percept_cdr", &sim_hotpath::percept_cdr, py::arg("percept"), py::arg("sec"), py::arg("nanosec"),
        py::arg("side"), py::arg("unum"),
        "A sim_contracts Percept as serialized sim_msgs/Percept (CDR), ready for Publisher.publish.");
  m.def("percept_from_cdr", &sim_hotpath::percept_from_cdr, py::arg("data"), py::arg("types"),
        "The sim_contracts Percept of a serialized sim_msgs/Percept (CDR); types are sim_contracts.percept's "
        "(Percept, GameStateView, ForceResistance, Vision, SeenPlayer, Polar, Heard). ValueError for malformed bytes.");
  m.def("joint_command_from_cdr", &sim_hotpath::joint_command_from_cdr, py::arg("data"),
        "(mode, names, velocities, q, dq, kp, kd, tau, synchronize) of a serialized sim_msgs/JointCommand; "
        "ValueError for malformed bytes.");
  m.def("imu_readings", &sim_hotpath::imu_readings, py::arg("poses"), py::arg("twists"), py::arg("imu_links"),
        py::arg("vel_prev"), py::arg("gravity"), py::arg("dt"),
        "(acc, gyro deg/s, linear velocity) of every robot's IMU link, in its axes.");
  m.def("state_health", &sim_hotpath::state_health, py::arg("poses"), py::arg("twists"), py::arg("speed_limit_sq"),
        py::arg("spin_limit_sq"), py::arg("z_min"), py::arg("z_max"),
        "(what, value) of a step's state: 0 healthy, 1 not finite, 2 too fast, 3 spinning, 4 out of height.");
}
