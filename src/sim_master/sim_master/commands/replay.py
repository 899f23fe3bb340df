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

from sim_bridge.roboviz_draw import DrawingBoard
from soccer_referee.rules import RULE_BOOKS

if TYPE_CHECKING:
    from sim_physics.scene.monitor_scene import MonitorScene

    from sim_contracts.field import FieldSpec
    from soccer_referee.game_state import GameStateSnapshot
    from soccer_referee.rules import RuleBook


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="an MCAP log written by soccersim server --log or soccersim match")
    parser.add_argument("--speed", type=float, default=1.0, help="times real time; 0 = as fast as possible")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--simspark-monitor-port", type=int, default=3200)
    parser.add_argument("--rcsssmj-monitor-port", type=int, default=60001)
    parser.add_argument("--web-port", type=int, default=-1, help="also serve the browser monitor on this port")
    parser.add_argument("--paused", action="store_true",
                        help="open paused at the log's first cycle; the browser monitor's play starts it "
                             "(needs --web-port)")
    parser.add_argument("--no-ros", action="store_true")
    parser.add_argument("--world", default="simspark_field")
    parser.add_argument("--rules", default="simspark", choices=sorted(RULE_BOOKS),
                        help="rule book whose figures the monitor frames announce (default: %(default)s)")


@dataclass(slots=True)
class _Frames:
    """One cycle's monitor frame in a port's dialect, built only if some monitor wants it."""

    scene: MonitorScene
    names: list[str]  # the cycle's frames, posed from its snapshot
    poses: Any  # (n, 7) numpy array
    time: float
    state: GameStateSnapshot
    field: FieldSpec
    rules: RuleBook

    def _frame(self, full: bool) -> bytes:
        from sim_physics.scene.monitor_scene import rsmp_frame, simspark_frame

        body = self.scene.scene(self.names, self.poses, full)
        if self.scene.style.rsmp:
            return rsmp_frame(body, full, self.time, self.state, self.field, [], self.rules).encode()
        return simspark_frame(body, full, self.state, self.field, [], self.rules, {}).encode()

    def diff(self) -> bytes:
        return self._frame(False)

    def full(self) -> bytes:
        return self._frame(True)


def run_replay(args: argparse.Namespace) -> int:
    from sim_physics.scene.world import SceneWorld

    from sim_bridge.monitor_server import MonitorServer
    from sim_master.store.mcap_log import LogError, ReplayIndex, ReplayLogReader, check_log
    from sim_master.store.replay_player import ReplayPlayer
    from soccer_referee.rules import rule_book

    if args.paused and args.web_port < 0:
        print("soccersim replay: --paused needs --web-port (the page's play button starts the replay)",
              file=sys.stderr)
        return 2
    try:  # before any port opens: a file that is no log is one line, not a silent exit
        check_log(args.file)
    except LogError as exc:
        print(f"soccersim replay: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s: %(message)s")
    stop = {"now": False}
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    try:
        engine = SceneWorld(args.world)
    except (ValueError, OSError) as exc:
        print(f"soccersim replay: --world {args.world}: {exc}", file=sys.stderr)
        return 2
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
    reader = ReplayLogReader(args.file)
    # The browser seeks and jumps to goals: it needs the whole log's span and checkpoints first
    # (a page that connects meanwhile says how far reading has come).
    if web is not None:
        loading = web
        loading.set_timeline({"kind": "loading", "read": 0.0})
        index = reader.index(progress=lambda t: loading.set_timeline({"kind": "loading", "read": round(t, 1)}))
        _say_damage(args.file, reader.damage)
    else:
        index = ReplayIndex(0.0, float("inf"), 0, [], [])
    player = ReplayPlayer(reader, index, speed=args.speed)
    shows = _Shows(engine, monitors, ros, web, rule_book(args.rules), index)
    print(f"replaying {args.file} at {args.speed:g}x", flush=True)
    shown, at_end = 0, False
    if args.paused:
        player.pause()
        first = player.seek(index.start)
        if first is not None:
            shows.show(first)
            shown += 1
    try:
        while not stop["now"]:
            if web is not None:
                shows.controls(player)
            wait = player.due()
            if wait > 0:
                for monitor in monitors.values():
                    monitor.poll()
                time.sleep(min(wait, 0.02))
                continue
            cycle = player.next()
            if cycle is None:
                if web is None:
                    break
                if not at_end:  # the page may still seek back: stay until Ctrl-C
                    print("end of the log: paused (Ctrl-C quits)", flush=True)
                    at_end = True
                shows.timeline(player)
                continue
            at_end = False
            shows.show(cycle)
            shown += 1
    finally:
        shows.close()
    if web is None:
        _say_damage(args.file, reader.damage)
    print(f"replayed {shown} cycles", flush=True)
    if shown == 0:
        print(f"soccersim replay: {args.file} holds no cycles (is it a soccersim replay log?)", file=sys.stderr)
        return 1
    return 0


def _say_damage(path: str, damage: list[str]) -> None:
    if damage:
        print(f"soccersim replay: {path} is damaged ({'; '.join(damage)}): what is readable is played "
              "(soccersim repair writes a clean copy of it)", file=sys.stderr, flush=True)


def add_repair_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a replay log cut off by a crash (SIGKILL, a full disk: no MCAP footer)")
    parser.add_argument("--out", default=None, help="where the repaired log goes (default: FILE.repaired.mcap)")


def run_repair(args: argparse.Namespace) -> int:
    """`soccersim repair FILE.mcap`: a complete copy of a crashed log that every MCAP reader opens."""
    import os

    from sim_master.store.mcap_log import LogError, repair_log

    out = args.out or (args.file.removesuffix(".mcap") + ".repaired.mcap")
    if os.path.abspath(out) == os.path.abspath(args.file):
        print("soccersim repair: --out must differ from the log being repaired", file=sys.stderr)
        return 2
    try:
        report = repair_log(args.file, out)
    except (LogError, OSError) as exc:
        print(f"soccersim repair: {exc}", file=sys.stderr)
        return 2
    state = "was complete already" if report.complete else "had no footer (a crash)" + \
        (f"; {'; '.join(report.damage)}" if report.damage else "")
    print(f"{args.file} {state}: {report.messages} messages on {report.channels} topics up to "
          f"t = {report.last_time:.2f} s -> {out}", flush=True)
    return 0


class _Shows:
    """Where a replayed cycle goes: monitor ports, ROS, the browser (scene, timeline, frames)."""

    def __init__(self, engine: Any, monitors: dict[str, Any], ros: Any, web: Any, rules: RuleBook,
                 index: Any) -> None:
        from soccer_referee.game_state import GameStateSnapshot

        self.engine, self.monitors, self.ros, self.web = engine, monitors, ros, web
        self.rules, self.index = rules, index
        self.scenes: dict[str, MonitorScene] = {}
        self.state = GameStateSnapshot()
        self.models: tuple[str, ...] | None = None
        self._timeline_key: object = None
        self._drawings_shown: object = None
        self._state_read: object = None
        self._state_refused = False
        self._drawings: dict[str, object] = DrawingBoard().to_dict()  # none yet
        from sim_master.monitor_web.frame import LinkRows

        self.link_rows = LinkRows()

    def show(self, cycle: Any) -> None:
        from sim_physics.scene.monitor_scene import STREAM_STYLES, MonitorScene, scene_key

        from soccer_referee.ros.messages import game_state_from_msg

        engine = self.engine
        engine.apply_snapshot(cycle.snapshot)
        if cycle.game_state is not None and cycle.game_state is not self._state_read:
            self._state_read = cycle.game_state
            try:  # the game state's one check, for a file as for DDS: what monitors and pages get
                self.state = game_state_from_msg(cycle.game_state)
            except ValueError as exc:
                if not self._state_refused:
                    self._state_refused = True
                    print(f"soccersim replay: a game state in the log refused ({exc}); the last good one is shown",
                          file=sys.stderr, flush=True)
        names, poses = engine.frames()
        robots = engine.scene_robots(self.state.team_left, self.state.team_right)
        for name, monitor in self.monitors.items():
            monitor.poll()
            scene = self.scenes.get(name)
            if scene is None or scene.key != scene_key(robots):
                scene = self.scenes[name] = MonitorScene(engine.statics(), robots, STREAM_STYLES[name],
                                                           field=engine.field)
                monitor.request_full()
            if cycle.step % 2 == 0:
                frames = _Frames(scene, names, poses, cycle.time, self.state, engine.field, self.rules)
                monitor.broadcast(frames.diff, frames.full)
        if self.ros is not None:
            self.ros.publish(cycle)
        if self.web is not None:
            self._scene(cycle)
            # agents' drawings in every frame (a page that joins at the end of the log, paused, gets
            # the last frame only), converted once per logged message
            if cycle.drawings is not self._drawings_shown:
                from sim_master.store.drawing_records import drawings_from_record

                self._drawings_shown = cycle.drawings
                self._drawings = drawings_from_record(cycle.drawings) if cycle.drawings is not None else \
                    DrawingBoard().to_dict()
            drawings = self._drawings
            self.web.publish(_web_frame(cycle, self.state, engine, self.link_rows, drawings))

    def _scene(self, cycle: Any) -> None:
        from sim_master.monitor_web.frame import scene_message

        models = tuple(sorted({e.model for n, e in cycle.snapshot.entities.items()
                               if n != "ball" and e.model and self.engine.has_model(e.model)}))
        if models != self.models:
            self.models = models
            specs = {m: self.engine.model_spec(m) for m in models}
            self.web.set_scene(scene_message("replay", self.engine.field, specs, commands=False))

    def timeline(self, player: Any) -> None:
        key = (player.paused, player.speed)
        if key == self._timeline_key:
            return
        self._timeline_key = key
        # time: where in the log (what a seek takes); game_time: what the page's header and buttons show
        events = [{"time": round(t, 2), "game_time": round(e.game_time, 2), "kind": e.kind, "team": e.team,
                   "unum": int(e.unum), "detail": e.detail}
                  for t, e in self.index.events if e.kind in ("goal", "foul")]
        self.web.set_timeline({"kind": "timeline", "start": self.index.start, "end": self.index.end,
                               "paused": player.paused, "speed": player.speed, "events": events})

    def controls(self, player: Any) -> None:
        """The page's replay buttons (pause, play, step, seek, speed), then its timeline."""
        from sim_master.monitor_web.commands import CommandError, parse_replay

        for item in self.web.take_commands():
            try:
                control = parse_replay(item.command)
            except CommandError as exc:
                logging.getLogger("soccersim.replay").warning("browser %s: %s", item.peer, exc)
                continue
            if control.name == "pause":
                player.pause()
            elif control.name == "play":
                player.play()
            elif control.name == "step":
                player.step(int(control.value))
            elif control.name == "speed":
                player.set_speed(control.value)
            elif control.name == "seek":
                cycle = player.seek(control.value)
                if cycle is not None:
                    self.show(cycle)
        self.timeline(player)

    def close(self) -> None:
        for monitor in self.monitors.values():
            monitor.close()
        if self.ros is not None:
            self.ros.close()
        if self.web is not None:
            self.web.close()


def _web_frame(cycle: Any, state: Any, engine: Any, link_rows: Any = None, drawings: Any = None) -> Any:
    import numpy as np

    from sim_contracts.names import parse_player_entity
    from sim_master.monitor_web.frame import LinkRows, WebFrame, link_poses, yaw_deg

    names, poses = engine.frames()
    poses = np.round(poses, 4)
    link_rows = link_rows or LinkRows()
    robots = []
    for name, e in cycle.snapshot.entities.items():
        if name == "ball" or not e.model or not engine.has_model(e.model):
            continue
        team, unum = parse_player_entity(name) or ("", 0)  # players' robots are named <team>/p<unum>
        side = "left" if team and team == state.team_left else "right" if team and team == state.team_right else ""
        base = [round(float(v), 4) for v in (*e.position, *e.orientation)]
        robots.append({"id": name, "side": side, "unum": unum, "model": e.model, "x": e.position[0],
                       "y": e.position[1], "z": e.position[2], "yaw_deg": round(yaw_deg(e.orientation), 1),
                       "links": link_poses(link_rows.rows(engine.model_spec(e.model), name, names), poses, base)})
    ball = cycle.snapshot.entities.get("ball")
    return WebFrame(time=round(cycle.time, 3), game_time=state.game_time, half=state.half,
                    play_mode=state.play_mode.value, team_left=state.team_left, team_right=state.team_right,
                    score_left=state.score_left, score_right=state.score_right,
                    ball=tuple(ball.position) if ball else (0.0, 0.0, 0.0), robots=robots, mode="replay",
                    drawings=drawings)


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
