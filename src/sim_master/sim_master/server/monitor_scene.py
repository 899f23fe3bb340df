"""The world as monitor scene graphs: rcsssmj RSMP frames and the SimSpark/RoboViz stream.

Both walk the MuJoCo bodies from the world body as nested `(nd ...)` nodes with
parent-relative 4x4 transforms (`TRF (SLT m0..m15)`, column-major) and one shape node per
geom; robots and the ball are tagged so monitors can tell them apart. Incremental frames
keep the tree's shape and repeat a transform only when an entry moved by more than 0.005.
The structure is rebuilt when the model is (a robot joined or left). The SimSpark stream
names Nao meshes, materials, ball, field and goals as rcssserver3d does (simspark_meshes.py)."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import mujoco
import numpy as np

from sim_contracts.field import FieldSpec
from sim_hotpath import slt_texts
from sim_master.server import simspark_meshes as looks
from sim_master.world.spec import ModelSpec
from soccer_referee.play_modes import RSMP_PLAY_MODES, PlayMode, rsmp_index
from soccer_referee.referee import GameStateSnapshot
from soccer_referee.rules import RuleBook

CHANGE = 0.005
_SHAPES = {
    int(mujoco.mjtGeom.mjGEOM_BOX): "StdUnitBox",
    int(mujoco.mjtGeom.mjGEOM_SPHERE): "StdUnitSphere",
    int(mujoco.mjtGeom.mjGEOM_CAPSULE): "StdUnitCylinder",
    int(mujoco.mjtGeom.mjGEOM_CYLINDER): "StdUnitCylinder",
}


@dataclass(slots=True)
class _Body:
    index: int
    tag: str  # "" or DSC text: "ball", "agent Alpha 3"
    geoms: list[str]  # preformatted static geom nodes (full form)
    children: list[_Body] = field(default_factory=list)


class MonitorScene:
    def __init__(self, model: mujoco.MjModel, labels: dict[str, tuple[str, int, str]],
                 dialect: str = "rcsssmj", *, models: dict[str, str] | None = None,
                 field: FieldSpec | None = None, specs: dict[str, ModelSpec] | None = None) -> None:
        """labels: robot id -> (team, unum, side) of registered robots; models: robot id ->
        its model (our Naos are drawn with rcssserver3d's meshes on the SimSpark stream);
        field: the world's field, whose meshes that stream shows; specs: robot id -> its
        model's description, whose rcsssmj looks (MJCF meshes, materials) the RSMP stream shows."""
        self.model = model
        self.labels = labels
        self.dialect = dialect
        self.models = models or {}
        self.specs = specs or {}
        self.field = field
        self._last: np.ndarray | None = None
        self._templates: dict[bool, tuple[list[str], list[tuple[int, int]]]] = {}
        children: dict[int, list[int]] = {}
        for b in range(1, model.nbody):
            children.setdefault(int(model.body_parentid[b]), []).append(b)
        self.root = self._body(0, children, labels, "")
        self.nbody = model.nbody

    def _body(self, b: int, children: dict[int, list[int]], labels: dict[str, tuple[str, int, str]],
              side: str, robot: str = "") -> _Body:
        name = mujoco.mj_id2name(self.model, mujoco.mjtObj.mjOBJ_BODY, b) or ""
        tag = ""
        if name == "ball":
            tag = "ball"
        elif "/" in name and self.model.body_parentid[b] == 0:
            robot_id = name.split("/", 1)[0]
            if robot_id in labels:
                team, unum, side = labels[robot_id]
                tag = f"agent {team} {unum}"
        robot = name.split("/", 1)[0] if "/" in name else robot  # unnamed bodies: their robot's
        geoms = self._looks(b, name, labels, robot)
        if geoms is None:
            geoms = [self._geom(g, side) for g in range(self.model.ngeom)
                     if self.model.geom_bodyid[g] == b and int(self.model.geom_type[g]) in _SHAPES]
        return _Body(b, tag, geoms, [self._body(c, children, labels, side, robot) for c in children.get(b, [])])

    def _looks(self, b: int, name: str, labels: dict[str, tuple[str, int, str]], robot: str) -> list[str] | None:
        """rcssserver3d's drawing of this body on the SimSpark stream, or None (shapes)."""
        if self.dialect != "simspark":
            return self._rcsssmj_looks(robot, name.partition("/")[2], labels)
        if b == 0 and self.field is not None:
            f = self.field
            return looks.world_nodes(f.length, f.width, f.goal_width, f.goal_depth, f.goal_height)
        if name == "ball":
            return [looks.BALL.format(r=f"{float(self.model.geom_size[self._first_geom(b)][0]):g}")]
        robot_id, _, link = name.partition("/")
        robot_type = looks.nao_type(self.models.get(robot_id, ""))
        look = looks.NAO_LINKS.get(link)
        if robot_type is None or look is None:
            return None
        _, unum, side = labels.get(robot_id, ("", 0, ""))
        nodes = [looks.link_node(look, self.model.body_ipos[b], side, unum, robot_type)]
        return nodes + [looks.SELECTION_DISC] if link == "torso" else nodes

    def _rcsssmj_looks(self, robot_id: str, link_name: str,
                       labels: dict[str, tuple[str, int, str]]) -> list[str] | None:
        """An rcsssmj robot's link as rcsssmj streams it: its MJCF meshes and materials."""
        spec = self.specs.get(robot_id)
        if spec is None:
            return None
        link = next((candidate for candidate in spec.links if candidate.name == link_name), None)
        if spec.mjcf is None:
            return None
        if link is None or not link.looks:
            return []  # all it has are shapes rcsssmj does not stream (capsules)
        side = labels.get(robot_id, ("", 0, ""))[2]
        team = {"left": "matLeft", "right": "matRight"}.get(side, "gray")
        nodes = []
        for look in link.looks:
            trf = _slt(look.pose.rot, look.pose.pos, self.dialect)
            if look.rgba is not None:
                colour = "(rgba " + " ".join(repr(v) for v in look.rgba) + ")"
            else:
                colour = f"(sMat {team if look.material == 'team' else look.material})"
            scale = "" if look.scale is None else "(sSc " + " ".join(f"{v:.4g}" for v in look.scale) + ")"
            nodes.append(f"(nd TRF{trf}(nd SMN (setVisible {int(look.visible)})(load {look.load}){colour}{scale}))")
        return nodes

    def _first_geom(self, b: int) -> int:
        return int(np.nonzero(self.model.geom_bodyid == b)[0][0])

    def _geom(self, g: int, side: str) -> str:
        m = self.model
        size = m.geom_size[g]
        kind = int(m.geom_type[g])
        if kind == int(mujoco.mjtGeom.mjGEOM_BOX):
            scale = 2 * size
        elif kind == int(mujoco.mjtGeom.mjGEOM_SPHERE):
            scale = np.array([size[0]] * 3)
        else:
            scale = np.array([size[0], size[0], 2 * size[1]])
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, g) or ""
        material = "ball" if name == "ball" else {"left": "matLeft", "right": "matRight"}.get(side, "matGrey")
        rot = np.zeros(9)
        mujoco.mju_quat2Mat(rot, m.geom_quat[g])
        trf = _slt(rot.reshape(3, 3), m.geom_pos[g], self.dialect)
        sc = " ".join(f"{v:.4g}" for v in scale)
        if self.dialect == "rcsssmj":
            shape = f"(nd SMN (setVisible 1)(load {_SHAPES[kind]})(sMat {material})(sSc {sc}))"
            return f"(nd TRF{trf}{shape})"
        shape = (f"(nd StaticMesh (setVisible 1) (load {_SHAPES[kind]}) (sSc {sc}) "
                 f"(resetMaterials {material}))")
        return f"(nd TRF {trf} {shape})"

    def transforms(self, data: mujoco.MjData) -> np.ndarray:
        """(nbody, 3, 4) parent-relative rotation | translation of every body."""
        parent = self.model.body_parentid
        rot = data.xmat.reshape(-1, 3, 3)
        rp = rot[parent]
        rel_rot = np.einsum("nji,njk->nik", rp, rot)
        rel_pos = np.einsum("nji,nj->ni", rp, data.xpos - data.xpos[parent])
        return np.concatenate([rel_rot, rel_pos[:, :, None]], axis=2)

    def scene(self, data: mujoco.MjData, full: bool) -> str:
        trf = self.transforms(data)
        changed = np.ones(self.nbody, dtype=bool)
        if not full and self._last is not None and self._last.shape == trf.shape:
            changed = np.abs(trf - self._last).max(axis=(1, 2)) > CHANGE
        if full or self._last is None:
            self._last = trf.copy()
        else:
            self._last[changed] = trf[changed]
        # every changed body's transform text at once (compiled: sim_hotpath), then the frame's
        # fixed text around each body's head
        slt = slt_texts(trf, changed | full, self.dialect == "rcsssmj")
        pieces, heads = self._template(full)
        text = list(pieces)
        trf_head = "(nd TRF " if self.dialect != "rcsssmj" else "(nd TRF"
        for slot, index in heads:
            t = slt[index]
            text[slot] = "(nd" if t is None else trf_head + t
        return "".join(text)

    def _template(self, full: bool) -> tuple[list[str], list[tuple[int, int]]]:
        """The frame as fixed pieces with one slot per body for its head ("(nd TRF (SLT ...)"
        or "(nd"), made once per scene and frame kind. Each body is its head, its looks and
        its children's nodes, space-separated on the SimSpark stream; a tagged body (a robot,
        the ball) sits in a DSC node on full frames, in a bare node on incremental ones. The
        recursive definition is kept in the frame tests, which compare the two."""
        cached = self._templates.get(full)
        if cached is not None:
            return cached
        pieces: list[str] = []
        heads: list[tuple[int, int]] = []
        sep = "" if self.dialect == "rcsssmj" else " "

        def emit(body: _Body) -> None:
            inner_geoms = body.geoms if full else [_skeleton(g, self.dialect) for g in body.geoms]
            if body.tag:
                if full:
                    pieces.append(f"(nd DSC({body.tag})" if self.dialect == "rcsssmj" else f"(nd DSC ({body.tag}) ")
                else:
                    pieces.append("(nd" if self.dialect == "rcsssmj" else "(nd ")
            heads.append((len(pieces), body.index))
            pieces.append("")  # the head's slot
            items = len(inner_geoms) + len(body.children)
            if items and sep:
                pieces.append(sep)
            for k, geom in enumerate(inner_geoms):
                pieces.append(geom if k == 0 else sep + geom)
            for k, child in enumerate(body.children):
                if k or inner_geoms:
                    pieces.append(sep)
                emit(child)
            pieces.append(")")
            if body.tag:
                pieces.append(")")

        emit(self.root)
        self._templates[full] = (pieces, heads)
        return pieces, heads


@functools.lru_cache(maxsize=1024)
def _skeleton(look: str, dialect: str) -> str:
    """A static node in an incremental frame: its nodes, nested as in the full frame, empty.
    Monitors match incremental frames to the full one node by node (the ball's look is one
    node, a Nao part's two: a transform and its mesh)."""
    sep = "" if dialect == "rcsssmj" else " "
    stack: list[list[str]] = [[]]
    nodes: list[bool] = []
    for i, c in enumerate(look):
        if c == "(":
            nodes.append(look.startswith("nd", i + 1) and not look[i + 3:i + 4].isalnum())
            stack.append([])
        elif c == ")" and nodes:
            kids = stack.pop()
            stack[-1].extend(["(nd" + "".join(sep + k for k in kids) + ")"] if nodes.pop() else kids)
    return sep.join(stack[0])


def _slt(rot: np.ndarray, pos: np.ndarray, dialect: str) -> str:
    m = np.zeros((4, 4))
    m[:3, :3], m[:3, 3], m[3, 3] = rot, pos, 1.0
    values = m.T.reshape(-1)  # column-major
    if dialect == "rcsssmj":
        return "(SLT " + " ".join(f"{v:.4f}" for v in values) + ")"
    return "(SLT " + " ".join(f"{v:.6g}" for v in values) + ")"


def rsmp_frame(scene: str, full: bool, sim_time: float, state: GameStateSnapshot, field: FieldSpec,
               fouls: list[tuple[int, int, int]], rules: RuleBook) -> str:
    """One rcsssmj RSMP 1.0 monitor frame."""
    s = state
    gs = (f"((gs 1 0)(time {round(s.game_time, 3)})(half {s.half})(score_left {s.score_left})"
          f"(score_right {s.score_right})(play_mode {rsmp_index(s.play_mode)})")
    if full:
        gs += f"(team_left {s.team_left or '<LEFT>'})(team_right {s.team_right or '<RIGHT>'})"
    for foul in fouls:
        gs += f"(foul {foul[0]} {foul[1]} {foul[2]})"
    gs += ")"
    ge = ""
    if full:
        f = field
        names = " ".join(RSMP_PLAY_MODES)
        ge = (
            f"((ge 1 0)(FieldLength {f.length:g})(FieldWidth {f.width:g})(FieldHeight 40)"
            f"(GoalWidth {f.goal_width:g})(GoalDepth {f.goal_depth:g})(GoalHeight {f.goal_height:g})"
            f"(BorderSize 0)(FreeKickDistance {rules.free_kick_distance:g})(BallRadius {f.ball_radius:g})"
            f"(RuleGoalPauseTime {rules.goal_pause:g})"
            f"(RuleHalfTime {rules.half_time:g})(play_modes {names})(CenterCircleRadius {f.center_radius:g})"
            f"(CorderAreaRadius {f.corner_radius:g})(GoalieAreaLength {f.goalie_area_length:g})"  # rcsssmj's spelling
            f"(GoalieAreaWidth {f.goalie_area_width:g})(PenaltySpotDistance {f.penalty_spot_distance:g})"
            f"(PenaltyAreaLength {f.penalty_depth:g})(PenaltyAreaWidth {f.penalty_width:g}))"
        )
    kind = "full" if full else "diff"
    return f"((RSMP 1 0)((gt 1 0){sim_time:.2f})((sg 1 0){kind}{scene}){gs}{ge})"


def simspark_frame(scene: str, full: bool, state: GameStateSnapshot, field: FieldSpec,
                   fouls: list[tuple[int, tuple[int, int, int]]], rules: RuleBook, changed: dict[str, object]) -> str:
    """One SimSpark monitor message: game predicates, then (RSG 0 1) full or (RDS 0 1) incremental."""
    s = state
    if full:
        f = field
        names = " ".join(m.value for m in list(PlayMode)[:21])
        preds = (
            f"(FieldLength {f.length:g})(FieldWidth {f.width:g})(FieldHeight 40)(GoalWidth {f.goal_width:g})"
            f"(GoalDepth {f.goal_depth:g})(GoalHeight {f.goal_height:g})(BorderSize 0)"
            f"(FreeKickDistance {rules.free_kick_distance:g})(WaitBeforeKickOff 30)(AgentRadius 0.4)"
            f"(BallRadius {f.ball_radius:g})(BallMass 0.026)(RuleGoalPauseTime {rules.goal_pause:g})"
            f"(RuleKickInPauseTime {rules.kick_in_pause:g})(RuleHalfTime {rules.half_time:g})"
            f"(PassModeMinOppBallDist 1)(PassModeDuration 4)(play_modes {names})"
            f"(time {s.game_time:g})(team_left {s.team_left})(team_right {s.team_right})(half {s.half})"
            f"(score_left {s.score_left})(score_right {s.score_right})(play_mode {s.play_mode.monitor_index})"
        )
        return f"({preds})(RSG 0 1)({scene})"
    preds = f"(time {s.game_time:g})" + "".join(f"({k} {v})" for k, v in changed.items())
    preds += "".join(f"(foul {i} {t} {side} {unum})" for i, (t, side, unum) in fouls)
    return f"({preds})(RDS 0 1)({scene})"
