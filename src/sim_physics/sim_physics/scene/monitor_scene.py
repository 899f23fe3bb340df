"""The world as monitor scene graphs: rcsssmj RSMP frames and the SimSpark/RoboViz stream.

Both walk the scene from the world as nested `(nd ...)` nodes with parent-relative 4x4
transforms (`TRF (SLT m0..m15)`, column-major) and one shape node per link shape; on the
rcsssmj stream robots and the ball are tagged (DSC nodes) so monitors can tell them apart; the
SimSpark stream has no such nodes, as rcssserver3d's has none. The tree is the engine contract's: the
world's static models, the ball, and each robot's links as its model spec joins them; the
poses are `frames()` (live, any engine) or a snapshot's forward kinematics (replay). No
physics engine is imported. Incremental frames keep the tree's shape and repeat a transform
only when an entry moved by more than 0.005 (on the SimSpark stream each robot's and the
ball's own transform is repeated in every frame: readers take their positions from it).
The structure is rebuilt when the robots change.
The SimSpark stream names Nao meshes, materials, ball, field and goals as rcssserver3d does
(simspark_meshes.py)."""
from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from sim_contracts.field import FieldSpec
from sim_hotpath import slt_texts
from sim_physics.scene import simspark_meshes as looks
from sim_physics.scene.kinematics import ModelKinematics
from sim_physics.world.spec import ModelSpec, Shape
from sim_physics.world.transforms import Transform
from soccer_referee.game_state import GameStateSnapshot
from soccer_referee.play_modes import RSMP_PLAY_MODES, PlayMode, rsmp_index
from soccer_referee.rules import RuleBook

CHANGE = 0.005
_SHAPES = {"box": "StdUnitBox", "sphere": "StdUnitSphere", "capsule": "StdUnitCylinder",
           "cylinder": "StdUnitCylinder"}
Label = tuple[str, int, str]  # team, unum, side of a registered robot


@dataclass(frozen=True, slots=True)
class StreamStyle:
    """How one monitor stream writes the scene: every way the two references' streams differ,
    as values (nothing here compares a stream's name)."""

    name: str
    rsmp: bool  # frames are rcsssmj's RSMP 1.0; else rcssserver3d's S-expression frames
    compact: bool  # no space between nodes, and SLT numbers as %.4f (rcsssmj); else spaced, %.6g
    tagged: bool  # robots and the ball sit in DSC nodes on full frames (rcsssmj)
    rooted: bool  # the scene is one root node (rcsssmj); rcssserver3d's are top-level nodes side by side
    reference_looks: bool  # rcssserver3d's field, ball and Nao meshes (simspark_meshes), not shapes
    # each robot's and the ball's own transform in every frame, moved or not (the SimSpark
    # stream: its readers take positions from the top-level nodes' first SLT)
    positions_every_frame: bool

    @property
    def sep(self) -> str:
        return "" if self.compact else " "


SIMSPARK_STREAM = StreamStyle("simspark", rsmp=False, compact=False, tagged=False, rooted=False,
                              reference_looks=True, positions_every_frame=True)
RCSSSMJ_STREAM = StreamStyle("rcsssmj", rsmp=True, compact=True, tagged=True, rooted=True,
                             reference_looks=False, positions_every_frame=False)
STREAM_STYLES = {style.name: style for style in (SIMSPARK_STREAM, RCSSSMJ_STREAM)}


@dataclass(frozen=True, slots=True)
class SceneRobot:
    """A robot in the scene: its entity id (the prefix of its frames), model and spec, and
    its team label once it has joined one."""

    robot_id: str
    model: str
    spec: ModelSpec
    label: Label | None = None


def scene_key(robots: Sequence[SceneRobot]) -> tuple[tuple[str, str, Label | None], ...]:
    """What a scene's structure depends on: a scene is rebuilt when this changes."""
    return tuple((r.robot_id, r.model, r.label) for r in robots)


@dataclass(slots=True)
class _Body:
    index: int
    frame: str  # the frames() name whose pose it takes ("" for the world)
    tag: str  # "" or DSC text: "ball", "agent Alpha 3"
    geoms: list[str]  # preformatted static geom nodes (full form)
    children: list[_Body] = field(default_factory=list)
    parent: int = -1


class MonitorScene:
    def __init__(self, statics: Sequence[ModelSpec], robots: Sequence[SceneRobot],
                 style: StreamStyle = RCSSSMJ_STREAM, *, field: FieldSpec) -> None:
        """statics: the world's static models (goals; the SimSpark stream draws the field's own
        meshes instead); robots: in the order monitors list them; field: the world's field."""
        self.style = style
        self.field = field
        self.key = scene_key(robots)
        self._last: np.ndarray | None = None
        self._templates: dict[bool, tuple[list[str], list[tuple[int, int]]]] = {}
        self._bodies: list[_Body] = []
        self.root = self._new("", "", self._world_looks(statics))
        self._new("ball", "ball", self._ball_looks(), self.root)
        for robot in robots:
            self._robot(robot)
        self.nbody = len(self._bodies)
        self._parents = np.array([max(b.parent, 0) for b in self._bodies], dtype=np.intp)  # the world: itself
        self._frame_key: tuple[str, ...] | None = None
        self._rows = np.zeros(0, dtype=np.intp)
        # the SimSpark stream repeats each top-level body's own transform in every frame (see scene())
        self._always = np.array([bool(b.tag) for b in self._bodies]) if style.positions_every_frame else None

    def _new(self, frame: str, tag: str, geoms: list[str], parent: _Body | None = None) -> _Body:
        body = _Body(len(self._bodies), frame, tag, geoms, parent=-1 if parent is None else parent.index)
        self._bodies.append(body)
        if parent is not None:
            parent.children.append(body)
        return body

    def _world_looks(self, statics: Sequence[ModelSpec]) -> list[str]:
        if self.style.reference_looks:
            f = self.field
            return looks.world_nodes(f.length, f.width, f.goal_width, f.goal_depth, f.goal_height)
        out = []
        for model in statics:
            for link in model.links:
                for c in link.collisions:
                    if c.geometry.shape in _SHAPES:
                        out.append(self._shape(Shape(c.name, model.pose @ link.pose @ c.pose, c.geometry), ""))
        return out

    def _ball_looks(self) -> list[str]:
        r = self.field.ball_radius
        if self.style.reference_looks:
            return [looks.BALL.format(r=f"{float(r):g}")]
        from sim_physics.world.spec import Geometry

        return [self._shape(Shape("ball", Transform.identity(), Geometry("sphere", (r,))), "", material="ball")]

    def _robot(self, robot: SceneRobot) -> None:
        kin = ModelKinematics(robot.spec)
        team, unum, side = robot.label or ("", 0, "")
        made: list[_Body] = []
        for i, link_name in enumerate(kin.links):
            link = robot.spec.link(link_name)
            tag = f"agent {team} {unum}" if i == 0 and robot.label else ""
            geoms = self._link_looks(robot, link_name, side, unum)
            if geoms is None:
                geoms = [self._shape(c, side) for c in link.collisions if c.geometry.shape in _SHAPES]
            parent = self.root if kin.parent[i] < 0 else made[kin.parent[i]]
            made.append(self._new(f"{robot.robot_id}/{link_name}", tag, geoms, parent))

    def _link_looks(self, robot: SceneRobot, link_name: str, side: str, unum: int) -> list[str] | None:
        """The reference server's drawing of this link on the stream, or None (shapes)."""
        if not self.style.reference_looks:
            return self._rcsssmj_looks(robot.spec, link_name, side)
        robot_type = looks.nao_type(robot.model)
        look = looks.NAO_LINKS.get(link_name)
        if robot_type is None or look is None:
            return None
        link = robot.spec.link(link_name)
        nodes = [looks.link_node(look, link.inertial_pose.pos, side, unum, robot_type)]
        return nodes + [looks.SELECTION_DISC] if link_name == "torso" else nodes

    def _rcsssmj_looks(self, spec: ModelSpec, link_name: str, side: str) -> list[str] | None:
        """An rcsssmj robot's link as rcsssmj streams it: its MJCF meshes and materials."""
        if spec.mjcf is None:
            return None
        link = next((candidate for candidate in spec.links if candidate.name == link_name), None)
        if link is None or not link.looks:
            return []  # all it has are shapes rcsssmj does not stream (capsules)
        team = {"left": "matLeft", "right": "matRight"}.get(side, "gray")
        nodes = []
        for look in link.looks:
            trf = _slt(look.pose.rot, look.pose.pos, self.style.compact)
            if look.rgba is not None:
                colour = "(rgba " + " ".join(repr(v) for v in look.rgba) + ")"
            else:
                colour = f"(sMat {team if look.material == 'team' else look.material})"
            scale = "" if look.scale is None else "(sSc " + " ".join(f"{v:.4g}" for v in look.scale) + ")"
            nodes.append(f"(nd TRF{trf}(nd SMN (setVisible {int(look.visible)})(load {look.load}){colour}{scale}))")
        return nodes

    def _shape(self, shape: Shape, side: str, material: str = "") -> str:
        g = shape.geometry
        size = g.size
        if g.shape == "box":
            scale = np.asarray(size[:3], dtype=float)
        elif g.shape == "sphere":
            scale = np.array([size[0]] * 3, dtype=float)
        else:
            scale = np.array([size[0], size[0], size[1]], dtype=float)
        material = material or {"left": "matLeft", "right": "matRight"}.get(side, "matGrey")
        trf = _slt(shape.pose.rot, shape.pose.pos, self.style.compact)
        sc = " ".join(f"{v:.4g}" for v in scale)
        if self.style.compact:
            return f"(nd TRF{trf}(nd SMN (setVisible 1)(load {_SHAPES[g.shape]})(sMat {material})(sSc {sc})))"
        shape_node = (f"(nd StaticMesh (setVisible 1) (load {_SHAPES[g.shape]}) (sSc {sc}) "
                      f"(resetMaterials {material}))")
        return f"(nd TRF {trf} {shape_node})"

    def transforms(self, names: Sequence[str], poses: np.ndarray) -> np.ndarray:
        """(nbody, 3, 4) parent-relative rotation | translation of every body, from the
        world poses of `frames()` ((n, 7): position, w-x-y-z quaternion)."""
        key = tuple(names)
        if key != self._frame_key:
            where = {name: i for i, name in enumerate(names)}
            # world pose rows per body; a body missing from the frames (never expected) and
            # the world itself take the identity (row n, appended below)
            self._rows = np.array([where.get(b.frame, len(names)) for b in self._bodies], dtype=np.intp)
            self._frame_key = key
        world = np.vstack([np.asarray(poses, dtype=float).reshape(-1, 7), [[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]]])
        chosen = world[self._rows]
        pos, rot = chosen[:, :3], _quat_matrices(chosen[:, 3:])
        rp = rot[self._parents]
        rp[0] = np.eye(3)
        pp = pos[self._parents]
        pp[0] = 0.0
        rel_rot = np.einsum("nji,njk->nik", rp, rot)
        rel_pos = np.einsum("nji,nj->ni", rp, pos - pp)
        return np.concatenate([rel_rot, rel_pos[:, :, None]], axis=2)

    def scene(self, names: Sequence[str], poses: np.ndarray, full: bool) -> str:
        trf = self.transforms(names, poses)
        changed = np.ones(self.nbody, dtype=bool)
        if not full and self._last is not None and self._last.shape == trf.shape:
            changed = np.abs(trf - self._last).max(axis=(1, 2)) > CHANGE
        if full or self._last is None:
            self._last = trf.copy()
        else:
            self._last[changed] = trf[changed]
            if self._always is not None:
                # each robot's and the ball's own transform in every frame of the SimSpark
                # stream: readers that index the top-level nodes (bahiart-gym) take a robot's
                # position from the first SLT in its node, and a still robot's node had none
                # (they then took the previous robot's: both players of a team at one spot)
                changed = changed | self._always
        # every changed body's transform text at once (compiled: sim_hotpath), then the frame's
        # fixed text around each body's head
        slt = slt_texts(trf, changed | full, self.style.compact)
        pieces, heads = self._template(full)
        text = list(pieces)
        trf_head = "(nd TRF" + self.style.sep
        for slot, index in heads:
            t = slt[index]
            text[slot] = "(nd" if t is None else trf_head + t
        return "".join(text)

    def _template(self, full: bool) -> tuple[list[str], list[tuple[int, int]]]:
        """The frame as fixed pieces with one slot per body for its head ("(nd TRF (SLT ...)"
        or "(nd"), made once per scene and frame kind. Each body is its head, its looks and
        its children's nodes, space-separated on the SimSpark stream; on rcsssmj's a tagged body
        (a robot, the ball) sits in a DSC node on full frames, in a bare node on incremental ones. The
        recursive definition is kept in the frame tests, which compare the two."""
        cached = self._templates.get(full)
        if cached is not None:
            return cached
        pieces: list[str] = []
        heads: list[tuple[int, int]] = []
        sep = self.style.sep

        # rcssservermj tags a robot and the ball with a DSC node around them; rcssserver3d's
        # stream has none (readers index its top-level transforms: pyrcssscom-cangyin takes the
        # ball's position from the last top-level node's SLT, bahiart-gym a robot's from the
        # first SLT in its node), so the SimSpark stream has no DSC either
        tagged = self.style.tagged

        def emit(body: _Body) -> None:
            inner_geoms = body.geoms if full else [_skeleton(g, sep) for g in body.geoms]
            if body.tag and tagged:
                pieces.append(f"(nd DSC({body.tag})" if full else "(nd")
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
            if body.tag and tagged:
                pieces.append(")")

        if not self.style.rooted:
            # rcssserver3d's scene has no root node: the world's looks, the ball and each robot
            # are top-level nodes, side by side (readers index them: bahiart-gym's ball is the
            # top-level node holding its mesh)
            pieces += self.root.geoms if full else [_skeleton(g, sep) for g in self.root.geoms]
            for child in self.root.children:
                emit(child)
        else:
            emit(self.root)
        self._templates[full] = (pieces, heads)
        return pieces, heads


@functools.lru_cache(maxsize=1024)
def _skeleton(look: str, sep: str) -> str:
    """A static node in an incremental frame: its nodes, nested as in the full frame, empty,
    separated by the stream's `sep`. Monitors match incremental frames to the full one node by
    node (the ball's look is one node, a Nao part's two: a transform and its mesh)."""
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


def _quat_matrices(q: np.ndarray) -> np.ndarray:
    """(n, 4) unit w-x-y-z quaternions -> (n, 3, 3) rotation matrices."""
    q = q / np.linalg.norm(q, axis=1, keepdims=True).clip(min=1e-12)
    w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=1),
    ], axis=1)


def _slt(rot: np.ndarray, pos: np.ndarray, compact: bool) -> str:
    m = np.zeros((4, 4))
    m[:3, :3], m[:3, 3], m[3, 3] = rot, pos, 1.0
    values = m.T.reshape(-1)  # column-major
    if compact:
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
            f"(time {s.game_time:g})"
            # a team's name once it has joined, as rcssserver3d (never an empty (team_left ))
            + (f"(team_left {s.team_left})" if s.team_left else "")
            + (f"(team_right {s.team_right})" if s.team_right else "")
            + f"(half {s.half})"
            f"(score_left {s.score_left})(score_right {s.score_right})(play_mode {s.play_mode.monitor_index})"
        )
        return f"({preds})(RSG 0 1)({scene})"
    preds = f"(time {s.game_time:g})" + "".join(f"({k} {v})" for k, v in changed.items())
    preds += "".join(f"(foul {i} {t} {side} {unum})" for i, (t, side, unum) in fouls)
    return f"({preds})(RDS 0 1)({scene})"
