"""`soccersim team`: a built-in team as ROS-native players (one process, one node), joining
a running server through its InitAgent service and playing over the player topics:
<ns>/percept in (read by a LeanReader), <ns>/effectors/{joint_command (with synchronize), beam}
out."""
from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import time

from sim_tools.demo.teams import TEAMS
from soccer_team.roster import ROBOT_TYPES


def add_team_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--team", required=True, help="team name")
    parser.add_argument("--players", type=int, default=11)
    parser.add_argument("--behaviour", default="base", choices=sorted(TEAMS),
                        help="base (Nao humanoids: walk, kick, get up; the default) or demo (light pushers)")
    parser.add_argument("--referee-node", default="soccer_referee",
                        help="name of the referee's ROS node, whose init_agent players join through")
    parser.add_argument("--wait", type=float, default=30.0, help="seconds to wait for the server")
    parser.add_argument("--simspark", default="", metavar="HOST:PORT",
                        help="play over TCP as the league's agents do (e.g. 127.0.0.1:3100: our server's SimSpark "
                             "port or rcssserver3d) instead of over the player topics; base team only")
    parser.add_argument("--until-game-over", action="store_true",
                        help="with --simspark: stop when every player saw GameOver, and print what the run came to "
                             "(score, players still connected, falls per player) as one JSON line")
    parser.add_argument("--robot-types", default=None, metavar="T,T,...",
                        help="base team: the nao_hetero type (0-4) of player 1, 2, ... (the last one for the rest; "
                             f"default {','.join(map(str, ROBOT_TYPES))}); the walk and kick fit each type's legs")
    parser.add_argument("--join-after", default="", metavar="TEAM",
                        help="join once TEAM plays (its side taken: a launch puts TEAM on the left)")


def _wait_for_team(node, executor, team: str, deadline: float, stop: dict[str, bool]) -> bool:
    """Until /game_state (latched) names `team` on a side."""
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

    from sim_msgs.msg import GameState

    playing = {"yes": False}
    latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    sub = node.create_subscription(GameState, "game_state", lambda m: playing.update(
        yes=playing["yes"] or team in (m.team_left, m.team_right)), latched)
    try:
        while not playing["yes"] and not stop["now"] and time.monotonic() < deadline:
            executor.spin_once(timeout_sec=0.1)
        return playing["yes"]
    finally:
        node.destroy_subscription(sub)


def robot_types(args: argparse.Namespace) -> tuple[int, ...] | None | str:
    """The types --robot-types asks for (None: the team's own), or the line that says why not."""
    from soccer_team.roster import parse_types

    text = getattr(args, "robot_types", None)
    if text is None:
        return None
    types = parse_types(text)
    if types is None:
        return f"soccersim team: --robot-types wants nao_hetero types 0-4 separated by commas, not {text[:40]!r}"
    if args.behaviour != "base":
        return "soccersim team: --robot-types is for the base team (the pushers have one robot)"
    return types


def run_team_over_simspark(args: argparse.Namespace, types: tuple[int, ...] | None) -> int:
    """The base team as TCP agents of a SimSpark-dialect server: no ROS at all. `types`: the
    robot types asked for (None: the roster)."""
    from soccer_team.player import NaoBrain
    from soccer_team.roster import model_of
    from soccer_team.simspark_agent import play_team

    host, _, port_text = args.simspark.rpartition(":")
    if args.behaviour != "base" or not host or not port_text.isdigit():
        print("soccersim team: --simspark wants HOST:PORT (e.g. 127.0.0.1:3100) and the base team", file=sys.stderr)
        return 2
    chosen = ROBOT_TYPES if types is None else types
    stop = {"now": False}
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    try:
        run = play_team(host, int(port_text), args.team, args.players,
                        lambda side, unum: NaoBrain(side, unum, effector_delay=1, model=model_of(chosen, unum)),
                        stop=lambda: stop["now"], log=lambda line: print(line, file=sys.stderr, flush=True),
                        robot_types=chosen, until_game_over=args.until_game_over)
    except OSError as exc:
        print(f"soccersim team: cannot reach {args.simspark}: {exc}", file=sys.stderr)
        return 1
    print(f"soccersim team: {args.team} answered {run.answered} perceptions", file=sys.stderr)
    if args.until_game_over:
        print(json.dumps({"team": args.team, **run.as_dict()}), flush=True)
    return 0


def run_team(args: argparse.Namespace) -> int:
    types = robot_types(args)
    if isinstance(types, str):
        print(types, file=sys.stderr)
        return 2
    if getattr(args, "simspark", ""):
        return run_team_over_simspark(args, types)
    if getattr(args, "until_game_over", False):
        print("soccersim team: --until-game-over goes with --simspark HOST:PORT (a ROS team plays until "
              "stopped)", file=sys.stderr)
        return 2
    import rclpy
    from rclpy.client import Client
    from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
    from rclpy.node import Node
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from rclpy.signals import SignalHandlerOptions

    from sim_bridge.ros.lean_reader import LeanReader
    from sim_bridge.ros.qos import PERCEPT_QOS
    from sim_contracts.field import FieldSpec
    from sim_master.master.adapters import LocalBrain
    from sim_master.ros.convert import percept_from_msg
    from sim_msgs.msg import Beam, JointCommand, Percept
    from sim_msgs.srv import InitAgent

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s: %(message)s")
    log = logging.getLogger(f"team.{args.team}")
    context = rclpy.Context()
    rclpy.init(args=["soccersim", *getattr(args, "ros_args", [])], context=context,
               signal_handler_options=SignalHandlerOptions.NO)
    stop = {"now": False}
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    node = Node(f"team_{args.team}".replace("-", "_"), context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
    # relative: a team started in a server's namespace (--ros-args -r __ns:=/match1) finds it
    client: Client = node.create_client(InitAgent, f"{args.referee_node}/init_agent")
    deadline = time.monotonic() + args.wait
    while not client.wait_for_service(timeout_sec=0.5):
        if stop["now"]:  # Ctrl-C while starting: said as such, not as a timeout
            log.info("stopped before joining")
            return 0
        if time.monotonic() > deadline:
            log.error("no referee /%s within %.0f s", args.referee_node, args.wait)
            return 1
    if args.join_after and not _wait_for_team(node, executor, args.join_after, deadline, stop):
        if stop["now"]:
            log.info("stopped before joining (was waiting for team %s)", args.join_after)
            return 0
        log.error("team %s did not join within %.0f s", args.join_after, args.wait)
        return 1
    built_in = TEAMS[args.behaviour]
    field = FieldSpec()  # the SimSpark field's figures, as the contract writes them (the server tells none)
    players = []
    reader = LeanReader(node)  # percepts without the executor's per-wake cost (docs/speed.md)
    for unum in range(1, args.players + 1):
        model = built_in.model_of(types, unum)
        future = client.call_async(InitAgent.Request(team=args.team, unum=unum, robot_model=model))
        executor.spin_until_future_complete(future, timeout_sec=10)
        reply = future.result()
        if reply is None or not reply.success:
            log.error("player %d refused: %s", unum, reply.error if reply else "no answer")
            continue
        ns = reply.player_namespace
        brain = built_in.make(reply.side, reply.unum, field.length, field.width, field.goal_width, model)
        joints = node.create_publisher(JointCommand, f"{ns}/effectors/joint_command", reliable)
        beam = node.create_publisher(Beam, f"{ns}/effectors/beam", reliable)

        def on_percept(msg: Percept, brain: LocalBrain = brain, joints=joints, beam=beam) -> None:
            percept = percept_from_msg(msg)
            if msg.side:
                brain.set_side(msg.side)  # sides change at half time
            speeds = brain.act(percept)
            wanted = brain.beam_request()
            if wanted is not None:  # before the speeds' synchronize: it acts in the same cycle
                beam.publish(Beam(x=wanted[0], y=wanted[1], rotation=wanted[2]))
            joints.publish(JointCommand(mode=JointCommand.MODE_VELOCITY, names=list(speeds),
                                        velocities=list(speeds.values()), synchronize=True))

        reader.subscribe(Percept, f"{ns}/percept", on_percept, PERCEPT_QOS)
        x, y, rot = brain.home()
        players.append((beam, Beam(x=x, y=y, rotation=rot)))
        log.info("%s #%d plays %s as %s", args.team, reply.unum, reply.side, ns)
    for pub, msg in players:  # beam home once the server has seen our publishers
        for _ in range(20):
            if pub.get_subscription_count() > 0:
                break
            executor.spin_once(timeout_sec=0.05)
        pub.publish(msg)
    try:
        while not stop["now"] and context.ok():
            reader.spin_once(0.1)
    except ExternalShutdownException:
        pass
    finally:
        reader.close()
        node.destroy_node()
        if context.ok():
            rclpy.shutdown(context=context)
    return 0
