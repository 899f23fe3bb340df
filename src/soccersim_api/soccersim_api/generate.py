"""Compiles `v1/soccersim.proto` into the checked-in Python modules (grpcio-tools' protoc).

Why checked in: a user's client needs only grpcio and protobuf, and `make setup` no compiler;
`--check` (run by the tests) fails when the generated modules are not those of the proto.

Usage: python -m soccersim_api.generate [--check]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent  # holds soccersim_api/
PROTO = "soccersim_api/v1/soccersim.proto"
OUTPUTS = ("soccersim_pb2.py", "soccersim_pb2.pyi", "soccersim_pb2_grpc.py")


def compile_into(out: Path) -> None:
    from grpc_tools import protoc

    code = protoc.main(["protoc", f"-I{PACKAGE_ROOT}", f"--python_out={out}", f"--pyi_out={out}",
                        f"--grpc_python_out={out}", str(PACKAGE_ROOT / PROTO)])
    if code != 0:
        raise SystemExit(f"protoc failed on {PROTO} (exit {code})")


def stale() -> list[str]:
    """The generated modules that differ from what the proto compiles to now."""
    with tempfile.TemporaryDirectory() as tmp:
        compile_into(Path(tmp))
        here = PACKAGE_ROOT / "soccersim_api" / "v1"
        fresh = Path(tmp) / "soccersim_api" / "v1"
        return [name for name in OUTPUTS
                if not (here / name).exists() or (here / name).read_bytes() != (fresh / name).read_bytes()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the modules are current")
    args = parser.parse_args(argv)
    if args.check:
        behind = stale()
        if behind:
            print(f"{', '.join(behind)}: not current; run python -m soccersim_api.generate", file=sys.stderr)
            return 1
        return 0
    compile_into(PACKAGE_ROOT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
