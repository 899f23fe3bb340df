"""Writes the SDF worlds and robot models in worlds/ from the figures of the references.

Figures (SimSpark 0.7 Nao and field, rcsssmj FIFA field) are in /work/shared/protocols;
this script is the one place they are typed in. Run it after changing a figure:
    python tools/gen_worlds.py
The output is plain SDF 1.9 with a few `soccer:` extension elements (effector and
perceptor names, vision parts, foot pressure sensors, field landmarks and lines) that
Gazebo ignores and our loader reads."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "worlds"
NS = 'xmlns:soccer="https://soccersim.invalid/sdf"'
DEG = math.pi / 180


@dataclass
class Link:
    name: str
    parent: str  # "" for the root link
    offset: tuple[float, float, float]  # from the parent link's frame, model axes (x fwd, y left, z up)
    mass: float
    shape: str  # box / sphere / capsule
    size: tuple[float, ...]
    geom_offset: tuple[float, float, float] = (0.0, 0.0, 0.0)
    joint: tuple[str, str, tuple[float, float, float], float, float, float] | None = None
    # (perceptor, effector, axis, lower_deg, upper_deg, max_speed rad/s); None = fixed to the parent
    vision_part: str = ""
    frp: str = ""
    collide: bool = True


def sim(v: tuple[float, float, float]) -> tuple[float, float, float]:
    """SimSpark body axes (x right, y forward, z up) -> model axes (x forward, y left, z up)."""
    return (v[1], -v[0], v[2])


def nao_links(robot_type: int) -> list[Link]:
    hip_x, thigh_z, ankle_z, elbow_y = 0.055, -0.04, -0.055, 0.07
    ankle_speed = roll_speed = 6.1395
    if robot_type in (1, 3):
        thigh_z, ankle_z, elbow_y = -0.05832, -0.07332, 0.10664
    if robot_type == 3:
        hip_x, thigh_z, ankle_z, elbow_y = 0.072954, -0.067868, -0.082868, 0.125737
    if robot_type == 2:
        ankle_speed, roll_speed = 8.80667, 3.47234
    s = 6.1395
    links = [
        Link("torso", "", (0, 0, 0), 1.2171, "box", (0.1, 0.1, 0.18)),
        Link("neck", "torso", (0, 0, 0.09), 0.05, "capsule", (0.015, 0.04), (0, 0, 0.0),
             ("hj1", "he1", (0, 0, 1), -120, 120, s), collide=False),
        Link("head", "neck", (0, 0, 0.065), 0.35, "sphere", (0.065,),
             joint=("hj2", "he2", sim((1, 0, 0)), -45, 45, s), vision_part="head"),
    ]
    for side, sx in (("l", -1.0), ("r", 1.0)):
        up = "l" if side == "l" else "r"
        roll_lim = (-1, 95) if side == "l" else (-95, 1)
        elbow_lim = (-90, 1) if side == "l" else (-1, 90)
        links += [
            Link(f"{up}shoulder", "torso", sim((sx * 0.098, 0, 0.075)), 0.07, "sphere", (0.01,),
                 joint=(f"{side}aj1", f"{side}ae1", sim((1, 0, 0)), -120, 120, s), collide=False),
            # the upper arm's centre is 0.01 out and 0.02 ahead of the shoulder joint; the elbow
            # is elbow_y ahead of that centre and back in line with the shoulder
            Link(f"{up}upperarm", f"{up}shoulder", (0, 0, 0), 0.15, "box", (0.08, 0.07, 0.06),
                 sim((sx * 0.01, 0.02, 0)),
                 (f"{side}aj2", f"{side}ae2", (0, 0, 1), *roll_lim, s)),
            Link(f"{up}elbow", f"{up}upperarm", sim((0, 0.02 + elbow_y, 0.009)), 0.035, "sphere", (0.01,),
                 joint=(f"{side}aj3", f"{side}ae3", sim((0, 1, 0)), -120, 120, s), collide=False),
            Link(f"{up}lowerarm", f"{up}elbow", (0, 0, 0), 0.2, "box", (0.11, 0.05, 0.05),
                 sim((0, 0.05, 0)), (f"{side}aj4", f"{side}ae4", (0, 0, 1), *elbow_lim, s),
                 vision_part=f"{side}lowerarm"),
        ]
    for side, sx in (("l", -1.0), ("r", 1.0)):
        roll_lim = (-25, 45) if side == "l" else (-45, 25)
        ankle_roll_lim = (-45, 25) if side == "l" else (-25, 45)
        yawpitch_axis = sim((-0.7071, 0, -0.7071 if side == "l" else 0.7071))
        links += [
            Link(f"{side}hip1", "torso", sim((sx * hip_x, -0.01, -0.115)), 0.09, "sphere", (0.01,),
                 joint=(f"{side}lj1", f"{side}le1", yawpitch_axis, -90, 1, s), collide=False),
            Link(f"{side}hip2", f"{side}hip1", (0, 0, 0), 0.125, "sphere", (0.01,),
                 joint=(f"{side}lj2", f"{side}le2", sim((0, 1, 0)), *roll_lim, s), collide=False),
            Link(f"{side}thigh", f"{side}hip2", (0, 0, 0), 0.275, "box", (0.07, 0.07, 0.14),
                 sim((0, 0.01, thigh_z)), (f"{side}lj3", f"{side}le3", sim((1, 0, 0)), -25, 100, s)),
            # the shank's centre is 0.125 below and 0.005 ahead of the thigh's; the knee is 0.045
            # above and 0.01 behind the shank's centre, the ankle 0.01 behind it too: knee and
            # ankle in line, 0.005 ahead of the hip (rcssserver3d's leg, and the body model
            # agents such as FC Portugal's compute their leg kinematics with)
            Link(f"{side}shank", f"{side}thigh", sim((0, 0.005, thigh_z - 0.125 + 0.045)), 0.225, "box",
                 (0.08, 0.07, 0.11), sim((0, 0.01, -0.045)),
                 (f"{side}lj4", f"{side}le4", sim((1, 0, 0)), -130, 1, s)),
            Link(f"{side}ankle", f"{side}shank", sim((0, 0, ankle_z - 0.045)), 0.125,
                 "sphere", (0.01,), joint=(f"{side}lj5", f"{side}le5", sim((1, 0, 0)), -45, 75,
                                          ankle_speed), collide=False),
            # ankle roll axis 5 mm below the pitch axis; the foot box centre 0.04 below it
            Link(f"{side}foot", f"{side}ankle", (0, 0, -0.005), 0.2, "box", (0.16, 0.08, 0.02),
                 sim((0, 0.03, -0.035)), (f"{side}lj6", f"{side}le6", sim((0, 1, 0)),
                                         *ankle_roll_lim, roll_speed),
                 vision_part=f"{side}foot", frp=f"{side}f"),
        ]
        if robot_type == 4:
            # Toes: the front 0.035518 m of the foot hinge about the lateral axis.
            # (the foot's 0.2 kg split by length, as rcssserver3d: toe 0.0222, foot 0.1778)
            links[-1].size = (0.16 - 0.035518, 0.08, 0.02)
            links[-1].mass = 0.1778
            links[-1].geom_offset = sim((0, 0.03 - 0.035518 / 2, -0.035))
            # The toe box is 1 cm thick, its sole flush with the foot's, and it hinges at the
            # sole on its rear edge (naolegtoe.rsg: ToeSizeZ 0.01, ToeRelFoot_Z -0.005, the lj7
            # anchor 0.005 below the toe's centre).
            links.append(Link(f"{side}toe", f"{side}foot", sim((0, 0.03 + 0.08 - 0.035518, -0.045)),
                              0.0222, "box", (0.035518, 0.08, 0.01), sim((0, 0.035518 / 2, 0.005)),
                              (f"{side}lj7", f"{side}le7", sim((1, 0, 0)), -1, 70, s),
                              frp=f"{side}f1"))
    return links


def inertia(link: Link) -> tuple[float, float, float]:
    m = link.mass
    if link.shape == "box":
        x, y, z = link.size
        return (m * (y * y + z * z) / 12, m * (x * x + z * z) / 12, m * (x * x + y * y) / 12)
    r = link.size[0]
    return (0.4 * m * r * r,) * 3


def geometry(link: Link) -> str:
    if link.shape == "box":
        return "<box><size>%g %g %g</size></box>" % link.size
    if link.shape == "sphere":
        return "<sphere><radius>%g</radius></sphere>" % link.size
    return "<capsule><radius>%g</radius><length>%g</length></capsule>" % link.size


def fmt(v: tuple[float, ...]) -> str:
    return " ".join("%.6g" % x for x in v)


# rcssserver3d's contacts have unbounded Coulomb friction (mu = dInfinity) with force-dependent
# slip; MuJoCo needs a finite mu, so one far above any ratio of friction to normal force a
# walking or getting-up Nao needs: the slip law (the world's <soccer:contact slip=>) rules.
NAO_FRICTION = 100.0


def model_sdf(name: str, links: list[Link], friction: float | None = None) -> str:
    out = [f'<?xml version="1.0"?>\n<!-- generated by tools/gen_worlds.py -->\n<sdf version="1.9" {NS}>',
           f'  <model name="{name}">']
    for link in links:
        rel = link.parent or "__model__"
        pos = link.offset if link.parent else (0, 0, 0)
        ixx, iyy, izz = inertia(link)
        out.append(f'    <link name="{link.name}">')
        out.append(f'      <pose relative_to="{rel}">{fmt(pos)} 0 0 0</pose>')
        out.append(f"      <inertial><pose>{fmt(link.geom_offset)} 0 0 0</pose><mass>{link.mass:g}</mass>"
                   f"<inertia><ixx>{ixx:.6g}</ixx><iyy>{iyy:.6g}</iyy><izz>{izz:.6g}</izz>"
                   "<ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial>")
        if link.collide:
            surface = (f"<surface><friction><ode><mu>{friction:g}</mu><mu2>{friction:g}</mu2></ode></friction>"
                       "</surface>" if friction is not None else "")
            out.append(f'      <collision name="{link.name}_collision"><pose>{fmt(link.geom_offset)} 0 0 0</pose>'
                       f"<geometry>{geometry(link)}</geometry>{surface}</collision>")
        out.append(f'      <visual name="{link.name}_visual"><pose>{fmt(link.geom_offset)} 0 0 0</pose>'
                   f"<geometry>{geometry(link)}</geometry></visual>")
        if link.name == "torso":
            out.append('      <sensor name="torso_imu" type="imu"><soccer:gyro>GYR</soccer:gyro>'
                       "<soccer:accelerometer>ACC</soccer:accelerometer></sensor>")
        if link.name == "head":
            out.append('      <sensor name="camera" type="camera"><camera><horizontal_fov>2.0944</horizontal_fov>'
                       "</camera><update_rate>16.6667</update_rate></sensor>")
        if link.vision_part:
            out.append(f"      <soccer:vision_part>{link.vision_part}</soccer:vision_part>")
        if link.frp:
            out.append(f'      <soccer:frp name="{link.frp}"/>')
        out.append("    </link>")
        if link.parent and not link.joint:
            out.append(f'    <joint name="{link.name}_fixed" type="fixed"><parent>{link.parent}</parent>'
                       f"<child>{link.name}</child></joint>")
        if link.joint:
            perceptor, effector, axis, lo, hi, speed = link.joint
            out.append(f'    <joint name="{perceptor}" type="revolute">')
            out.append(f"      <parent>{link.parent}</parent><child>{link.name}</child>")
            out.append(f'      <pose relative_to="{link.name}">0 0 0 0 0 0</pose>')
            out.append(f"      <axis><xyz>{fmt(axis)}</xyz><limit><lower>{lo * DEG:.6f}</lower>"
                       f"<upper>{hi * DEG:.6f}</upper><effort>10</effort><velocity>{speed:g}</velocity>"
                       "</limit></axis>")
            out.append(f"      <soccer:effector>{effector}</soccer:effector>")
            out.append("    </joint>")
    out.append("  </model>\n</sdf>\n")
    return "\n".join(x for x in out if x)


def pusher_sdf() -> str:
    """A small two-wheeled robot: a box body on two wheels and a rear caster ball."""
    body = Link("torso", "", (0, 0, 0), 2.0, "box", (0.3, 0.24, 0.12), vision_part="torso")
    wheels = []
    for side, y in (("l", 0.14), ("r", -0.14)):
        wheels.append(Link(f"{side}wheel", "torso", (0.03, y, -0.02), 0.2, "capsule", (0.05, 0.02),
                           joint=(f"{side}w", f"{side}we", (0, 1, 0), -1e6, 1e6, 20.0)))
    caster = Link("caster", "torso", (-0.11, 0, -0.05), 0.05, "sphere", (0.02,))
    links = [body, *wheels, caster]
    text = model_sdf("pusher", links)
    # Wheels roll about their axle: the capsule's axis must point along y.
    for side in ("l", "r"):
        text = text.replace(f'<collision name="{side}wheel_collision"><pose>0 0 0 0 0 0</pose>',
                            f'<collision name="{side}wheel_collision"><pose>0 0 0 1.5708 0 0</pose>')
        text = text.replace(f'<visual name="{side}wheel_visual"><pose>0 0 0 0 0 0</pose>',
                            f'<visual name="{side}wheel_visual"><pose>0 0 0 1.5708 0 0</pose>')
    return text


@dataclass
class Field:
    name: str
    length: float
    width: float
    goal_width: float
    goal_depth: float
    goal_height: float
    penalty_depth: float
    penalty_width: float
    center_radius: float
    ball_radius: float
    ball_mass: float
    post_radius: float
    landmarks: dict[str, tuple[float, float, float]]
    lines: list[tuple[float, float, float, float]]
    dialect_of: dict[str, str]  # landmark -> the dialect whose agents see it (both if absent)
    air: tuple[float, float] | None = None  # density, viscosity (rcsssmj's world has air)
    ball_contact: str = ""  # <soccer:ball> attributes: the ball's contact, where not ours
    ball_inertia: float = 2 / 5  # I = k m r^2: solid, as both references' balls
    rcsssmj_areas: str = ""  # rcsssmj's goalie area, corner area and penalty spot, as <soccer:field> attributes
    contact_solref: tuple[float, float] | None = None  # <soccer:contact>: every other contact's softness
    contact_cone: str = "pyramidal"  # <soccer:contact cone=>: MuJoCo's friction cone
    contact_slip: float = 0.0  # <soccer:contact slip=>: force-dependent slip of robot contacts, (m/s)/N


# rcsssmj's ball: friction 0.4 (sliding) 0.01 0.01, a direct spring-damper contact.
RCSSSMJ_BALL = 'friction="0.4 0.01 0.01" solref="-5000 -20"'
# rcssserver3d's ball (rsg/agent/ball.rsg): a solid 26 g sphere slowed by its DragController
# alone (F = -0.01 v, T = -0.00005 w), not by rolling friction; its contact has unbounded
# friction with force-dependent slip 0.6 (m/s)/N, so a ball set moving rolls at once (5/7 of
# its speed) and then slows by a constant factor per cycle: 5 m/s -> 3.39 m. It bounces (ODE
# contact bounce 0.8 for contacts approaching faster than 0.8 m/s). Sliding friction 3 makes
# MuJoCo's and DART's ball roll at once too (0.8 let it slide 0.3 s: 8 m/s went 24 % too far).
SIMSPARK_BALL = 'friction="3 0.02 0" drag="0.01 5e-05" bounce="0.8 0.8"'


def simspark_field() -> Field:
    L, W, gw, gh, pd, pw, r = 30.0, 20.0, 2.1, 0.8, 1.8, 6.0, 2.0
    hl, hw = L / 2, W / 2
    marks = {"F1L": (-hl, hw, 0), "F2L": (-hl, -hw, 0), "F1R": (hl, hw, 0), "F2R": (hl, -hw, 0),
             "G1L": (-hl, gw / 2, gh), "G2L": (-hl, -gw / 2, gh), "G1R": (hl, gw / 2, gh),
             "G2R": (hl, -gw / 2, gh)}
    lines = [(-hl, hw, hl, hw), (-hl, -hw, hl, -hw), (-hl, -hw, -hl, hw), (hl, -hw, hl, hw),
             (0, -hw, 0, hw)]
    for sx in (-1, 1):
        x0, x1 = sx * hl, sx * (hl - pd)
        lines += [(x0, pw / 2, x1, pw / 2), (x0, -pw / 2, x1, -pw / 2), (x1, -pw / 2, x1, pw / 2)]
    for i in range(10):  # centre circle as 10 chords
        a0, a1 = 2 * math.pi * i / 10, 2 * math.pi * (i + 1) / 10
        lines.append((r * math.cos(a0), r * math.sin(a0), r * math.cos(a1), r * math.sin(a1)))
    # rcsssmj agents on this field see its markers under rcsssmj's names: SimSpark's
    # penalty area is rcsssmj's goalie area; there is no penalty mark nor large area here.
    mj = rcsssmj_markers(hl, hw, gw, gh, r, (pd, pw), None, None)
    dialect_of = {**{n: "simspark" for n in marks}, **{n: "rcsssmj" for n in mj}}
    return Field("simspark_field", L, W, gw, 0.6, gh, pd, pw, r, 0.042, 0.026, 0.02, {**marks, **mj}, lines,
                 dialect_of, ball_contact=SIMSPARK_BALL, ball_inertia=2 / 5,
                 # softer than MuJoCo's 0.01 (rcssserver3d's contacts are ODE-soft): FC Portugal's
                 # walk falls 4-5 times a minute at 0.02, 10-12 at 0.01 and at 0.025
                 contact_solref=(0.02, 1.0), contact_cone="elliptic",
                 # rcssserver3d's Nao contacts: unbounded friction, force-dependent slip 0.005 (m/s)/N
                 contact_slip=0.005)


def rcsssmj_markers(hl: float, hw: float, gw: float, gh: float, r: float, goalie_area: tuple[float, float],
                    penalty_area: tuple[float, float] | None,
                    spot: float | None) -> dict[str, tuple[float, float, float]]:
    """rcsssmj's vision markers of a field: L/T/X junctions of the lines, the goal posts'
    tops, the penalty marks (names as rcsssmj sends them)."""
    m: dict[str, tuple[float, float, float]] = {
        "l_luf": (-hl, hw, 0), "l_llf": (-hl, -hw, 0), "l_ruf": (hl, hw, 0), "l_rlf": (hl, -hw, 0),
        "t_cuf": (0, hw, 0), "t_clf": (0, -hw, 0), "x_cuc": (0, r, 0), "x_clc": (0, -r, 0)}
    if spot is not None:
        m.update({"p_lpm": (-hl + spot, 0, 0), "p_rpm": (hl - spot, 0, 0)})
    m.update({"g_lup": (-hl, gw / 2, gh), "g_llp": (-hl, -gw / 2, gh), "g_rup": (hl, gw / 2, gh),
              "g_rlp": (hl, -gw / 2, gh)})
    # rcssservermj 0.2.1 puts the area markers at the area's full width from the long axis
    # (y = +-width, not +-width/2; perception_T1_with_See.txt shows it): its agents learned them
    # there, so they are there (issue 29)
    areas = [("ga", *goalie_area)] + ([("pa", *penalty_area)] if penalty_area else [])
    for area, depth, width in areas:
        for side, sx in (("l", -1), ("r", 1)):
            m[f"l_{side}u{area}"] = (sx * (hl - depth), width, 0)
            m[f"l_{side}l{area}"] = (sx * (hl - depth), -width, 0)
            m[f"t_{side}u{area}"] = (sx * hl, width, 0)
            m[f"t_{side}l{area}"] = (sx * hl, -width, 0)
    return m


def rcsssmj_field(name: str, L: float, W: float, gw: float, gd: float, gh: float, goalie: tuple[float, float],
                  penalty: tuple[float, float], spot: float, r: float) -> Field:
    """A field of rcsssmj's (its figures, markers, ball and air), with SimSpark's flags and
    posts too so that SimSpark agents can play on it."""
    hl, hw = L / 2, W / 2
    m = rcsssmj_markers(hl, hw, gw, gh, r, goalie, penalty, spot)
    simspark = {"F1L": (-hl, hw, 0), "F2L": (-hl, -hw, 0), "F1R": (hl, hw, 0), "F2R": (hl, -hw, 0),
                "G1L": (-hl, gw / 2, gh), "G2L": (-hl, -gw / 2, gh), "G1R": (hl, gw / 2, gh),
                "G2R": (hl, -gw / 2, gh)}
    dialect_of = {**{n: "rcsssmj" for n in m}, **{n: "simspark" for n in simspark}}
    areas = (f' goalie_area_length="{goalie[0]:g}" goalie_area_width="{goalie[1]:g}" corner_radius="1" '
             f'penalty_spot_distance="{spot:g}"')
    return Field(name, L, W, gw, gd, gh, penalty[0], penalty[1], r, 0.11, 0.41, 0.05, {**m, **simspark}, [],
                 dialect_of, (1.2, 2e-5), RCSSSMJ_BALL, 2 / 5, areas)


def fifa_field() -> Field:
    """rcsssmj's FIFA field (105 x 68)."""
    return rcsssmj_field("fifa_field", 105.0, 68.0, 7.32, 1.6, 2.44, (5.5, 18.32), (16.5, 40.32), 11.0, 9.15)


def fifa7vs7_field() -> Field:
    """rcsssmj's default field (its SSIM rule book's FIFA 7 vs 7 field, 55 x 36)."""
    return rcsssmj_field("fifa7vs7_field", 55.0, 36.0, 3.66, 1.0, 1.83, (4.0, 7.3), (9.0, 16.5), 7.32, 5.5)


def world_sdf(f: Field) -> str:
    hl = f.length / 2
    out = [f'<?xml version="1.0"?>\n<!-- generated by tools/gen_worlds.py -->\n<sdf version="1.9" {NS}>',
           f'  <world name="{f.name}">',
           "    <physics type=\"mujoco\"><max_step_size>0.005</max_step_size></physics>",
           "    <gravity>0 0 -9.81</gravity>",
           *([f'    <soccer:air density="{f.air[0]:g}" viscosity="{f.air[1]:g}"/>'] if f.air else []),
           *([f'    <soccer:contact solref="{f.contact_solref[0]:g} {f.contact_solref[1]:g}" '
              f'cone="{f.contact_cone}" slip="{f.contact_slip:g}"/>'] if f.contact_solref else []),
           f'    <soccer:field length="{f.length:g}" width="{f.width:g}" goal_width="{f.goal_width:g}" '
           f'goal_depth="{f.goal_depth:g}" goal_height="{f.goal_height:g}" penalty_depth="{f.penalty_depth:g}" '
           f'penalty_width="{f.penalty_width:g}" center_radius="{f.center_radius:g}" '
           f'ball_radius="{f.ball_radius:g}"{f.rcsssmj_areas}/>']
    for name, (x, y, z) in f.landmarks.items():
        if name == "l_luga":
            out += ["    <!-- rcssservermj 0.2.1 puts the goalie- and penalty-area markers at the areas' full width "
                    "from\n         the long axis (y = +-width, not +-width/2; perception_T1_with_See.txt shows it): "
                    "its agents\n         learned them there, so they are there (issue 29) -->"]
        dialect = f' dialect="{f.dialect_of[name]}"' if name in f.dialect_of else ""
        out.append(f'    <soccer:landmark name="{name}" x="{x:g}" y="{y:g}" z="{z:g}"{dialect}/>')
    for x1, y1, x2, y2 in f.lines:
        out.append(f'    <soccer:line x1="{x1:.4f}" y1="{y1:.4f}" x2="{x2:.4f}" y2="{y2:.4f}"/>')
    out += ['    <model name="ground"><static>true</static><link name="ground">',
            '      <collision name="ground_collision"><geometry><plane><normal>0 0 1</normal>'
            f"<size>{f.length + 20:g} {f.width + 20:g}</size></plane></geometry></collision>",
            "    </link></model>"]
    for side, sx in (("left", -1), ("right", 1)):
        x_line = sx * hl
        pr, gw, gd, gh = f.post_radius, f.goal_width, f.goal_depth, f.goal_height
        parts = [  # (name, centre, size) boxes: posts, bar, back wall, side walls, roof
            ("post_upper", (x_line + sx * pr, gw / 2 + pr, gh / 2), (2 * pr, 2 * pr, gh)),
            ("post_lower", (x_line + sx * pr, -gw / 2 - pr, gh / 2), (2 * pr, 2 * pr, gh)),
            ("bar", (x_line + sx * pr, 0, gh + pr), (2 * pr, gw + 4 * pr, 2 * pr)),
            ("back", (x_line + sx * (gd + 0.01), 0, gh / 2), (0.02, gw + 0.04, gh)),
            ("side_upper", (x_line + sx * gd / 2, gw / 2 + 0.01 + 2 * pr, gh / 2), (gd, 0.02, gh)),
            ("side_lower", (x_line + sx * gd / 2, -gw / 2 - 0.01 - 2 * pr, gh / 2), (gd, 0.02, gh)),
            ("roof", (x_line + sx * gd / 2, 0, gh + 0.01), (gd, gw + 4 * pr, 0.02)),
        ]
        out.append(f'    <model name="goal_{side}"><static>true</static><link name="goal_{side}">')
        for name, (x, y, z), size in parts:
            out.append(f'      <collision name="{name}"><pose>{x:g} {y:g} {z:g} 0 0 0</pose>'
                       f"<geometry><box><size>{fmt(size)}</size></box></geometry></collision>")
        out.append("    </link></model>")
    r, m = f.ball_radius, f.ball_mass
    i = f.ball_inertia * m * r * r
    contact = f" {f.ball_contact}" if f.ball_contact else ""
    out += [f'    <model name="ball"><soccer:ball{contact}/>',
            f'      <pose>0 0 {r:g} 0 0 0</pose><link name="ball">',
            f"        <inertial><mass>{m:g}</mass><inertia><ixx>{i:.6g}</ixx><iyy>{i:.6g}</iyy>"
            f"<izz>{i:.6g}</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial>",
            f'        <collision name="ball_collision"><geometry><sphere><radius>{r:g}</radius></sphere>'
            "</geometry></collision>",
            "      </link></model>", "  </world>\n</sdf>\n"]
    return "\n".join(out)


def swarm_config(robots: int = 200, nodes: str = "ABCD") -> str:
    """A distributed swarm: `robots` pushers in a grid over the field, each node owning a
    vertical band of them (so most neighbours of a robot are its own node's), the ball on
    the first node; every pusher runs worlds/swarm_bt.xml at 10 Hz (staggered)."""
    import json

    columns, rows = 20, max(1, robots // 20)
    assets = []
    for i in range(robots):
        col, row = i % columns, i // columns
        x, y = -13.3 + col * 1.4, -8.1 + row * (16.2 / max(1, rows - 1))
        owner = nodes[col * len(nodes) // columns]
        assets.append({"name": f"s{i:03d}", "model": "pusher", "owner": owner,
                       "pose": [round(x, 2), round(y, 2), (i * 47) % 360]})
    assets.append({"name": "ball", "model": "ball", "owner": nodes[0], "pose": [0, 0, 0]})
    lines = ",\n  ".join(json.dumps(a) for a in assets)
    return ('{"world": "simspark_field", "bt_file": "swarm_bt.xml", "bt_tick_ms": 100,\n "assets": [\n  '
            + lines + "\n ]}\n")


def main() -> None:
    models = ROOT / "models"
    models.mkdir(parents=True, exist_ok=True)
    for t in range(5):
        (models / f"nao{t}.sdf").write_text(model_sdf(f"nao{t}", nao_links(t), NAO_FRICTION))
    (models / "pusher.sdf").write_text(pusher_sdf())
    for field in (simspark_field(), fifa_field(), fifa7vs7_field()):
        (ROOT / f"{field.name}.sdf").write_text(world_sdf(field))
    (ROOT / "swarm_example.json").write_text(swarm_config())
    print(f"wrote {ROOT}")


if __name__ == "__main__":
    main()
