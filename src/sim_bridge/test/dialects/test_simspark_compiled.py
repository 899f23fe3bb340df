"""The compiled SimSpark paths (sim_hotpath) against their Python references: perception
text byte for byte over random percepts with awkward numbers, and hinge messages parsed to the
same commands as the full parser reads them."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest
import simspark_reference as reference  # src/sim_bridge/test/dialects on pythonpath

from sim_bridge.dialects.simspark import SimSparkDialect
from sim_contracts.percept import ForceResistance, GameStateView, Heard, Percept, Polar, SeenPlayer, Vision
from sim_hotpath import encode_simspark_percept, parse_simspark_hinges

# Numbers where formatting goes wrong first: ties at the second decimal, -0, tiny and huge
# values, non-finite ones, ints and numpy scalars.
AWKWARD = [0.005, 0.015, 0.025, 1.005, 2.675, -0.001, -0.0, 0.0, 1e-300, -1e-7, 1e15, 1.7e308, -1.7e308,
           math.inf, -math.inf, math.nan, 3, -2, np.float64(0.125), np.float64(-12.345), 99.995, -99.995]
NAO = ["hj1", "hj2", "laj1", "laj2", "laj3", "laj4", "raj1", "raj2", "raj3", "raj4", "llj1", "llj2", "llj3",
       "llj4", "llj5", "llj6", "llj7", "rlj1", "rlj2", "rlj3", "rlj4", "rlj5", "rlj6", "rlj7"]


def _number(rng: random.Random) -> float:
    return rng.choice(AWKWARD) if rng.random() < 0.3 else rng.uniform(-200, 200)


def _pol(rng: random.Random) -> Polar:
    return Polar(_number(rng), _number(rng), _number(rng))


def _percept(rng: random.Random) -> Percept:
    names = rng.choice([NAO, NAO[:22], NAO[:2], NAO[:1], [], ["llj5", "hj2"], ["hj1", "llj5", "rlj7"]])
    vision = None
    if rng.random() < 0.7:
        objects = {rng.choice(["F1L", "G2R", "B", "x%y"]) + str(i): _pol(rng) for i in range(rng.randint(0, 8))}
        players = [SeenPlayer(rng.choice(["Alpha", "Beta-2"]), rng.randint(1, 11),
                              {p: _pol(rng) for p in rng.sample(["head", "rlowerarm", "lfoot"], rng.randint(1, 3))})
                   for _ in range(rng.randint(0, 4))]
        truth = {name: tuple(_number(rng) for _ in range(n))
                 for name, n in (("mypos", 3), ("myorien", 1), ("ballpos", 3)) if rng.random() < 0.3}
        vision = Vision(objects, players, [(_pol(rng), _pol(rng)) for _ in range(rng.randint(0, 5))], truth)
    game = GameStateView(play_mode=rng.choice(["BeforeKickOff", "PlayOn", "KickOff_Left"]), game_time=_number(rng),
                         score_left=rng.randint(0, 9), score_right=rng.randint(0, 9),
                         unum=rng.choice([0, 0, 7]), side=rng.choice(["left", "right"]))
    return Percept(
        time=_number(rng), game=game, gyro=(_number(rng), _number(rng), _number(rng)),
        accel=(_number(rng), _number(rng), _number(rng)), joint_names=list(names),
        joint_angles=[_number(rng) for _ in names], joint_velocities=[],
        foot_resistance=[ForceResistance(n, (_number(rng), 0.01, -0.02), (1.5, _number(rng), 20.0))
                         for n in rng.sample(["lf", "rf", "lf1", "rf1", "lf"], rng.randint(0, 5))],
        vision=vision,
        heard=[Heard(_number(rng), _number(rng), rng.choice(["hi", "a(b)c", "x"]), from_self=rng.random() < 0.3,
                     team=rng.choice(["Alpha", "Beta"])) for _ in range(rng.randint(0, 2))])


@pytest.mark.parametrize("seed", range(8))
def test_perception_text_is_the_references_byte_for_byte(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(250):
        p = _percept(rng)
        assert encode_simspark_percept(p) == reference.encode_percept(p)


def test_a_percept_of_the_wrong_shape_is_a_python_error_not_a_crash() -> None:
    p = _percept(random.Random(1))
    p.gyro = (1.0, 2.0)  # type: ignore[assignment]  # the wrong shape on purpose
    with pytest.raises(TypeError):
        encode_simspark_percept(p)
    p = _percept(random.Random(1))
    p.joint_angles = ["x"] * len(p.joint_names)  # type: ignore[list-item]  # not numbers, on purpose
    if p.joint_names:
        with pytest.raises(TypeError):
            encode_simspark_percept(p)


def _message(rng: random.Random) -> bytes:
    def space() -> str:
        return rng.choice(["", "", " ", "\n", "\t ", "\r\n"])

    numbers = ["1.5", "-0.00", "1e-05", "+2", ".5", "3.", "1E+3", "-7.25e-2", "0", "nan", "inf", "1e400", "abc", "1_0",
               "0x10", "--1", "1.2.3", "", "١"]
    items = []
    for _ in range(rng.randint(0, 26)):
        kind = rng.random()
        if kind < 0.75:
            name = rng.choice(["he1", "he2", "lle1", "rle6", "lae3", "x"])
            value = rng.choice(numbers[:9] if rng.random() < 0.9 else numbers)
            items.append(f"({space()}{name} {space()}{value}{space()})")
        elif kind < 0.85:
            items.append(f"({space()}syn{space()})")
        else:
            items.append(rng.choice(["(beam 1 2 3)", "(say hi)", "(init (unum 1)(teamname A))", "(he1 1 2)", "()",
                                     "(syn 1)", "(he1)", "((he1 1))", "(he1 1", "\x0b", "(pass)"]))
    return (space().join(items) + space()).encode()


@pytest.mark.parametrize("seed", range(6))
def test_hinge_messages_give_the_full_parsers_commands(seed: int) -> None:
    rng = random.Random(seed)
    dialect = SimSparkDialect()
    fast = 0
    for _ in range(400):
        message = _message(rng)
        if parse_simspark_hinges(message) is not None:
            fast += 1
        assert dialect.parse_actions(message) == dialect.parse_any(message), message
    assert fast > 50  # most messages of the every-cycle kind take the compiled path


def test_the_every_cycle_message_takes_the_compiled_path() -> None:
    message = b"(he1 0.00000)(he2 -0.00)(lle1 1.6806e-05)(rle3 1.5) (syn)"
    assert parse_simspark_hinges(message) == ({"he1": 0.0, "he2": -0.0, "lle1": 1.6806e-05, "rle3": 1.5}, 1)
    for other in (b"(he1 nan)(syn)", b"(he1 1e400)", b"(beam 1 2 3)(syn)", b"(he1 1)\xff", b"(he1 1 2)"):
        assert parse_simspark_hinges(other) is None


def test_two_decimals_round_as_python_over_many_numbers() -> None:
    rng = random.Random(5)
    for _ in range(40000):
        v = rng.choice([rng.uniform(-1e7, 1e7), rng.uniform(-10, 10), round(rng.uniform(-100, 100), 3),
                        rng.randint(-10**6, 10**6) / 200, rng.uniform(-1, 1) * 10 ** rng.randint(-8, 9)])
        p = Percept(time=v, game=GameStateView(), gyro=(0, 0, 0), accel=(0, 0, 0), joint_names=[], joint_angles=[],
                    joint_velocities=[])
        assert encode_simspark_percept(p).split(b")")[0] == b"(time (now %.2f" % v, v


def test_ground_truth_ends_the_see() -> None:
    vision = Vision({"B": Polar(2.0, 10.0, -5.0)}, [], [],
                    {"mypos": (-3.5, 1.25, 0.375), "myorien": (45.5,), "ballpos": (0.25, -0.5, 0.042)})
    p = Percept(time=1.0, game=GameStateView(), gyro=(0.0, 0.0, 0.0), accel=(0.0, 0.0, 9.81),
                joint_names=["hj1", "hj2"], joint_angles=[0.0, 0.0], joint_velocities=[], vision=vision)
    text = encode_simspark_percept(p)
    assert b"(See (B (pol 2.00 10.00 -5.00)) (mypos -3.50 1.25 0.38) (myorien 45.50) (ballpos 0.25 -0.50 0.04))" \
        in text, text
