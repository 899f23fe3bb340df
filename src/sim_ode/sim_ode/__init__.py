"""ODE for the soccer engine node: `OdeWorld` (the C++ module `_ode_physics` over Debian's
libode, the library rcssserver3d steps, with SDFormat 12 reading our files). The engine node
over it is sim_physics.engine.ode."""
from sim_ode._ode_physics import (
    INFINITY,
    PD,
    SERVO,
    VELOCITY,
    ModelLayout,
    OdeWorld,
    PhysicsFault,
    Settings,
    Surface,
    emptied_helper_calls,
)

__all__ = ["INFINITY", "PD", "SERVO", "VELOCITY", "ModelLayout", "OdeWorld", "PhysicsFault", "Settings", "Surface",
           "emptied_helper_calls"]
