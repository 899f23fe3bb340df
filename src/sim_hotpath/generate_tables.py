#!/usr/bin/env python3
"""Writes the compiled encoders' field tables from the two declarations they follow.

The CDR writer and readers walk sim_msgs' messages field by field, and every encoder reads the
sim_contracts Percept's attributes by name; both used to be spelled by hand in the C++, so a
renamed, added or reordered field broke the bytes silently until a test noticed. This script
runs at build time (CMakeLists.txt) and writes one header:

- for each message the encoders walk, an X-macro of its fields in the .msg file's order
  (`SIM_MSGS_PERCEPT(F)` expands to `F(header) F(game_state) ...`) and their count; the C++
  walks the macro, calling a handler named after each field, so a field added or renamed in
  the message fails the build, a removed one fails its count's static_assert;
- for each sim_contracts class the encoders read, its attribute names as constants
  (`contract::Percept::gyro`): a renamed attribute fails the build;
- the type hash of each message (from sim_msgs' installed type description, RIHS01), which the
  ROS side compares at start with the message it runs with.

Pure Python, no ROS: it reads .msg text, the type description JSON and imports
sim_contracts from the source tree.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from pathlib import Path

MESSAGES = ("Percept", "GameState", "ForceResistance", "VisionObjects", "HeardMessage", "JointCommand")
CONTRACT_CLASSES = ("Percept", "GameStateView", "ForceResistance", "Vision", "SeenPlayer", "Heard")
_FIELD = re.compile(r"^([A-Za-z_][\w/]*(?:\[\d*\])?)\s+([a-z][a-z0-9_]*)\s*$")


def msg_fields(path: Path) -> list[str]:
    """The field names of a .msg file in order (constants and comments left out)."""
    names = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or "=" in line:
            continue
        match = _FIELD.match(line)
        if match is None:
            raise SystemExit(f"{path}: cannot read the field line {raw!r}")
        names.append(match.group(2))
    return names


def type_hash(description: Path, message: str) -> str:
    """The RIHS01 hash of sim_msgs/msg/<message> in its installed type description."""
    data = json.loads(description.read_text(encoding="utf-8"))
    wanted = f"sim_msgs/msg/{message}"
    for entry in data.get("type_hashes", []):
        if entry.get("type_name") == wanted:
            return str(entry["hash_string"])
    raise SystemExit(f"{description}: no type hash for {wanted}")


def contract_attributes(contracts_root: Path) -> dict[str, list[str]]:
    sys.path.insert(0, str(contracts_root))
    from sim_contracts import percept

    return {name: [f.name for f in dataclasses.fields(getattr(percept, name))] for name in CONTRACT_CLASSES}


def macro_name(message: str) -> str:
    return "SIM_MSGS_" + re.sub(r"(?<!^)(?=[A-Z])", "_", message).upper()


def header(msg_dir: Path, contracts_root: Path) -> str:
    out = [
        "// Generated at build time by sim_hotpath/generate_tables.py from sim_msgs' .msg files and",
        "// sim_contracts/percept.py: edit those, not this.",
        "#pragma once",
        "",
    ]
    for message in MESSAGES:
        names = msg_fields(msg_dir / f"{message}.msg")
        macro = macro_name(message)
        out.append(f"// sim_msgs/msg/{message}.msg, in its order")
        out.append(f"#define {macro}(F) " + " ".join(f"F({n})" for n in names))
        out.append(f"#define {macro}_COUNT {len(names)}")
        out.append(f"#define {macro}_TYPE_HASH \"{type_hash(msg_dir / f'{message}.json', message)}\"")
        out.append("")
    out.append("namespace sim_hotpath::contract {")
    for cls, attributes in contract_attributes(contracts_root).items():
        out.append(f"// sim_contracts.percept.{cls}'s attributes")
        out.append(f"struct {cls} {{")
        out.extend(f"  static constexpr char {a}[] = \"{a}\";" for a in attributes)
        out.append(f"  static constexpr int count = {len(attributes)};")
        out.append("};")
    out.append("}  // namespace sim_hotpath::contract")
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--msg-dir", type=Path, required=True, help="sim_msgs' share/msg (the .msg and .json files)")
    parser.add_argument("--contracts", type=Path, required=True, help="the sim_contracts package's source root")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    text = header(args.msg_dir, args.contracts)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if not args.out.exists() or args.out.read_text(encoding="utf-8") != text:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
