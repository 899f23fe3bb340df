"""`soccersim server`: the embedded default, one process serving every port."""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Callable
from typing import TypeVar

from sim_physics.engine.factory import PHYSICS_ENGINES

from sim_master.master.config import ServerConfig
from sim_master.master.ground_truth import GROUND_TRUTH

T = TypeVar("T", int, float)


def bounded(convert: Callable[[str], T], low: T, high: T, *, bad: str, outside: str) -> Callable[[str], T]:
    """An argparse type: `text` converted and within low..high (a float's nan and inf are
    outside), else argparse's one-line error: `bad` or `outside`, formatted with text and value."""
    def parse(text: str) -> T:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(bad.format(text=text)) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(outside.format(text=text, value=value))
        return value
    return parse


# A TCP port: 0..65535 (0 picks a free one) or -1 (off).
port_number = bounded(int, -1, 65535, bad="{text!r} is not a port number",
                      outside="{value} is outside 0..65535 (-1 turns the port off)")
_tf_rate = bounded(float, 0.5, 50.0, bad="{text!r} is not a number",
                   outside="{text} is outside 0.5..50 (messages per second of sim time)")
_thread_count = bounded(int, 1, 16, bad="expected a whole number or auto, got {text!r}",
                        outside="1..16 threads, not {value}")


def _threads(text: str) -> int:
    """A thread count, or `auto` (0: one per core, see engine/ode/engine.py island_threads)."""
    return 0 if text.strip().lower() == "auto" else _thread_count(text)


_sync_timeout = bounded(float, 0.001, 3600.0, bad="expected seconds, got {text!r}", outside="0.001..3600 s, not {text}")




def ground_truth_items(text: str) -> tuple[str, ...]:
    items = tuple(item.strip() for item in text.split(",") if item.strip())
    unknown = [item for item in items if item not in GROUND_TRUTH]
    if unknown:
        raise argparse.ArgumentTypeError(f"{unknown[0]!r} is none of {', '.join(GROUND_TRUTH)}")
    return items


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--sync", action="store_true",
                      help="lock-step: each cycle waits for every agent's (syn) (per-agent timeout)")
    mode.add_argument("--realtime", action="store_true", help="paced to 20 ms per cycle (default)")
    parser.add_argument("--host", default="127.0.0.1", help="bind address of every port (default %(default)s)")
    parser.add_argument("--simspark-port", type=port_number, default=3100,
                        help="SimSpark agents (default %(default)s; -1: off)")
    parser.add_argument("--simspark-monitor-port", type=port_number, default=3200,
                        help="SimSpark monitors (default %(default)s; -1: off)")
    parser.add_argument("--rcsssmj-port", type=port_number, default=60000,
                        help="rcsssmj agents (default %(default)s; -1: off)")
    parser.add_argument("--rcsssmj-monitor-port", type=port_number, default=60001,
                        help="rcsssmj monitors (default %(default)s; -1: off)")
    parser.add_argument("--service-port", type=port_number, default=4000,
                        help="text service port (default %(default)s; -1: off)")
    parser.add_argument("--web-port", type=port_number, default=8080,
                        help="browser monitor, HTTP + WebSocket (default %(default)s; -1: off)")
    parser.add_argument("--grpc-port", type=port_number, default=50051,
                        help="the core API over gRPC, soccersim.v1 (default %(default)s; 0: a free one; -1: off)")
    parser.add_argument("--grpc-host", default="127.0.0.1",
                        help="bind address of the gRPC API (default %(default)s; another needs TLS and a token, "
                             "or --grpc-insecure)")
    parser.add_argument("--grpc-tls-cert", default=None, metavar="PEM", help="the gRPC API's TLS certificate")
    parser.add_argument("--grpc-tls-key", default=None, metavar="PEM", help="the gRPC API's TLS key")
    parser.add_argument("--grpc-token-file", default=None, metavar="FILE",
                        help="every gRPC call must carry this file's token (metadata authorization: Bearer "
                             "<token>); also taken from $SOCCERSIM_GRPC_TOKEN")
    parser.add_argument("--grpc-insecure", action="store_true",
                        help="serve the gRPC API on a non-loopback --grpc-host without TLS and token")
    parser.add_argument("--draw-port", type=port_number, default=32769,
                        help="UDP port for agents' debug drawings in RoboViz's protocol, shown by the "
                             "browser monitor (default %(default)s, RoboViz's; -1: off)")
    parser.add_argument("--world", default="simspark_field", help="world name in worlds/ or an .sdf file")
    parser.add_argument("--engine", default="auto", choices=PHYSICS_ENGINES,
                        help="physics: auto (default: ODE, as rcssserver3d, for SimSpark robots; MuJoCo, as "
                             "rcsssmj, for rcsssmj robots), mujoco, ode, or gazebo (gz-physics 5 with DART)")
    parser.add_argument("--physics-threads", type=_threads, default=0, metavar="N|auto",
                        help="step ODE's islands (robots apart) on N threads, the same results on any "
                             "number (default auto: one per core this process may use, up to 4); ODE only "
                             "(engine auto or ode)")
    parser.add_argument("--sequential-step", action="store_true",
                        help="sync mode: perceive the agents after each physics step, not while it runs "
                             "(the same percepts and timing; slower; immediate commands act a step earlier)")
    parser.add_argument("--rules", default="simspark",
                        help="rule book: simspark (default; as rcssserver3d: sides kept all match), rcssserver3d, "
                             "simspark-swap (ends change at half time; players are told their new side), fifa, ssim")
    parser.add_argument("--referee", default="internal", choices=("internal", "external"),
                        help="internal (default): the referee node judges in this process, in lockstep; "
                             "external: a referee_node in its own process (ros2 run soccer_referee "
                             "referee_node) judges over DDS; needs ROS")
    parser.add_argument("--log", dest="log_path", default=None, metavar="FILE.mcap",
                        help="write a replay log (MCAP, ROS 2 encoding)")
    parser.add_argument("--log-players", action="store_true",
                        help="the replay log also holds every player's percepts and joint commands (large)")
    parser.add_argument("--seed", type=int, default=None, help="seed of sensor noise")
    parser.add_argument("--sync-timeout", type=_sync_timeout, default=5.0, metavar="S",
                        help="sync mode: seconds a cycle waits for a silent agent before it is marked lagging "
                             "and the match goes on without it until it answers (default %(default)s, as "
                             "rcssservermj; rcssserver3d waits for ever: give a large value, up to 3600)")
    parser.add_argument("--allow-remote-monitor-commands", action="store_true",
                        help="accept monitor commands from non-loopback addresses")
    parser.add_argument("--no-ros", action="store_true", help="do not start the ROS 2 node")
    parser.add_argument("--max-cycles", type=int, default=None, help="stop after this many cycles")
    parser.add_argument("--no-vision-noise", action="store_true", help="exact vision (no noise)")
    parser.add_argument("--no-beam-noise", action="store_true",
                        help="SimSpark agents' beams land exactly where asked (rcssserver3d adds uniform "
                             "noise of +-0.05 m on x and y and +-10 degrees; --seed repeats it)")
    parser.add_argument("--ground-truth", type=ground_truth_items, default=(), metavar="ITEMS",
                        help="ground truth in each vision, comma-separated of mypos, myorien, ballpos (as "
                             "rcssserver3d's vision perceptor can add; off by default, as there)")
    parser.add_argument("--kickoff-after", type=float, default=None, metavar="S",
                        help="kick off by itself after S seconds in BeforeKickOff (both teams present)")
    parser.add_argument("--wait-for-teams", action="store_true",
                        help="hold the simulation until both teams have joined")
    parser.add_argument("--half-time", type=float, default=None, metavar="S", help="half length in s of game time")
    parser.add_argument("--tf-rate", type=_tf_rate, default=10.0, metavar="HZ",
                        help="/tf messages per second of sim time (0.5-50; ROS parameter tf_rate, may change live)")


def grpc_token(path: str | None) -> str:
    """The gRPC API's token: the file's first line, else $SOCCERSIM_GRPC_TOKEN, else none
    (never a flag's value: the command line is visible to every user of the machine)."""
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                token = f.readline(4096).strip()
        except (OSError, UnicodeError) as exc:
            reason = getattr(exc, "strerror", None) or exc
            raise SystemExit(f"soccersim server: --grpc-token-file {path}: {reason}") from None
        if not token:
            raise SystemExit(f"soccersim server: --grpc-token-file {path}: the file holds no token")
        return token
    return os.environ.get("SOCCERSIM_GRPC_TOKEN", "").strip()


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    def port(value: int) -> int | None:
        return None if value < 0 else value

    return ServerConfig(
        sync=args.sync,
        realtime=not args.sync,
        host=args.host,
        simspark_port=port(args.simspark_port),
        simspark_monitor_port=port(args.simspark_monitor_port),
        rcsssmj_port=port(args.rcsssmj_port),
        rcsssmj_monitor_port=port(args.rcsssmj_monitor_port),
        service_port=port(args.service_port),
        web_port=port(args.web_port),
        grpc_port=port(args.grpc_port),
        grpc_host=args.grpc_host,
        grpc_tls_cert=args.grpc_tls_cert,
        grpc_tls_key=args.grpc_tls_key,
        grpc_token=grpc_token(args.grpc_token_file),
        grpc_insecure=args.grpc_insecure,
        draw_port=port(args.draw_port),
        world=args.world,
        engine=args.engine,
        physics_threads=args.physics_threads,
        overlap_step=not args.sequential_step,
        rules=args.rules,
        referee=args.referee,
        log_path=args.log_path,
        log_players=args.log_players,
        seed=args.seed,
        sync_timeout=args.sync_timeout,
        allow_remote_monitor_commands=args.allow_remote_monitor_commands,
        ros=not args.no_ros,
        max_cycles=args.max_cycles,
        vision_noise=not args.no_vision_noise,
        beam_noise=not args.no_beam_noise,
        ground_truth=args.ground_truth,
        kickoff_after=args.kickoff_after,
        half_time=args.half_time,
        tf_rate=args.tf_rate,
        wait_for_teams=args.wait_for_teams,
    )


def run_server(args: argparse.Namespace) -> int:
    from sim_master.server.single import SingleModeServer

    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = config_from_args(args)
    ros_args = getattr(args, "ros_args", None)
    if config.ros and ros_args:  # parameters (-p, --params-file, launch <param>) win over the flags
        from sim_master.ros.parameters import ParameterError, apply, read_overrides

        try:
            config = apply(config, read_overrides(ros_args, config.node_name))
        except ParameterError as exc:
            print(f"soccersim server: {exc}", file=sys.stderr)
            return 2
    from sim_physics.engine.factory import EngineUnavailable

    from sim_master.server.single import StartupError

    try:
        server = SingleModeServer(config)
    except (ValueError, EngineUnavailable) as exc:  # an unknown world, rule book or engine, a broken world file
        print(f"soccersim server: {exc}", file=sys.stderr)
        return 2

    def stop(signum: int, _frame: object) -> None:
        server.request_stop()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        server.start(ros_args=getattr(args, "ros_args", None))
    except StartupError as exc:
        server.close()
        print(f"soccersim server: {exc}", file=sys.stderr)
        return 2
    state = ""
    try:
        for line in server.listening():
            print(line, flush=True)
        server.run()
        # the world's state hash: two runs that should be the same (a seed, a thread count) say so
        state = f", state {server.loop.engine.snapshot().digest()}"
    finally:
        server.close()
    print(f"soccersim: stopped after {server.loop.stats.cycles} cycles{state}", flush=True)
    return 0
