"""rcssserver3d's ODE figures, written down once: the world settings of spark.rb and the
contact surfaces and joint parameters of its RSG scene files (the Nao's contactjointhandler,
touchperceptorhandler, hingejoint and dragcontroller; the field's plane; the ball).

Why a table: the ODE engine reproduces SimSpark's scene as built, and every number has a
place in rcssserver3d 0.7.3 it comes from (said beside it). Two quirks of those files are
kept because they are what agents walk on: the field's `setContactSlip` takes one value, so
its two-value call leaves slip at the handler default 5e-3; and its second
`setContactSoftCFM` sets a value without turning soft CFM on, so foot-field contacts take the
foot's CFM alone and the mean of both ERPs (0.4)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SurfaceFigures:
    """One ContactJointHandler; None = that parameter's mode is off."""

    soft_erp: float | None = None
    soft_cfm: float | None = None
    slip: float | None = None
    bounce: tuple[float, float] | None = None  # restitution, minimum approach speed m/s


# spark.rb: global CFM, contact surface layer, auto-disable; ODE's default ERP 0.2
WORLD_ERP = 0.2
WORLD_CFM = 1e-5
SURFACE_LAYER = 0.001
AUTO_DISABLE = True
MAX_CONTACTS = 4  # oxygen's collision callback: dCollide(..., 4, ...)
# Not rcssserver3d's: its exact solver costs the cube of an island's rows, so robots piled
# into one island (3 or more, or 2 touching at more than 40 points) stall it for up to a
# second per step; here such an island alone is solved iteratively (OdeWorld::SolveIslands).
PILE_MODELS = 3
PILE_CONTACTS = 40
# nao/hingejoint.rsg: motor FMax comes from each joint's effort (10 N m there)
HINGE_CFM = 1e-8
STOP_CFM = 1e-8
STOP_ERP = 0.8
FUDGE_FACTOR = 1e-5
STOP_BOUNCE = 1.0
# nao/contactjointhandler.rsg (every robot part) and touchperceptorhandler.rsg (feet): the same
ROBOT = SurfaceFigures(soft_erp=0.6, soft_cfm=1e-4, slip=5e-3)
# nao/soccer.rsg: the field plane (slip stays the default 5e-3, CFM mode off, see above)
FIELD = SurfaceFigures(soft_erp=0.2, slip=5e-3)
# nao/goal.rsg's posts, bar and walls have no handler of their own: a collider without one gets
# oxygen's default ContactJointHandler (bounce 0.8 above 2 m/s, nothing soft, no slip)
GOAL = SurfaceFigures(bounce=(0.8, 2.0))
# ball.rsg
BALL = SurfaceFigures(soft_erp=0.5, soft_cfm=0.05, slip=0.6, bounce=(0.8, 0.8))
# nao/dragcontroller.rsg: on every robot body, F = -0.01 v, T = -0.01 w
ROBOT_DRAG = (0.01, 0.01)
