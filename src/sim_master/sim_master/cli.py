"""The `soccersim` command: one entry point for every way of running the simulation."""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from sim_contracts.logtext import clip

Command = Callable[[argparse.Namespace], int]


class OneLineErrors(argparse.ArgumentParser):
    """A user's mistake on the command line is one line, with where to look, not the whole
    usage (the server's runs to twenty lines); its subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _version(_: argparse.Namespace) -> int:
    from importlib.metadata import version

    print(f"soccersim {version('sim_master')}")
    return 0


# name, help, module with add_<x>_arguments(parser) and run_<x>(args), x
SUBCOMMANDS: tuple[tuple[str, str, str, str], ...] = (
    ("server", "run the simulation server (all ports, one process)", "sim_master.commands.server", "server"),
    ("match", "play a whole match with built-in teams; summary, log, pictures", "sim_tools.commands.match", "match"),
    ("team", "a built-in team as ROS-native players of a running server", "sim_tools.commands.team", "team"),
    ("replay", "play a replay log back to monitors and ROS topics", "sim_master.commands.replay", "replay"),
    ("repair", "make a replay log cut off by a crash readable by every MCAP tool", "sim_master.commands.replay",
     "repair"),
    ("snapshot", "a PNG picture of a running server's world", "sim_tools.commands.snapshot", "snapshot"),
    ("master", "the master of a distributed run (lockstep over DDS, Redis cache)",
     "sim_distributed.master", "master"),
    ("node", "a simulation node of a distributed run", "sim_distributed.sim_node", "node"),
    ("launch", "run a ROS 2 launch XML file: `soccersim launch FILE` or `soccersim launch PKG FILE`",
     "sim_tools.commands.launch", "launch"),
)
# Modules named here live in packages that build on this one (sim_tools, sim_distributed):
# loaded by name, never imported, so this package does not depend on them.


class DefaultsHelp(argparse.ArgumentDefaultsHelpFormatter):
    """--help shows each option's default, except for on/off switches (off unless given)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if isinstance(action, argparse._StoreTrueAction) or action.default is None:
            return action.help
        return super()._get_help_string(action)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Every subcommand with its help line; the arguments and handler of `command` alone
    (its module imported), or of all when None. Importing every command's module (ROS,
    MuJoCo, Redis, MCAP) cost each start-up ~0.5 s (issue 31)."""
    parser = OneLineErrors(
        prog="soccersim",
        description="RoboCup-style 3D soccer simulation on ROS 2 and MuJoCo.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    version = commands.add_parser("version", help="print the version")
    version.set_defaults(handler=_version)
    for name, help_text, module_name, stem in SUBCOMMANDS:
        sub = commands.add_parser(name, help=help_text, formatter_class=DefaultsHelp)
        if command is None or command == name:
            try:
                module = importlib.import_module(module_name)
            except ModuleNotFoundError as exc:  # a package built apart (sim_tools, sim_distributed) missing
                if exc.name is None or not module_name.startswith(exc.name):
                    raise
                parser.exit(2, f"soccersim {name}: needs the package {module_name.split('.')[0]}, which is not "
                               f"installed (colcon build --packages-select {module_name.split('.')[0]})\n")
            getattr(module, f"add_{stem}_arguments")(sub)
            sub.set_defaults(handler=getattr(module, f"run_{stem}"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    try:
        return _main(list(argv))
    except BrokenPipeError:  # output piped into a reader that stopped (`| head`): no traceback
        # (Python's recipe: what is still buffered for stdout goes nowhere at exit)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:  # Ctrl-C before a command set its own handler (while starting up)
        print(f"soccersim{' ' + argv[0] if argv else ''}: interrupted while starting", file=sys.stderr)
        return 130
    except OSError as exc:  # a file or name the user gave that the system refuses: one line
        if exc.filename is None:
            raise
        print(f"soccersim{' ' + argv[0] if argv else ''}: {exc.strerror or exc}: {clip(str(exc.filename), 120)}",
              file=sys.stderr)
        return 2


def _main(argv: list[str]) -> int:
    # MuJoCo looks for an OpenGL backend when imported (0.1 s); nothing here renders with it
    os.environ.setdefault("MUJOCO_GL", "disable")
    # Executables started by launch files get ROS arguments; they are not ours to parse.
    ros_args: list[str] = []
    if "--ros-args" in argv:
        cut = argv.index("--ros-args")
        argv, ros_args = argv[:cut], argv[cut:]
    if argv[:1] == ["launch"]:
        argv = _launch_options_first(argv)
    args = build_parser(argv[0] if argv else "").parse_args(argv)
    args.ros_args = ros_args
    handler: Command = args.handler  # not `run`: master and node have a --run option
    return handler(args)


def simulation_node(argv: Sequence[str] | None = None) -> int:
    """`simulation_node`: the simulation node alone (`soccersim server` whose referee judges in
    its own process and whose agents come through a bridge in its own: no agent ports here).
    Every `soccersim server` flag applies."""
    args = list(sys.argv[1:] if argv is None else argv)
    cut = args.index("--ros-args") if "--ros-args" in args else len(args)
    if any(arg in ("-h", "--help") for arg in args[:cut]):  # its own usage, and nothing started
        from sim_master.commands.server import add_server_arguments

        parser = OneLineErrors(prog="simulation_node", formatter_class=DefaultsHelp,
                               description="The simulation node alone: its referee judges in a referee_node and "
                                           "its agents come through a bridge_node (no agent ports here). Every "
                                           "`soccersim server` option applies; ROS parameters win over them.")
        add_server_arguments(parser)
        parser.print_help()
        return 0
    own = ["server", "--referee", "external", "--simspark-port", "-1", "--rcsssmj-port", "-1"]
    return main([*own, *args[:cut], *args[cut:]])



def _launch_options_first(argv: list[str]) -> list[str]:
    """`soccersim launch FILE name:=value --duration 5`: the launch command's options may sit
    among the launch arguments (as with ros2 launch); argparse wants them before."""
    options: list[str] = []
    rest: list[str] = []
    tokens = iter(argv[1:])
    for token in tokens:
        if token == "--duration":
            options += [token, next(tokens, "")]
        elif token.startswith("-"):
            options.append(token)
        else:
            rest.append(token)
    return ["launch", *options, *rest]


if __name__ == "__main__":
    sys.exit(main())
