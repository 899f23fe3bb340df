"""What the SimSpark monitor stream shows of each part, named as rcssserver3d names it, so
that RoboViz (and other rcssserver3d monitors) draw our world as they draw the reference:
the Nao's link meshes (`models/naobody0.obj`, ...) with rcssserver3d's materials (team
`matLeft`/`matRight`, number `matNum<n>`, robot type `matType<t>`), joint bodies as small
spheres, the ball, field, goals and sky meshes.

Read from a captured rcssserver3d 0.7.3 stream (`../shared/samples/simspark/`): which mesh
and scale each body has, its materials, and that meshes sit at the body's centre in
SimSpark's body axes (x right, y forward, z up) with the body and head meshes turned once
more. Our links have x forward: every mesh node turns SimSpark's axes into ours. Body, upper
arm and shank meshes are per robot type, as rcssserver3d's nao_hetero scene names them
(`naobody<type>.obj`, `rupperarm<type>.obj`, `lshank<type>.obj`: RoboViz draws each type's
own body); what a type-4 toe looks like there is not in the capture: it is drawn as a box.
A link not in the table keeps its shapes as unit boxes, spheres and cylinders."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

# Our link axes -> SimSpark body axes: SimSpark's x (right) is our -y, its y (forward) our x.
TO_SIMSPARK: Final = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
# The body and head meshes are modelled y-up: rcssserver3d turns them once more.
MESH_UP: Final = np.array([[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]])


@dataclass(frozen=True, slots=True)
class LinkLook:
    load: str  # what `(load ...)` names; "{t}": the robot type (0..4)
    scale: float
    materials: str  # resetMaterials (mesh) or sMat (primitive); {side} {num} {type}
    mesh: bool = True  # a StaticMesh with materials, else an SMN primitive
    turned: bool = False  # the mesh is modelled y-up


_JOINT = LinkLook("StdUnitSphere", 0.01, "matYellow", mesh=False)
_ANKLE = LinkLook("StdUnitSphere", 0.01, "matRed", mesh=False)
NAO_LINKS: Final[dict[str, LinkLook]] = {
    "torso": LinkLook("models/naobody{t}.obj", 0.1, "matNum{num} mat{side} matType{type} naowhite", turned=True),
    "neck": LinkLook("StdCapsule 0.015 0.08", 1.0, "matDarkGrey", mesh=False),
    "head": LinkLook("models/naohead.obj", 0.1, "mat{side} naoblack naogrey naowhite", turned=True),
    "rshoulder": _JOINT, "lshoulder": _JOINT, "relbow": _JOINT, "lelbow": _JOINT,
    "rhip1": _JOINT, "lhip1": _JOINT, "rhip2": _JOINT, "lhip2": _JOINT,
    "rankle": _ANKLE, "lankle": _ANKLE,
    "rupperarm": LinkLook("models/rupperarm{t}.obj", 0.07, "mat{side} matType{type} naowhite"),
    "lupperarm": LinkLook("models/lupperarm{t}.obj", 0.07, "mat{side} matType{type} naowhite"),
    "rlowerarm": LinkLook("models/rlowerarm.obj", 0.05, "mat{side} naowhite"),
    "llowerarm": LinkLook("models/llowerarm.obj", 0.05, "mat{side} naowhite"),
    "rthigh": LinkLook("models/rthigh.obj", 0.07, "matNum{num} mat{side} naowhite"),
    "lthigh": LinkLook("models/lthigh.obj", 0.07, "mat{side} naowhite"),
    "rshank": LinkLook("models/rshank{t}.obj", 0.08, "mat{side} matType{type} naowhite"),
    "lshank": LinkLook("models/lshank{t}.obj", 0.08, "mat{side} matType{type} naowhite"),
    "rfoot": LinkLook("models/rfoot.obj", 0.08, "mat{side} naowhite"),
    "lfoot": LinkLook("models/lfoot.obj", 0.08, "mat{side} naowhite"),
}
SELECTION_DISC: Final = ("(nd TRF (SLT 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1)(nd SMN (setVisible 0) (setTransparent) "
                         "(load StdUnitCylinder 1 1) (sSc 0.2 0.2 0.02) (sMat matSelect)))")
BALL: Final = "(nd StaticMesh (setVisible 1) (load models/soccerball.obj) (sSc {r} {r} {r})" \
              "(resetMaterials soccerball_rcs-soccerball.png))"


def nao_type(model: str) -> int | None:
    """0..4 for our Nao models (nao, nao0..nao4), None for any other robot."""
    if model == "nao":
        return 0
    if len(model) == 4 and model.startswith("nao") and model[3] in "01234":
        return int(model[3])
    return None


def link_node(look: LinkLook, offset: np.ndarray, side: str, unum: int, robot_type: int) -> str:
    """The node drawn for one link: at the link's centre (`offset` in the link frame)."""
    rot = TO_SIMSPARK @ MESH_UP if look.turned else TO_SIMSPARK
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = rot, offset
    slt = " ".join(f"{v:.6g}" for v in m.T.reshape(-1))
    load = look.load.format(t=robot_type)
    materials = look.materials.format(side={"left": "Left", "right": "Right"}.get(side, "Left"), num=unum,
                                      type=robot_type)
    if look.mesh:
        shape = (f"(nd StaticMesh (setVisible 1) (load {load}) (sSc {look.scale:g} {look.scale:g} {look.scale:g})"
                 f"(resetMaterials {materials}))")
    else:
        shape = f"(nd SMN (setVisible 1) (load {load}) (sSc {look.scale:g} {look.scale:g} {look.scale:g}) " \
                f"(sMat {materials}))"
    return f"(nd TRF (SLT {slt}) {shape})"


IDENTITY: Final = "(SLT 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1)"
LIGHTS: Final = (
    "(nd TRF (SLT 1 0 0 0 0 1 0 0 0 0 1 0 -10 10 10 1)(nd Light (setDiffuse 1 1 1 1) (setAmbient 0.8 0.8 0.8 1) "
    "(setSpecular 0.1 0.1 0.1 1)))",
    "(nd TRF (SLT 1 0 0 0 0 1 0 0 0 0 1 0 10 -10 10 1)(nd Light (setDiffuse 1 1 1 1) (setAmbient 0 0 0 1) "
    "(setSpecular 0.1 0.1 0.1 1)))",
)
# the grey border boxes around the field, 25 m out whatever the field's size
BORDERS: Final = tuple(
    f"(nd TRF (SLT 1 0 0 0 0 1 0 0 0 0 1 0 {x:g} {y:g} 0 1)(nd SMN (setVisible 1) (load StdUnitBox) "
    f"(sSc {sx:g} {sy:g} 1) (sMat matGrey)))"
    for x, y, sx, sy in ((-24.99, 0, 1, 51), (24.99, 0, 1, 51), (0, 25, 50.98, 1), (0, -25, 50.98, 1)))
# transforms without a look that rcssserver3d's scene holds besides its corner flags (field
# lines, markers, the agents' spawn frames): monitor readers count the scene's top-level nodes
EMPTY_NODES: Final = 21


def world_nodes(length: float, width: float, goal_width: float, goal_depth: float, goal_height: float) -> list[str]:
    """The scene's top-level nodes before the ball, as rcssserver3d's stream has them: two
    lights, field and sky, both goals, the borders, a transform at each corner and the empty
    ones, 35 in all (readers such as bahiart-gym find the ball and the robots by their index
    among the top-level nodes). The field mesh is 12 x 8 units, scaled to the field; the goal
    meshes to the goal's size plus posts."""
    up = "(SLT -1 0 0 0 0 0 1 0 0 1 0 0 0 0 0 1)"
    sx, sz = length / 12.0, width / 8.0
    gw, gh, gd = goal_width + 0.08, goal_height + 0.08, goal_depth + 0.08
    x = length / 2 + goal_depth / 2
    corners = [f"(nd TRF (SLT 1 0 0 0 0 1 0 0 0 0 1 0 {cx:g} {cy:g} 0 1))"
               for cx, cy in ((-length / 2, width / 2), (-length / 2, -width / 2), (length / 2, width / 2),
                              (length / 2, -width / 2))]
    return [
        *LIGHTS,
        f"(nd TRF {up}(nd StaticMesh (setVisible 1) (load models/naosoccerfield.obj) (sSc {sx:g} 1 {sz:g})"
        "(resetMaterials None_rcs-naofield.png)))",
        f"(nd TRF {up}(nd StaticMesh (setVisible 1) (load models/skybox.obj) (sSc 10 10 10)"
        "(resetMaterials Material_skyrender_0001.tif Material_skyrender_0002.tif Material_skyrender_0003.tif "
        "Material_skyrender_0004.tif Material_skyrender_0005.tif Material_skyrender_0006.tif)))",
        f"(nd TRF (SLT 1 0 0 0 0 1 0 0 0 0 1 0 {-x:g} 0 {goal_height / 2:g} 1)(nd StaticMesh (setVisible 1) "
        f"(setTransparent) (load models/leftsoccergoal.obj) (sSc {gw:g} {gh:g} {gd:g})"
        "(resetMaterials naogoalnet yellow)))",
        f"(nd TRF (SLT -1 0 0 0 0 -1 0 0 0 0 1 0 {x:g} 0 {goal_height / 2:g} 1)(nd StaticMesh (setVisible 1) "
        f"(setTransparent) (load models/rightsoccergoal.obj) (sSc {gw:g} {gh:g} {gd:g})"
        "(resetMaterials naogoalnet sky-blue)))",
        *BORDERS,
        *corners,
        *[f"(nd TRF {IDENTITY})"] * EMPTY_NODES,
    ]
