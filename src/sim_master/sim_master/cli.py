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


def _launch(args: argparse.Namespace) -> int:
    from sim_master.launching.runner import main_run

    launch_args: dict[str, str] = {}
    for item in args.launch_args:
        name, sep, value = item.partition(":=")
        if not sep:
            raise SystemExit(f"soccersim launch: expected name:=value, got {item!r}")
        launch_args[name] = value
    return main_run(args.file, launch_args, args.duration)


def _server(args: argparse.Namespace) -> int:
    from sim_master.commands.server import run_server

    return run_server(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="soccersim",
        description="RoboCup-style 3D soccer simulation on ROS 2 and MuJoCo.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    version = commands.add_parser("version", help="print the version")
    version.set_defaults(run=_version)

    from sim_master.commands.server import add_server_arguments

    server = commands.add_parser("server", help="run the simulation server (all ports, one process)")
    add_server_arguments(server)
    server.set_defaults(run=_server)

    from sim_master.commands.match import add_match_arguments, run_match

    match = commands.add_parser("match", help="play a whole match with built-in teams; summary, log, pictures")
    add_match_arguments(match)
    match.set_defaults(run=run_match)

    from sim_master.commands.team import add_team_arguments, run_team

    team = commands.add_parser("team", help="a built-in team as ROS-native players of a running server")
    add_team_arguments(team)
    team.set_defaults(run=run_team)

    from sim_master.commands.replay import add_replay_arguments, run_replay

    replay = commands.add_parser("replay", help="play a replay log back to monitors and ROS topics")
    add_replay_arguments(replay)
    replay.set_defaults(run=run_replay)

    from sim_master.distributed.master import add_master_arguments, run_master
    from sim_master.distributed.sim_node import add_node_arguments, run_node

    master = commands.add_parser("master", help="the master of a distributed run (lockstep over DDS, Redis cache)")
    add_master_arguments(master)
    master.set_defaults(run=run_master)
    node = commands.add_parser("node", help="a simulation node of a distributed run")
    add_node_arguments(node)
    node.set_defaults(run=run_node)

    launch = commands.add_parser(
        "launch", help="run a ROS 2 launch XML file (the ros2 launch subset our files use)")
    launch.add_argument("file", help="path to a .launch.xml file")
    launch.add_argument("launch_args", nargs="*", metavar="NAME:=VALUE")
    launch.add_argument("--duration", type=float, default=None,
                        help="stop every node after this many wall-clock seconds")
    launch.set_defaults(run=_launch)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    # Executables started by launch files get ROS arguments; they are not ours to parse.
    ros_args: list[str] = []
    if "--ros-args" in argv:
        cut = list(argv).index("--ros-args")
        argv, ros_args = list(argv[:cut]), list(argv[cut:])
    args = build_parser().parse_args(argv)
    args.ros_args = ros_args
    run: Command = args.run
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
