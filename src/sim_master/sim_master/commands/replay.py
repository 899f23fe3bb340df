"""`soccersim replay FILE.mcap`: plays a replay log back to monitors (both monitor ports)
and ROS topics (/clock, /game_state, /game_events, /entity_states) at --speed times real
time (0: as fast as possible)."""
from __future__ import annotations

import argparse
import logging
import signal
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from soccer_referee.rules import RULE_BOOKS

if TYPE_CHECKING:
    from sim_contracts.field import FieldSpec
    from sim_master.server.monitor_scene import MonitorScene
    from soccer_referee.referee import GameStateSnapshot
    from soccer_referee.rules import RuleBook


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="an MCAP log written by soccersim server --log or soccersim match")
    parser.add_argument("--speed", type=float, default=1.0, help="times real time; 0 = as fast as possible")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--simspark-monitor-port", type=int, default=3200)
    parser.add_argument("--rcsssmj-monitor-port", type=int, default=60001)
    parser.add_argument("--web-port", type=int, default=-1, help="also serve the browser monitor on this port")
    parser.add_argument("--no-ros", action="store_true")
    parser.add_argument("--world", default="simspark_field")
    parser.add_argument("--rules", default="simspark", choices=sorted(RULE_BOOKS),
                        help="rule book whose figures the monitor frames announce (default: %(default)s)")


@dataclass(slots=True)
class _Frames:
    """One cycle's monitor frame in a port's dialect, built only if some monitor wants it."""

    dialect: str
    scene: MonitorScene
    data: Any  # mujoco.MjData
    time: float
    state: GameStateSnapshot
    field: FieldSpec
    rules: RuleBook

    def _frame(self, full: bool) -> bytes:
        from sim_master.server.monitor_scene import rsmp_frame, simspark_frame

        body = self.scene.scene(self.data, full)
        if self.dialect == "rcsssmj":
            return rsmp_frame(body, full, self.time, self.state, self.field, [], self.rules).encode()
        return simspark_frame(body, full, self.state, self.field, [], self.rules, {}).encode()

    def diff(self) -> bytes:
        return self._frame(False)

    def full(self) -> bytes:
        return self._frame(True)


def run_replay(args: argparse.Namespace) -> int:
    from sim_bridge.monitor_server import MonitorServer
    from sim_master.engine.mujoco.engine import MujocoEngine
    from sim_master.server.monitor_scene import MonitorScene
    from sim_master.store.mcap_log import ReplayLogReader
    from soccer_referee.play_modes import PlayMode
    from soccer_referee.referee import GameStateSnapshot
    from soccer_referee.rules import rule_book

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s: %(message)s")
    stop = {"now": False}
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    engine = MujocoEngine(args.world, vision_noise=False)
    monitors = {}
    for name, port in (("simspark", args.simspark_monitor_port), ("rcsssmj", args.rcsssmj_monitor_port)):
        if port >= 0:
            monitors[name] = MonitorServer(name, args.host, port)
            monitors[name].start()
            print(f"{name} monitors: {args.host}:{monitors[name].port}", flush=True)
    web = None
    if args.web_port >= 0:
        from sim_master.monitor_web.server import WebMonitor

        web = WebMonitor(args.host, args.web_port)
        web.start()
        print(f"browser monitor: {web.url}", flush=True)
    ros = None if args.no_ros else _RosReplay()
    print(f"replaying {args.file} at {args.speed:g}x", flush=True)
    scenes: dict[str, MonitorScene] = {}
    state = GameStateSnapshot()
    field = engine.field
    rules = rule_book(args.rules)
    start_wall, start_sim, cycles = time.monotonic(), None, 0
    try:
        for cycle in ReplayLogReader(args.file).cycles():
            if stop["now"]:
                break
            engine.apply_snapshot(cycle.snapshot)
            if cycle.game_state is not None:
                g = cycle.game_state
                state = GameStateSnapshot(PlayMode(g.play_mode), g.game_time, g.half, g.team_left, g.team_right,
                                          g.score_left, g.score_right)
            if start_sim is None:
                start_sim = cycle.time
            if args.speed > 0:
                delay = (cycle.time - start_sim) / args.speed - (time.monotonic() - start_wall)
                if delay > 0:
                    time.sleep(delay)
            for name, monitor in monitors.items():
                monitor.poll()
                scene = scenes.get(name)
                if scene is None or scene.model is not engine.model:
                    scene = scenes[name] = MonitorScene(engine.model, {}, name)
                    monitor.request_full()
                if cycle.step % 2 == 0:
                    frames = _Frames(name, scene, engine.data, cycle.time, state, field, rules)
                    monitor.broadcast(frames.diff, frames.full)
            if ros is not None:
                ros.publish(cycle)
            if web is not None and cycle.step % 2 == 0:
                web.publish(_web_frame(cycle, state, engine.field))
            cycles += 1
    finally:
        for monitor in monitors.values():
            monitor.close()
        if ros is not None:
            ros.close()
        if web is not None:
            web.close()
    print(f"replayed {cycles} cycles", flush=True)
    return 0


def _web_frame(cycle, state, field):
    import math

    from sim_contracts.names import parse_player_entity
    from sim_master.monitor_web.frame import WebFrame

    robots = []
    for name, e in cycle.snapshot.entities.items():
        if name == "ball":
            continue
        w, x, y, z = e.orientation
        yaw = math.degrees(math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))
        team, unum = parse_player_entity(name) or ("", 0)  # players' robots are named <team>/p<unum>
        side = "left" if team and team == state.team_left else "right" if team and team == state.team_right else ""
        robots.append({"id": name, "side": side, "unum": unum, "model": e.model, "x": e.position[0],
                       "y": e.position[1], "z": e.position[2], "yaw_deg": yaw})
    ball = cycle.snapshot.entities.get("ball")
    return WebFrame(time=cycle.time, game_time=state.game_time, half=state.half, play_mode=state.play_mode.value,
                    team_left=state.team_left, team_right=state.team_right, score_left=state.score_left,
                    score_right=state.score_right, ball=tuple(ball.position) if ball else (0.0, 0.0, 0.0),
                    robots=robots, mode="replay", field={"length": field.length, "width": field.width,
                                          "goal_width": field.goal_width, "goal_depth": field.goal_depth,
                                          "penalty_depth": field.penalty_depth, "penalty_width": field.penalty_width,
                                          "center_radius": field.center_radius, "ball_radius": field.ball_radius})


class _RosReplay:
    def __init__(self) -> None:
        import rclpy
        from rclpy.node import Node
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from rclpy.signals import SignalHandlerOptions
        from rosgraph_msgs.msg import Clock

        from sim_msgs.msg import GameState, Snapshot

        self.context = rclpy.Context()
        rclpy.init(context=self.context, signal_handler_options=SignalHandlerOptions.NO)
        self.node = Node("soccersim_replay", context=self.context)
        self.clock = self.node.create_publisher(Clock, "/clock", 10)
        self.game = self.node.create_publisher(GameState, "/game_state", QoSProfile(
            depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        self.entities = self.node.create_publisher(Snapshot, "/entity_states", 10)
        self._last_game = None

    def publish(self, cycle) -> None:
        from rosgraph_msgs.msg import Clock

        from sim_master.ros.convert import snapshot_to_msg, stamp
        from sim_msgs.msg import GameState

        self.clock.publish(Clock(clock=stamp(cycle.time)))
        g = cycle.game_state
        if g is not None and g is not self._last_game:
            self._last_game = g
            self.game.publish(GameState(stamp=stamp(cycle.time), play_mode=g.play_mode,
                                        play_mode_index=g.play_mode_index, game_time=g.game_time, half=g.half,
                                        team_left=g.team_left, team_right=g.team_right, score_left=g.score_left,
                                        score_right=g.score_right, last_touch_team=g.last_touch_team,
                                        last_touch_unum=g.last_touch_unum))
        if cycle.step % 5 == 0:
            self.entities.publish(snapshot_to_msg(cycle.snapshot))

    def close(self) -> None:
        import rclpy

        self.node.destroy_node()
        if self.context.ok():
            rclpy.shutdown(context=self.context)
