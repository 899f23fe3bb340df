"""`soccersim launch`: run a ROS 2 launch XML file, as `ros2 launch` does, without ROS's
launch package (sim_tools.launching)."""
from __future__ import annotations

import argparse
import os
import sys

from sim_tools.launching.runner import LaunchError, find_launch_file, main_run, show_args


def add_launch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a .launch.xml file, or a package whose share/ holds FILE")
    parser.add_argument("launch_args", nargs="*", metavar="[FILE] NAME:=VALUE")
    parser.add_argument("-s", "--show-args", action="store_true", help="list the file's arguments and stop")
    parser.add_argument("--duration", type=float, default=None,
                        help="stop every node after this many wall-clock seconds")


def run_launch(args: argparse.Namespace) -> int:
    rest = list(args.launch_args)
    path = args.file
    if rest and ":=" not in rest[0] and not os.path.isfile(path):  # the `ros2 launch PKG FILE` form
        path = rest.pop(0)
        try:
            path = find_launch_file(args.file, path)
        except LaunchError as exc:
            print(f"soccersim launch: {exc}", file=sys.stderr)
            return 2
    launch_args: dict[str, str] = {}
    for item in rest:
        name, sep, value = item.partition(":=")
        if not sep:
            print(f"soccersim launch: expected name:=value, got {item!r}", file=sys.stderr)
            return 2
        launch_args[name] = value
    try:
        if args.show_args:
            return show_args(path)
        return main_run(path, launch_args, args.duration)
    except (ValueError, LaunchError) as exc:  # the file's mistakes: one line naming file and line
        print(f"soccersim launch: {exc}", file=sys.stderr)
        return 2
