// The Python face of OdeWorld: numpy arrays in and out (the Gazebo module's interface), C++
// exceptions as ValueError / IndexError / RuntimeError, the GIL released while ODE steps.
// While a step runs on the step worker (step_start), every other call waits for it first
// (Settled): no reader sees a world half stepped, whoever calls.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "ode_world.hpp"

namespace py = pybind11;
using sim_ode::ModelLayout;
using sim_ode::OdeWorld;
using sim_ode::Settings;
using sim_ode::Surface;

namespace {

void SettleFirst(const OdeWorld& world) {
  if (world.Stepping()) {
    py::gil_scoped_release release;
    world.Settle();
  }
}

template <typename R, typename... A>
auto Settled(R (OdeWorld::*method)(A...)) {
  return [method](OdeWorld& world, A... args) -> R {
    SettleFirst(world);
    return (world.*method)(std::forward<A>(args)...);
  };
}

template <typename R, typename... A>
auto Settled(R (OdeWorld::*method)(A...) const) {
  return [method](const OdeWorld& world, A... args) -> R {
    SettleFirst(world);
    return (world.*method)(std::forward<A>(args)...);
  };
}

void StepNow(OdeWorld& world, int n) {
  if (world.Stepping()) throw std::logic_error("a step is already running (step_finish first)");
  py::gil_scoped_release release;
  world.Step(n);
}

}  // namespace

PYBIND11_MODULE(_ode_physics, m) {
  m.doc() = "ODE (the physics library of rcssserver3d) for the soccer engine node";
  m.attr("VELOCITY") = 0;
  m.attr("SERVO") = 1;
  m.attr("PD") = 2;
  m.attr("INFINITY") = dInfinity;
  m.def("emptied_helper_calls", &sim_ode::IslandThreads::EmptiedHelperCalls,
        "In-island helper calls of threaded steps left to the island's own thread (this process).");
  // A step ODE could not take; the world was rolled back to where the step began and steps on.
  py::register_exception<sim_ode::PhysicsFault>(m, "PhysicsFault", PyExc_RuntimeError);

  py::class_<Surface>(m, "Surface")
      .def(py::init<>())
      .def_readwrite("mu", &Surface::mu)
      .def_readwrite("soft_erp_on", &Surface::soft_erp_on)
      .def_readwrite("soft_erp", &Surface::soft_erp)
      .def_readwrite("soft_cfm_on", &Surface::soft_cfm_on)
      .def_readwrite("soft_cfm", &Surface::soft_cfm)
      .def_readwrite("slip_on", &Surface::slip_on)
      .def_readwrite("slip", &Surface::slip)
      .def_readwrite("bounce_on", &Surface::bounce_on)
      .def_readwrite("bounce", &Surface::bounce)
      .def_readwrite("bounce_vel", &Surface::bounce_vel);

  py::class_<Settings>(m, "Settings")
      .def(py::init<>())
      .def_readwrite("erp", &Settings::erp)
      .def_readwrite("cfm", &Settings::cfm)
      .def_readwrite("surface_layer", &Settings::surface_layer)
      .def_readwrite("auto_disable", &Settings::auto_disable)
      .def_readwrite("max_contacts", &Settings::max_contacts)
      .def_readwrite("pile_models", &Settings::pile_models)
      .def_readwrite("pile_contacts", &Settings::pile_contacts)
      .def_readwrite("hinge_cfm", &Settings::hinge_cfm)
      .def_readwrite("stop_cfm", &Settings::stop_cfm)
      .def_readwrite("stop_erp", &Settings::stop_erp)
      .def_readwrite("fudge", &Settings::fudge)
      .def_readwrite("stop_bounce", &Settings::stop_bounce);

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

  py::class_<OdeWorld>(m, "OdeWorld")
      .def(py::init<const std::string&, double, const Settings&>(), py::arg("world_sdf"), py::arg("timestep"),
           py::arg("settings"))
      .def("load_template", Settled(&OdeWorld::LoadTemplate), py::arg("path"))
      .def_property_readonly("template_count", Settled(&OdeWorld::TemplateCount))
      .def("add_model", Settled(&OdeWorld::AddModel), py::arg("sdf"), py::arg("is_text"), py::arg("name"), py::arg("pose"))
      .def("remove_model", Settled(&OdeWorld::RemoveModel), py::arg("name"))
      .def("layout", Settled(&OdeWorld::Layout))
      .def_property_readonly("link_count", Settled(&OdeWorld::LinkCount))
      .def_property_readonly("hinge_count", Settled(&OdeWorld::HingeCount))
      .def("link_poses", Settled(&OdeWorld::LinkPoses))
      .def("link_velocities", Settled(&OdeWorld::LinkVelocities))
      .def("hinge_states", Settled(&OdeWorld::HingeStates))
      .def("set_hinge_modes", Settled(&OdeWorld::SetHingeModes), py::arg("modes"))
      .def("set_hinge_velocities", Settled(&OdeWorld::SetHingeVelocities), py::arg("speeds"))
      .def("set_hinge_pd", Settled(&OdeWorld::SetHingePd), py::arg("q"), py::arg("dq"), py::arg("kp"), py::arg("kd"),
           py::arg("tau"))
      .def("set_link_wrench", Settled(&OdeWorld::SetLinkWrench), py::arg("link"), py::arg("force"), py::arg("torque"))
      .def("positions", Settled(&OdeWorld::Positions), py::arg("name"))
      .def("velocities", Settled(&OdeWorld::Velocities), py::arg("name"))
      .def("set_positions", Settled(&OdeWorld::SetPositions), py::arg("name"), py::arg("q"))
      .def("set_velocities", Settled(&OdeWorld::SetVelocities), py::arg("name"), py::arg("dq"))
      .def("set_root_pose", Settled(&OdeWorld::SetRootPose), py::arg("name"), py::arg("pose"))
      .def("set_root_velocity", Settled(&OdeWorld::SetRootVelocity), py::arg("name"), py::arg("linear"), py::arg("angular"))
      .def("set_surface", Settled(&OdeWorld::SetSurface), py::arg("name"), py::arg("surface"))
      .def("set_static_surfaces", Settled(&OdeWorld::SetStaticSurfaces), py::arg("planes"), py::arg("solids"))
      .def("set_drag", Settled(&OdeWorld::SetDrag), py::arg("name"), py::arg("linear"), py::arg("angular"))
      .def("step", &StepNow, py::arg("n") = 1)
      .def("step_start", &OdeWorld::StepStart, py::arg("n") = 1)  // RuntimeError while one runs
      .def("step_finish", &OdeWorld::StepFinish, py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("stepping", &OdeWorld::Stepping)
      .def_property_readonly("last_step_seconds", Settled(&OdeWorld::LastStepSeconds))
      .def("rollback", Settled(&OdeWorld::Rollback))
      .def_property_readonly("collision_faults", Settled(&OdeWorld::CollisionFaults))
      .def_property_readonly("last_collision_fault", Settled(&OdeWorld::LastCollisionFault))
      .def("contacts",
           [](const OdeWorld& world) {
             SettleFirst(world);
             auto c = world.LastContacts();
             return py::make_tuple(c.links, c.points, c.forces);
           })
      .def_property_readonly("pile_steps", Settled(&OdeWorld::PileSteps))
      .def_property("step_threads", Settled(&OdeWorld::StepThreads), Settled(&OdeWorld::SetStepThreads))
      .def_property_readonly("time", Settled(&OdeWorld::Time))
      .def_property_readonly("timestep", Settled(&OdeWorld::Timestep));
}
