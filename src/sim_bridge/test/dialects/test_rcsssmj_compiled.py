"""The compiled rcsssmj paths (sim_hotpath) against their Python references: perception text
byte for byte over random percepts (truncation and Python's float printing included), motor
messages parsed to the same commands as the full parser reads them."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest
import rcsssmj_reference as reference  # src/sim_bridge/test/dialects on pythonpath

from sim_bridge.dialects.rcsssmj import RcsssmjDialect
from sim_contracts.percept import GameStateView, Heard, Percept, Polar, SeenPlayer, Vision
from sim_hotpath import encode_rcsssmj_percept, parse_rcsssmj_motors

AWKWARD = [0.005, -0.005, 0.0, -0.0, 1e-5, -1e-7, 0.0999999, 12.345, 1e15, 1e16, 1e17, 123456789.123,
           math.inf, -math.inf, math.nan, 3, -2, 0, np.float64(0.125), 99.999999, 0.1 + 0.2, 2.675]
T1 = ["hj1", "hj2", "laj1", "laj2", "laj3", "laj4", "raj1", "raj2", "raj3", "raj4", "tj1", "llj1", "llj2", "llj3",
      "llj4", "llj5", "llj6", "rlj1", "rlj2", "rlj3", "rlj4", "rlj5", "rlj6"]


def _number(rng: random.Random) -> float:
    return rng.choice(AWKWARD) if rng.random() < 0.3 else rng.uniform(-200, 200) * 10 ** rng.randint(-6, 3)


def _pol(rng: random.Random) -> Polar:
    return Polar(_number(rng), _number(rng), _number(rng))


def _percept(rng: random.Random) -> Percept:
    names = rng.choice([T1, list(reversed(T1)), T1[:3], [], ["x1", "hj1", "rlj2"]])
    vision = None
    if rng.random() < 0.6:
        objects = {rng.choice(["F1L", "G2R", "B", "L_C"]) + str(i): _pol(rng) for i in range(rng.randint(0, 8))}
        players = [SeenPlayer(rng.choice(["Alpha", "Beta"]), rng.randint(1, 11),
                              {p: _pol(rng) for p in rng.sample(["head", "r_foot", "l_foot"], rng.randint(1, 3))})
                   for _ in range(rng.randint(0, 4))]
        vision = Vision(objects, players, [(_pol(rng), _pol(rng))])  # rcsssmj prints no lines
    game = GameStateView(play_mode=rng.choice(["BeforeKickOff", "PlayOn"]), game_time=_number(rng),
                         score_left=rng.randint(0, 9), score_right=rng.randint(0, 9),
                         team_left=rng.choice(["", "Alpha"]), team_right=rng.choice(["", "Beta"]))
    messages = ["hi", "", "0123456789", "0123456789A", "caf\u00e9", "\u4e2d\u6587", "a b"]
    return Percept(
        time=_number(rng), game=game, gyro=(_number(rng), _number(rng), _number(rng)),
        accel=(_number(rng), _number(rng), _number(rng)), joint_names=list(names),
        joint_angles=[_number(rng) for _ in names], joint_velocities=[_number(rng) for _ in names],
        torso_position=(_number(rng), _number(rng), _number(rng)),
        torso_quaternion=(_number(rng), _number(rng), _number(rng), _number(rng)), vision=vision,
        heard=[Heard(0.0, rng.choice([12.5, 13.5, -0.5, _number(rng) % 360]), rng.choice(messages),
                     from_self=rng.random() < 0.2) for _ in range(rng.randint(0, 3))])


@pytest.mark.parametrize("seed", range(8))
def test_perception_text_is_the_references_byte_for_byte(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        p = _percept(rng)
        if any(not math.isfinite(h.direction) for h in p.heard):
            continue
        assert encode_rcsssmj_percept(p) == reference.encode_percept(p)


def test_numbers_print_as_the_reference_over_many_values() -> None:
    rng = random.Random(11)
    values = [rng.uniform(-1, 1) * 10 ** rng.randint(-9, 18) for _ in range(30000)]
    values += [rng.randint(-10**6, 10**6) / 1000 for _ in range(10000)]
    p = Percept(time=0.0, game=GameStateView(), gyro=(0.0, 0.0, 0.0), accel=(0.0, 0.0, 0.0), joint_names=[],
                joint_angles=[], joint_velocities=[])
    for v in values:
        p.time = v
        assert encode_rcsssmj_percept(p).split(b")")[0] == reference.encode_percept(p).split(b")")[0], v


def _message(rng: random.Random) -> bytes:
    def space() -> str:
        return rng.choice(["", " ", "\n", " \t"])

    numbers = ["0", "25", "0.5", "-90", "1e-3", "+2", "-0.00", ".5", "nan", "inf", "1e400", "x", "1_0"]
    items = []
    for _ in range(rng.randint(0, 24)):
        kind = rng.random()
        if kind < 0.8:
            args = " ".join(rng.choice(numbers[:8] if rng.random() < 0.95 else numbers) for _ in range(5))
            items.append(f"({space()}{rng.choice(['he1', 'lle4', 'rae2', 'x'])} {args}{space()})")
        elif kind < 0.9:
            items.append("(syn)")
        else:
            items.append(rng.choice(["(init T1 Team 3)", "(beam 1 2 3)", "(SPK 1 1 aGk=)", "(he1 1 2 3 4)",
                                     "(syn 1 2 3 4 5)", "()", "((a 1))", "(he1 1 2 3 4 5 6)", "\u00e9"]))
    return (space().join(items) + space()).encode()


@pytest.mark.parametrize("seed", range(6))
def test_motor_messages_give_the_full_parsers_commands(seed: int) -> None:
    rng = random.Random(seed)
    dialect = RcsssmjDialect()
    fast = 0
    for _ in range(400):
        message = _message(rng)
        if parse_rcsssmj_motors(message) is not None:
            fast += 1
        assert dialect.parse_actions(message) == dialect.parse_any(message), message
    assert fast > 50
