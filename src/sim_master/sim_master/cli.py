"""The `soccersim` command: one entry point for every way of running the simulation."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

Command = Callable[[argparse.Namespace], int]


def _version(_: argparse.Namespace) -> int:
    from importlib.metadata import version

    print(f"soccersim {version('sim_master')}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="soccersim",
        description="RoboCup-style 3D soccer simulation on ROS 2 and MuJoCo.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    version = commands.add_parser("version", help="print the version")
    version.set_defaults(run=_version)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    run: Command = args.run
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
