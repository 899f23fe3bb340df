"""SimSpark / rcssserver3d 0.7 agent dialect (port 3100).

Perception order and number format follow the captured samples: time, GS, hear, GYR,
ACC, HJ hj1, HJ hj2, See, the other HJ with each foot's FRP after its lj5 (toe FRP after
lj7), two decimals everywhere. The text is made by sim_hotpath's compiled encoder (its
Python reference, test/dialects/simspark_reference.py, checks it byte for byte); hinge speed
messages, every agent's every cycle, are read by its compiled parser, everything else here."""
from __future__ import annotations

import math
import re
from typing import Final

from sim_bridge.dialects.base import compiled_commands
from sim_bridge.sexp import integer, number, predicates
from sim_contracts.agents import SIMSPARK_RULES
from sim_contracts.commands import Beam, Command, InitPlayer, JointVelocities, Pass, Say, Scene, Syn
from sim_contracts.percept import Percept
from sim_hotpath import encode_simspark_percept, parse_simspark_hinges

_RSG_TYPE: Final = re.compile(r"nao_hetero\.rsg$|nao\.rsg$")


_NAMED: Final = frozenset(("syn", "scene", "init", "beam", "say", "pass"))  # not hinge effectors


class SimSparkDialect:
    name: Final = "simspark"
    default_port: Final = 3100
    vision_interval: Final = 3
    any_message_syncs: Final = False
    effector_delay: Final = SIMSPARK_RULES.effector_delay  # measured on the reference (see Dialect)
    rules: Final = SIMSPARK_RULES  # how its agents join, see and are placed (sim_contracts.agents)

    def parse_actions(self, payload: bytes) -> tuple[list[Command], list[str]]:
        hinges = parse_simspark_hinges(payload)  # the message of every cycle, compiled
        if hinges is not None:
            speeds, syns = hinges
            return compiled_commands(syns, JointVelocities(speeds) if speeds else None)
        return self.parse_any(payload)

    def parse_any(self, payload: bytes) -> tuple[list[Command], list[str]]:
        """parse_actions for every message, errors included (the compiled path reads a subset
        of messages and gives the same commands for them)."""
        pairs, errors = predicates(payload, "ascii")
        commands: list[Command] = []
        speeds: dict[str, float] = {}
        for name, args in pairs:
            if len(args) == 1 and name not in _NAMED and type(args[0]) is str:  # hinge: (he1 1.5)
                try:
                    value = float(args[0])
                except ValueError:
                    errors.append(f"bad ({name} ...): not a number: {args[0]!r}")
                    continue
                if math.isfinite(value):
                    speeds[name] = value
                else:
                    errors.append(f"bad ({name} ...): non-finite joint speed {args[0]}")
                continue
            try:
                if name == "syn":
                    commands.append(Syn())
                elif name == "scene":
                    rsg = str(args[0]) if args else ""
                    robot_type = integer(args[1], 0, 4) if len(args) > 1 else 0
                    commands.append(Scene(rsg, robot_type))
                elif name == "init":
                    fields = {a[0]: a[1] for a in args if isinstance(a, list) and len(a) == 2}
                    unum = integer(fields.get("unum", "0"), 0, 99)
                    commands.append(InitPlayer(str(fields.get("teamname", "")), unum))
                elif name == "beam":
                    if len(args) != 3:
                        raise ValueError("beam needs x y rotation")
                    x, y, rot = (number(a) for a in args)
                    commands.append(Beam(x, y, rot))
                elif name == "say":
                    commands.append(Say(" ".join(str(a) for a in args)))
                elif name == "pass":
                    commands.append(Pass())
                elif len(args) == 1 and not isinstance(args[0], list):
                    value = number(args[0])  # hinge effector: (he1 1.5)
                    if not math.isfinite(value):
                        raise ValueError(f"non-finite joint speed {args[0]}")
                    speeds[name] = value
                else:
                    errors.append(f"unknown effector ({name} ...)")
            except (ValueError, IndexError) as exc:
                errors.append(f"bad ({name} ...): {exc}")
        if speeds:
            commands.append(JointVelocities(speeds))
        return commands, errors

    def encode_percept(self, p: Percept) -> bytes:
        return encode_simspark_percept(p)  # compiled (sim_hotpath); reference: test/dialects
