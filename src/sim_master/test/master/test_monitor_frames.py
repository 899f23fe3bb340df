"""Monitor frames announce the figures of the match's own field and rule book, not fixed ones."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from sim_physics.scene.monitor_scene import rsmp_frame, simspark_frame

from sim_contracts.field import FIELD_PRESETS
from soccer_referee.game_state import GameStateSnapshot
from soccer_referee.play_modes import PlayMode
from soccer_referee.rules import rule_book


def test_frames_carry_the_rule_book_and_field() -> None:
    fifa, field = rule_book("fifa", goal_pause=4.5), FIELD_PRESETS["fifa"]
    state = GameStateSnapshot()
    rsmp = rsmp_frame("", True, 0.0, state, field, [], fifa)
    simspark = simspark_frame("", True, state, field, [], fifa, {})
    for frame in (rsmp, simspark):
        assert "(FreeKickDistance 9.15)" in frame and "(RuleGoalPauseTime 4.5)" in frame
        assert "(FieldLength 105)" in frame and "(RuleHalfTime 300)" in frame
    assert "(RuleKickInPauseTime 1)" in simspark
    default = simspark_frame("", True, state, FIELD_PRESETS["simspark"], [], rule_book("simspark"), {})
    assert "(FreeKickDistance 2)" in default and "(RuleGoalPauseTime 3)" in default and "(FieldLength 30)" in default


SAMPLES = Path(__file__).parent / "samples"


def _ge(frame: str) -> str:
    return frame[frame.index("(ge 1 0)"):]


def test_rsmp_frames_carry_every_key_and_play_mode_rcsssmj_sends() -> None:
    """Compared with a full frame captured from rcssservermj (its 7 vs 7 field): the same `ge`
    keys in the same order, and its list of play modes, whose positions number the modes."""
    reference = _ge((SAMPLES / "rcsssmj_monitor_frame_0_full.txt").read_text())
    ours = _ge(rsmp_frame("", True, 0.0, GameStateSnapshot(), FIELD_PRESETS["fifa7vs7"], [], rule_book("ssim")))
    keys = re.compile(r"\((\w+) ")
    assert keys.findall(ours) == keys.findall(reference)
    modes = re.compile(r"\(play_modes ([^)]*)\)")
    assert modes.search(ours).group(1) == modes.search(reference).group(1)
    assert "(CorderAreaRadius 1)(GoalieAreaLength 4)(GoalieAreaWidth 7.3)(PenaltySpotDistance 7.32)" in ours


def test_rsmp_numbers_play_modes_in_its_own_list() -> None:
    state = GameStateSnapshot()
    for mode, expected in ((PlayMode.PLAY_ON, 3), (PlayMode.PENALTY_KICK_RIGHT, 20), (PlayMode.PASS_LEFT, 3)):
        state.play_mode = mode
        frame = rsmp_frame("", False, 0.0, state, FIELD_PRESETS["fifa"], [], rule_book("fifa"))
        assert f"(play_mode {expected})" in frame, mode


def _drawn(frame: str) -> list[tuple[str, str]]:
    """Every drawn part of a SimSpark scene: (what it loads, its materials), sorted."""
    parts = re.findall(r"\(load ([^)]*)\)[^()]*\(sSc [^)]*\)\s*\((?:resetMaterials|sMat) ([^)]*)\)", frame)
    return sorted(parts)


def test_simspark_stream_draws_naos_as_rcssserver3d_does() -> None:
    """Compared with a full frame captured from rcssserver3d 0.7.3 with four Naos (Alpha 1 and
    Beta 1 of type 0, Alpha 2 and Beta 2 of type 1): the same meshes with the same scales and
    materials (team, number, type), joint spheres, ball, field, sky, goals and the four grey
    border boxes around the field, and the same top-level nodes: 35 before the ball (lights,
    looks, corners, empty transforms), the ball, then one per robot."""
    from sim_physics.engine.mujoco.engine import MujocoEngine

    engine = MujocoEngine("simspark_field", vision_noise=False)
    robots = {"a1": ("nao0", "Alpha", 1, "left"), "b1": ("nao0", "Beta", 1, "right"),
              "a2": ("nao1", "Alpha", 2, "left"), "b2": ("nao1", "Beta", 2, "right")}
    for i, (rid, (model, *_)) in enumerate(robots.items()):
        engine.add_robot(rid, model, -3.0 + i, 2.0, 0.0)
    engine.step()
    labels = {r: (team, unum, side) for r, (_, team, unum, side) in robots.items()}
    ours = _scene(engine, labels, "simspark").scene(*engine.frames(), True)
    reference = (SAMPLES / "simspark_monitor_frame_full_4_naos.txt").read_text()
    assert _drawn(ours) == _drawn(reference)
    ours_top = _top_level(ours)
    reference_top = _top_level(reference.split("(RSG 0 1)", 1)[1].strip()[1:-1])
    assert len(ours_top) == len(reference_top) == 35 + 1 + 4
    assert "models/soccerball.obj" in ours_top[35] and "models/soccerball.obj" in reference_top[35]
    assert ours_top[:2] == reference_top[:2]  # the lights
    for robot in ours_top[36:]:
        assert "models/naobody" in robot and ("matLeft" in robot) != ("matRight" in robot)
    # The torso mesh (modelled y-up, facing SimSpark's y) on a robot facing +x: its y axis is
    # our z (up), its x axis our y, its z axis our x (forward), as rcssserver3d turns it.
    torso = re.search(r"\(nd TRF \(SLT ([^)]*)\) \(nd StaticMesh \(setVisible 1\) \(load models/naobody0", ours)
    assert torso is not None
    m = [float(v) for v in torso.group(1).split()]
    assert [round(v) for v in m[:3] + m[4:7] + m[8:11]] == [0, 1, 0, 0, 0, 1, 1, 0, 0]


def test_every_robot_type_is_drawn_with_its_own_meshes_as_rcssserver3d_names_them() -> None:
    """rcssserver3d's nao_hetero scene loads `naobody<type>.obj`, `<r|l>upperarm<type>.obj` and
    `<r|l>shank<type>.obj`: RoboViz draws each type's own body."""
    from sim_physics.engine.mujoco.engine import MujocoEngine

    engine = MujocoEngine("simspark_field", vision_noise=False)
    for t in range(5):
        engine.add_robot(f"r{t}", f"nao{t}", -4.0 + 2 * t, 2.0, 0.0)
    engine.step()
    labels = {f"r{t}": ("Alpha", t + 1, "left") for t in range(5)}
    ours = _scene(engine, labels, "simspark").scene(*engine.frames(), True)
    robots = _top_level(ours)[36:]
    assert len(robots) == 5
    for t, robot in enumerate(robots):
        loaded = set(re.findall(r"\(load (models/\w+)\.obj\)", robot))
        typed = {m for m in loaded if m[-1].isdigit()}
        assert typed == {f"models/naobody{t}", f"models/rupperarm{t}", f"models/lupperarm{t}",
                         f"models/rshank{t}", f"models/lshank{t}"}, (t, typed)


def _top_level(text: str) -> list[str]:
    """The top-level nodes of a run of s-expressions."""
    nodes, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "(":
            start = i if depth == 0 else start
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                nodes.append(text[start:i + 1])
    return nodes


def _scene(engine, labels: dict, dialect: str):
    """The monitor scene of an engine's world, as the monitor feed builds it (labels: robot
    id -> (team, unum, side))."""
    from sim_physics.scene.monitor_scene import STREAM_STYLES, MonitorScene, SceneRobot

    robots = [SceneRobot(rid, engine.robot_model(rid), engine.model_spec(engine.robot_model(rid)), labels.get(rid))
              for rid in engine.robot_ids()]
    return MonitorScene([m for m in engine.world.models if not m.is_ball], robots, STREAM_STYLES[dialect],
                        field=engine.field)


def _rsmp_parts(frame: str) -> list[tuple[str, str, str]]:
    """Every robot part of an RSMP scene (inside an agent's DSC): (visible, load, material)."""
    parts: list[tuple[str, str, str]] = []
    for agent in re.split(r"\(nd DSC\(agent ", frame)[1:]:
        parts += re.findall(r"\(nd SMN \(setVisible (\d)\)\(load ([^)]*)\)\((?:sMat|rgba) ([^)]*)\)",
                            agent.split("(nd DSC(")[0])
    return sorted(parts)


def test_rsmp_stream_draws_t1_and_k1_as_rcsssmj_does() -> None:
    """Compared with a full frame captured from rcssservermj with a T1 (Alpha 2), a K1 (Beta 1)
    and an ant (Alpha 3): every mesh file, primitive and material or colour of the robots,
    hidden collision shapes included. Left out: the jersey number plates rcsssmj adds to its
    robots (not in their MJCF)."""
    from sim_physics.engine.mujoco.engine import MujocoEngine
    from sim_physics.world.mjcf_import import rcsssmj_models

    if not {"T1", "K1", "ant"} <= set(rcsssmj_models()):
        raise AssertionError("rcsssmj's T1, K1 and ant are installed by make setup")
    engine = MujocoEngine("fifa7vs7_field", vision_noise=False)
    engine.add_robot("t1", "T1", -4.0, 0.0, 0.0)
    engine.add_robot("k1", "K1", 4.0, 0.0, 180.0)
    engine.add_robot("ant", "ant", -4.0, 3.0, 0.0)
    engine.step()
    labels = {"t1": ("Alpha", 2, "left"), "k1": ("Beta", 1, "right"), "ant": ("Alpha", 3, "left")}
    ours = _scene(engine, labels, "rcsssmj").scene(*engine.frames(), True)
    reference = (SAMPLES / "rcsssmj_monitor_frame_full_T1_K1.txt").read_text()
    expected = [p for p in _rsmp_parts(reference) if p[2] != "jersey_mat"]
    assert _rsmp_parts(ours) == expected


def _node_tree(scene: str) -> list:
    """The nesting of the (nd ...) nodes of a scene text, nothing else."""
    stack: list[list] = [[]]
    nodes: list[bool] = []
    for i, c in enumerate(scene):
        if c == "(":
            nodes.append(scene.startswith("nd", i + 1) and not scene[i + 3:i + 4].isalnum())
            stack.append([])
        elif c == ")":
            kids = stack.pop()
            if nodes.pop():
                stack[-1].append(kids)
            else:
                stack[-1].extend(kids)
    return stack[0]


def test_incremental_frames_have_the_full_frames_nodes() -> None:
    """Monitors (RoboViz, the recorder, agents' own) apply an incremental frame to the scene of
    the last full one node by node: both must nest the same nodes, ball and robots included
    (the ball's look is one node; it was sent as two, so every incremental frame was refused)."""
    from sim_physics.engine.factory import physics_engine

    engine = physics_engine("ode", "simspark_field", vision_noise=False)
    engine.add_robot("a1", "nao0", -3.0, 2.0, 0.0)
    engine.add_robot("b1", "nao4", 3.0, 2.0, 180.0)
    engine.step()
    labels = {"a1": ("Alpha", 1, "left"), "b1": ("Beta", 1, "right")}
    for x, dialect in enumerate(("simspark", "rcsssmj")):
        scene = _scene(engine, labels, dialect)
        full = scene.scene(*engine.frames(), True)
        engine.set_ball((1.0 + x, 1.0, 0.5))
        engine.step()
        incremental = scene.scene(*engine.frames(), False)
        assert "(SLT" in incremental  # the ball moved
        assert _node_tree(incremental) == _node_tree(full), dialect


def test_compiled_transform_texts_are_the_python_ones() -> None:
    """sim_hotpath.slt_texts formats a frame's transforms as monitor_scene._slt does (SimSpark
    %.6g, rcsssmj %.4f), awkward numbers included."""
    from sim_physics.scene.monitor_scene import _slt

    from sim_hotpath import slt_texts

    rng = np.random.default_rng(5)
    trf = rng.normal(size=(300, 3, 4)) * rng.choice([1e-9, 1e-5, 1e-3, 1.0, 30.0, 1e7], size=(300, 3, 4))
    trf[0] = 0.0
    trf[1] = -0.0
    trf[2, 0, 0], trf[2, 1, 1], trf[2, 2, 2] = 0.5e-4, 123456.5, -0.00012345
    which = rng.random(300) < 0.8
    for dialect in ("simspark", "rcsssmj"):
        got = slt_texts(trf, which, dialect == "rcsssmj")
        for i in range(300):
            assert got[i] == (_slt(trf[i, :, :3], trf[i, :, 3], dialect == "rcsssmj") if which[i] else None)


def _recursive_scene(scene, slt: list, changed: np.ndarray, full: bool) -> str:
    """The whole scene: the root node (rcsssmj), or the root's looks and children side by
    side (SimSpark: rcssserver3d's scene has no root node)."""
    from sim_physics.scene.monitor_scene import _skeleton

    if scene.style.rooted:
        return _recursive_node(scene, scene.root, slt, changed, full)
    looks = scene.root.geoms if full else [_skeleton(g, scene.style.sep) for g in scene.root.geoms]
    return "".join(looks) + "".join(_recursive_node(scene, c, slt, changed, full) for c in scene.root.children)


def _recursive_node(scene, body, slt: list, changed: np.ndarray, full: bool) -> str:
    """One body's text, recursively: the definition MonitorScene's flat template follows."""
    from sim_physics.scene.monitor_scene import _skeleton

    inner = list(body.geoms) if full else [_skeleton(g, scene.style.sep) for g in body.geoms]
    inner += [_recursive_node(scene, c, slt, changed, full) for c in body.children]
    sep = scene.style.sep
    head = f"(nd TRF{sep}{slt[body.index]}" if full or changed[body.index] else "(nd"
    node = head + (sep if inner and sep else "") + sep.join(inner) + ")"
    if body.tag and scene.style.tagged:  # rcssserver3d's stream has no DSC nodes
        return f"(nd DSC({body.tag}){node})" if full else f"(nd{node})"
    return node


def test_flattened_frames_are_the_recursive_ones() -> None:
    """scene() fills a flat template per frame kind; _recursive_node above is its definition.
    Both dialects, full and incremental frames, random sets of moved bodies."""
    from sim_physics.engine.mujoco.engine import MujocoEngine

    from sim_hotpath import slt_texts

    engine = MujocoEngine("simspark_field", vision_noise=False)
    engine.add_robot("a1", "nao0", -3.0, 2.0, 0.0)
    engine.add_robot("b4", "nao4", 2.0, -1.0, 90.0)
    engine.step()
    labels = {"a1": ("Alpha", 1, "left"), "b4": ("Beta", 4, "right")}
    rng = np.random.default_rng(2)
    for dialect in ("simspark", "rcsssmj"):
        scene = _scene(engine, labels, dialect)
        trf = scene.transforms(*engine.frames())
        for full in (True, False, False):
            changed = rng.random(scene.nbody) < 0.5
            if dialect == "simspark" and not full:  # each robot's and the ball's own transform: every frame
                changed |= np.array([bool(b.tag) for b in scene._bodies])
            flat = scene.scene(*engine.frames(), full) if full else None
            slt = slt_texts(trf, changed | full, dialect == "rcsssmj")
            recursive = _recursive_scene(scene, slt, changed, full)
            if full:
                assert flat == recursive
            else:
                moved = changed & ~np.array([bool(b.tag) for b in scene._bodies]) if dialect == "simspark" else changed
                scene._last = trf + np.where(moved, 1.0, 0.0)[:, None, None]  # exactly these bodies moved
                assert scene.scene(*engine.frames(), False) == recursive
