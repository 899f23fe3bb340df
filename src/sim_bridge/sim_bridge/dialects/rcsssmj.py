"""rcsssmj 0.2 agent dialect (port 60000).

Perception: time, GS, quat, pos, GYR, ACC, HJ (ax/vx in deg, deg/s), MIC, See (every 2nd
cycle); numbers truncated and printed as Python prints floats, like the reference. The text
is made by sim_hotpath's compiled encoder (its Python reference,
test/dialects/rcsssmj_reference.py, checks it byte for byte); motor messages, every agent's
every cycle, are read by its compiled parser, everything else here. Actions:
`(init <model> <team> <unum>)`, 6-element motor nodes with q/dq in degrees, SPK, beam,
syn. Any message counts as the agent's sync."""
from __future__ import annotations

import base64
import binascii
import math
from typing import Final

from sim_bridge.dialects.base import compiled_commands
from sim_bridge.sexp import integer, number, predicates
from sim_contracts.agents import RCSSSMJ_RULES
from sim_contracts.commands import Beam, Command, InitPlayer, JointTargets, Say, Syn
from sim_contracts.percept import Percept
from sim_hotpath import encode_rcsssmj_percept, parse_rcsssmj_motors

_NAMED: Final = frozenset(("syn", "init", "beam", "SPK"))  # not motors


class RcsssmjDialect:
    name: Final = "rcsssmj"
    default_port: Final = 60000
    vision_interval: Final = 2
    any_message_syncs: Final = True
    effector_delay: Final = RCSSSMJ_RULES.effector_delay  # measured on the reference (see Dialect)
    rules: Final = RCSSSMJ_RULES  # how its agents join, see and are placed (sim_contracts.agents)

    def parse_actions(self, payload: bytes) -> tuple[list[Command], list[str]]:
        motors = parse_rcsssmj_motors(payload)  # the message of every cycle, compiled
        if motors is not None:
            targets, syns = motors
            return compiled_commands(syns, JointTargets(targets) if targets else None)
        return self.parse_any(payload)

    def parse_any(self, payload: bytes) -> tuple[list[Command], list[str]]:
        """parse_actions for every message, errors included (the compiled path reads a subset
        of messages and gives the same commands for them)."""
        pairs, errors = predicates(payload, "utf-8")
        commands: list[Command] = []
        targets: dict[str, tuple[float, float, float, float, float]] = {}
        for name, args in pairs:
            if len(args) == 5 and name not in _NAMED:  # motor: (he1 q dq kp kd tau), the common case
                try:
                    # a nested list is no number: the unpacking then fails like a bad atom
                    q, dq, kp, kd, tau = (float(a) for a in args if not isinstance(a, list))
                except (ValueError, TypeError):
                    errors.append(f"bad ({name} ...): expected 5 numbers")
                    continue
                if not all(map(math.isfinite, (q, dq, kp, kd, tau))):
                    errors.append(f"bad ({name} ...): non-finite number")
                    continue
                targets[name] = (math.radians(q), math.radians(dq), kp, kd, tau)
                continue
            try:
                if name == "syn":
                    commands.append(Syn())
                elif name == "init":
                    if len(args) != 3:
                        raise ValueError("init needs <model> <team> <unum>")
                    commands.append(InitPlayer(str(args[1]), abs(integer(args[2], -999, 999)) % 100, str(args[0])))
                elif name == "beam":
                    if len(args) != 3:
                        raise ValueError("beam needs x y theta")
                    x, y, theta = (number(a) for a in args)
                    commands.append(Beam(x, y, theta))
                elif name == "SPK":
                    if len(args) < 3:
                        raise ValueError("SPK needs <speaker> <volume> <base64>")
                    raw = base64.b64decode(str(args[2]), validate=True)
                    commands.append(Say(raw.decode("latin-1")))
                elif len(args) == 5:
                    q, dq, kp, kd, tau = (number(a) for a in args)
                    targets[name] = (math.radians(q), math.radians(dq), kp, kd, tau)
                else:
                    errors.append(f"unknown action node ({name} ...)")
            except (ValueError, binascii.Error) as exc:
                errors.append(f"bad ({name} ...): {exc}")
        if targets:
            commands.append(JointTargets(targets))
        return commands, errors

    def encode_percept(self, p: Percept) -> bytes:
        return encode_rcsssmj_percept(p)  # compiled (sim_hotpath); reference: test/dialects
