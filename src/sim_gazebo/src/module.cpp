// The Python face of GzWorld: numpy arrays in and out, C++ exceptions as ValueError /
// IndexError / RuntimeError, the GIL released while DART steps.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "gz_world.hpp"

namespace py = pybind11;
using sim_gazebo::GzWorld;
using sim_gazebo::ModelLayout;

PYBIND11_MODULE(_gz_physics, m) {
  m.doc() = "Gazebo physics (Ignition Physics 5, DART plugin, SDFormat 12) for the soccer engine node";
  m.attr("VELOCITY") = 0;
  m.attr("SERVO") = 1;
  m.attr("PD") = 2;

  py::class_<ModelLayout>(m, "ModelLayout")
      .def_readonly("name", &ModelLayout::name)
      .def_readonly("links", &ModelLayout::links)
      .def_readonly("hinges", &ModelLayout::hinges)
      .def_readonly("lower", &ModelLayout::lower)
      .def_readonly("upper", &ModelLayout::upper)
      .def_readonly("effort", &ModelLayout::effort)
      .def_readonly("first_link", &ModelLayout::first_link)
      .def_readonly("first_hinge", &ModelLayout::first_hinge)
      .def_readonly("is_static", &ModelLayout::is_static);

  py::class_<GzWorld>(m, "GzWorld")
      .def(py::init<const std::string&, double>(), py::arg("world_sdf"), py::arg("timestep"))
      .def("add_model", &GzWorld::AddModel, py::arg("sdf"), py::arg("is_text"), py::arg("name"), py::arg("pose"))
      .def("remove_model", &GzWorld::RemoveModel, py::arg("name"))
      .def("layout", &GzWorld::Layout)
      .def_property_readonly("link_count", &GzWorld::LinkCount)
      .def_property_readonly("hinge_count", &GzWorld::HingeCount)
      .def("link_poses", &GzWorld::LinkPoses)
      .def("link_velocities", &GzWorld::LinkVelocities)
      .def("hinge_states", &GzWorld::HingeStates)
      .def("set_hinge_modes", &GzWorld::SetHingeModes, py::arg("modes"))
      .def("set_hinge_velocities", &GzWorld::SetHingeVelocities, py::arg("speeds"))
      .def("set_hinge_pd", &GzWorld::SetHingePd, py::arg("q"), py::arg("dq"), py::arg("kp"), py::arg("kd"),
           py::arg("tau"))
      .def("set_link_wrench", &GzWorld::SetLinkWrench, py::arg("link"), py::arg("force"), py::arg("torque"))
      .def("positions", &GzWorld::Positions, py::arg("name"))
      .def("velocities", &GzWorld::Velocities, py::arg("name"))
      .def("set_positions", &GzWorld::SetPositions, py::arg("name"), py::arg("q"))
      .def("set_velocities", &GzWorld::SetVelocities, py::arg("name"), py::arg("dq"))
      .def("set_root_pose", &GzWorld::SetRootPose, py::arg("name"), py::arg("pose"))
      .def("set_root_velocity", &GzWorld::SetRootVelocity, py::arg("name"), py::arg("linear"), py::arg("angular"))
      .def("set_friction", &GzWorld::SetFriction, py::arg("name"), py::arg("mu"))
      .def("set_slip_compliance", &GzWorld::SetSlipCompliance, py::arg("name"), py::arg("slip"))
      .def_static("set_contact_model", &GzWorld::SetContactModel, py::arg("erp"), py::arg("cfm"),
                  py::arg("allowance"), py::arg("max_erv"))
      .def("step", &GzWorld::Step, py::arg("n") = 1, py::call_guard<py::gil_scoped_release>())
      .def("contacts",
           [](const GzWorld& world) {
             auto c = world.LastContacts();
             return py::make_tuple(c.links, c.points, c.forces);
           })
      .def_property_readonly("time", &GzWorld::Time)
      .def_property_readonly("motors_at_effort", &GzWorld::MotorsAtEffort)
      .def_property_readonly("timestep", &GzWorld::Timestep);
}
