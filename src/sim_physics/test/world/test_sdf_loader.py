"""The SDF subset: worlds and robots load; anything else fails naming element and file."""
from __future__ import annotations

from pathlib import Path

import pytest
from sim_physics.world.sdf_loader import SdfError, load_model, load_world


def test_simspark_and_fifa_worlds() -> None:
    simspark = load_world("simspark_field")
    assert (simspark.field.length, simspark.field.width, simspark.field.ball_radius) == (30.0, 20.0, 0.042)
    assert simspark.field.landmarks["G1R"] == (15.0, 1.05, 0.8)
    assert len(simspark.field.lines) == 5 + 6 + 10
    fifa = load_world("fifa_field")
    assert (fifa.field.length, fifa.field.width, fifa.field.goal_width) == (105.0, 68.0, 7.32)
    assert len(fifa.field.landmarks) == 30 + 8  # rcsssmj's markers and SimSpark's flags and posts
    assert fifa.field.landmark_dialects["g_lup"] == "rcsssmj" and fifa.field.landmark_dialects["G1L"] == "simspark"
    assert simspark.field.landmarks["g_lup"] == simspark.field.landmarks["G1L"] == (-15.0, 1.05, 0.8)
    assert (simspark.air_density, fifa.air_density, fifa.air_viscosity) == (0.0, 1.2, 2e-5)


def test_nao_joints_limits_and_masses() -> None:
    nao = load_model("nao0")
    joints = {j.name: j for j in nao.joints}
    assert len(joints) == 22 and joints["hj1"].effector == "he1"
    assert joints["llj4"].lower == pytest.approx(-2.2689, abs=1e-3)  # knee -130 deg
    assert sum(link.mass for link in nao.links) == pytest.approx(4.6, abs=0.2)
    assert nao.link("torso").pose.pos[2] == 0.0 and nao.root_link().name == "torso"


def test_collision_friction_from_sdf_surface(tmp_path: Path) -> None:
    nao = load_model("nao4")
    assert {c.friction for link in nao.links for c in link.collisions} == {100.0}  # unbounded, as ODE's
    text = (Path(__file__).resolve().parents[4] / "worlds" / "models" / "nao0.sdf").read_text()
    bad = tmp_path / "nao_bad.sdf"
    bad.write_text(text.replace("<mu>100</mu>", "<mu>nan</mu>", 1))
    with pytest.raises(SdfError, match="friction mu must be in 0..100"):
        load_model(str(bad))


@pytest.mark.parametrize("model, elbow_ahead", [("nao0", 0.09), ("nao1", 0.12664), ("nao3", 0.145737), ("nao4", 0.09)])
def test_nao_arms_have_rcssserver3d_lengths(model: str, elbow_ahead: float) -> None:
    """The upper arm's centre is 0.01 out and 0.02 ahead of the shoulder joint, the elbow
    0.02 + ElbowRelUpperArm_Y ahead of it (naoarm.rsg, per robot type): arms that push a
    lying robot up reach as far as on rcssserver3d."""
    nao = load_model(model)
    for side, out in (("l", 1), ("r", -1)):
        shoulder = nao.link(f"{side}shoulder").pose.pos
        elbow = nao.link(f"{side}elbow").pose.pos - shoulder
        assert tuple(round(float(v), 6) for v in elbow) == (round(elbow_ahead, 6), 0.0, 0.009)
        upper = nao.link(f"{side}upperarm")
        centre = upper.pose.pos + upper.collisions[0].pose.pos - shoulder
        assert tuple(round(float(v), 6) for v in centre) == (0.02, out * 0.01, 0.0)


@pytest.mark.parametrize("model", ["nao0", "nao1", "nao2", "nao3", "nao4"])
def test_nao_legs_have_rcssserver3d_knees(model: str) -> None:
    """naoleg.rsg's offsets: the thigh's centre 0.01 ahead of the hip, the shank's 0.005 ahead
    of the thigh's, the knee 0.01 behind the shank's centre and the ankle 0.01 behind it too:
    knee and ankle pitch axes in line, 0.005 ahead of the hip. Agents' leg kinematics (FC
    Portugal's body model among them) use these numbers."""
    nao = load_model(model)
    for side in "lr":
        hip = nao.link(f"{side}hip2").pose.pos
        knee = nao.link(f"{side}shank").pose.pos  # each link's frame is at its joint
        ankle = nao.link(f"{side}ankle").pose.pos
        thigh, shank = (nao.link(f"{side}{part}") for part in ("thigh", "shank"))
        thigh_centre = (thigh.pose @ thigh.inertial_pose).pos
        shank_centre = (shank.pose @ shank.inertial_pose).pos
        ahead = {name: round(float(p[0] - hip[0]), 6) for name, p in
                 (("thigh", thigh_centre), ("knee", knee), ("shank", shank_centre), ("ankle", ankle))}
        assert ahead == {"thigh": 0.01, "knee": 0.005, "shank": 0.015, "ankle": 0.005}
        assert shank.collisions[0].pose.pos[0] == pytest.approx(0.01)  # the box where the body is


def test_type_4_toes_hinge_at_the_sole_as_naolegtoe() -> None:
    """naolegtoe.rsg: the toe box is 1 cm thick with its sole flush with the foot's, directly
    in front of it, and hinges on its rear edge at the sole (a toe hinged 1 cm higher carried
    its load differently: S7's foot force was 2 N off rcssserver3d's)."""
    nao = load_model("nao4")
    for side in "lr":
        foot, toe = nao.link(f"{side}foot"), nao.link(f"{side}toe")
        foot_box, toe_box = foot.collisions[0], toe.collisions[0]
        foot_centre = (foot.pose @ foot_box.pose).pos
        toe_centre = (toe.pose @ toe_box.pose).pos
        hinge = toe.pose.pos  # the toe's frame is at its joint
        assert toe_box.geometry.size[2] == pytest.approx(0.01)
        foot_sole = foot_centre[2] - foot_box.geometry.size[2] / 2
        assert toe_centre[2] - 0.005 == pytest.approx(foot_sole, abs=1e-9)
        assert hinge[2] == pytest.approx(foot_sole, abs=1e-9)
        assert hinge[0] == pytest.approx(foot_centre[0] + foot_box.geometry.size[0] / 2, abs=1e-9)
        assert toe_centre[0] - foot_centre[0] == pytest.approx(0.08, abs=1e-6)


def test_the_simspark_field_sets_its_contact_softness_cone_and_slip() -> None:
    from sim_physics.engine.mujoco.mjcf import static_world_mjcf

    field, rcsssmj_field = load_world("simspark_field"), load_world("fifa7vs7_field")
    assert field.contact_solref == (0.02, 1.0) and rcsssmj_field.contact_solref == (0.01, 1.0)
    assert (field.contact_cone, field.contact_slip) == ("elliptic", 0.005)
    assert (rcsssmj_field.contact_cone, rcsssmj_field.contact_slip) == ("pyramidal", 0.0)
    assert 'cone="elliptic"' in static_world_mjcf(field) and 'cone="pyramidal"' in static_world_mjcf(rcsssmj_field)
    assert '<default><geom friction="1 0.005 0.0001" solref="0.02 1"/></default>' in static_world_mjcf(field)
    assert '<default><geom friction="1 0.005 0.0001" solref="0.01 1"/></default>' in static_world_mjcf(rcsssmj_field)


def test_unsupported_elements_are_named_with_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sdf"
    bad.write_text('<sdf version="1.9"><model name="m"><link name="l"><collision name="c">'
                   "<geometry><mesh><uri>x.dae</uri></mesh></geometry></collision></link></model></sdf>")
    with pytest.raises(SdfError, match=r"bad\.sdf: unsupported element <mesh> in <geometry>"):
        load_model(str(bad))
    prismatic = tmp_path / "slide.sdf"
    prismatic.write_text('<sdf version="1.9"><model name="m"><link name="a"/><link name="b"/>'
                         '<joint name="j" type="prismatic"><parent>a</parent><child>b</child></joint>'
                         "</model></sdf>")
    with pytest.raises(SdfError, match="unsupported type 'prismatic'"):
        load_model(str(prismatic))
    with pytest.raises(SdfError, match="not found"):
        load_world("moon_field")


@pytest.mark.parametrize("change, message", [
    (("<gravity>0 0 -9.81</gravity>", "<gravity>0 -9.81</gravity>"), "<gravity> needs 3 finite numbers"),
    (("<max_step_size>0.005</max_step_size>", "<max_step_size>0</max_step_size>"), "max_step_size 0.0"),
    (('length="30"', 'length="inf"'), "length=...> must be a positive finite size"),
    (('length="30"', 'length="abc"'), "could not convert"),
    (('<soccer:ball friction="3 0.02 0" drag="0.01 5e-05" bounce="0.8 0.8"/>', ''),
     "exactly one <model> with <soccer:ball/>"),
    (('drag="0.01 5e-05"', 'drag="-1 0"'), "drag must be >= 0"),
    (('drag="0.01 5e-05"', 'drag="0.01 nan"'), "needs 2 finite numbers"),
    (('drag="0.01 5e-05"', 'drag="0.018 4e-05" stillness="1.5 3"'), "stillness> is gone"),
    (('solref="0.02 1"', 'solref="0 1"'), "0 < time constant <= 1 s"),
    (('solref="0.02 1"', 'solref="0.02"'), "solref needs 2 finite numbers"),
    (('cone="elliptic"', 'cone="round"'), "pyramidal or elliptic"),
    (('cone="elliptic"', 'cone="pyramidal"'), "needs cone=\"elliptic\""),
    (('slip="0.005"', 'slip="-1"'), "slip=...> is 0..1"),
])
def test_bad_world_files_are_refused_with_one_line(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    from sim_physics.world.sdf_loader import worlds_dir

    text = (worlds_dir() / "simspark_field.sdf").read_text()
    assert change[0] in text
    bad = tmp_path / "bad.sdf"
    bad.write_text(text.replace(change[0], change[1]))
    with pytest.raises(SdfError, match=message.replace("(", r"\(").replace(".", r"\.")) as caught:
        load_world(str(bad))
    assert str(bad) in str(caught.value) and "\n" not in str(caught.value)


def test_spawned_sdf_text_is_checked_and_bounded() -> None:
    from sim_physics.world.sdf_loader import MAX_SPAWNED_LINKS, SdfError, load_model_text

    box = "<geometry><box><size>0.1 0.1 0.1</size></box></geometry>"
    link = "<link name='l{i}'><collision name='c'>" + box + "</collision></link>"
    ok = load_model_text(f"<sdf version='1.9'><model name='m'>{link.format(i=0)}</model></sdf>")
    assert ok.name == "m" and len(ok.links) == 1
    huge = "".join(link.format(i=i) for i in range(MAX_SPAWNED_LINKS + 1))
    for text, message in ((f"<sdf><model name='m'>{huge}</model></sdf>", "a spawned model may have"),
                          ("<sdf><model name='m'/></sdf>", "has no <link>"),
                          ("<robot name='r'/>", "a URDF document"), ("<world/>", "expected <sdf>"),
                          ("<sdf><model", "<resource_string>"),
                          ("x" * (2 << 20), "SDF text over")):
        with pytest.raises(SdfError, match=message):
            load_model_text(text)
