"""`soccersim match`: a whole match with built-in teams, a progress line, and at the end
DIR/summary.json, DIR/match.mcap (replay), DIR/final.png and DIR/heatmap.png."""
from __future__ import annotations

import argparse
import json
import logging
import math
import os
import sys
import time
from typing import TYPE_CHECKING, Any

from sim_physics.engine.factory import PHYSICS_ENGINES

from sim_master.commands.server import port_number
from sim_master.master.config import ServerConfig
from sim_tools.demo.teams import TEAMS as BUILT_IN

if TYPE_CHECKING:
    from sim_master.master.loop import SimulationLoop
    from soccer_referee.events import GameEvent



def add_match_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--left", default="base", choices=sorted(BUILT_IN),
                        help="left team: base (Nao humanoids, the default) or demo (light wheeled pushers)")
    parser.add_argument("--right", default="base", choices=sorted(BUILT_IN), help="right team, as --left")
    parser.add_argument("--left-name", default="Lions")
    parser.add_argument("--right-name", default="Tigers")
    parser.add_argument("--players", type=int, default=11, help="players per team")
    parser.add_argument("--duration", type=float, default=600.0, help="game time in s (two halves)")
    parser.add_argument("--out", default="match-out", help="output directory")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--engine", default="auto", choices=PHYSICS_ENGINES,
                        help="physics, as `soccersim server`'s: auto (default: the robots' league's), mujoco, "
                             "ode (rcssserver3d's physics library) or gazebo (gz-physics 5 with DART)")
    parser.add_argument("--realtime", action="store_true", help="pace at 50 cycles/s instead of as fast as possible")
    parser.add_argument("--web-port", type=port_number, default=None, metavar="PORT",
                        help="watch the match live in a browser at http://127.0.0.1:PORT/ (0: a free port, "
                             "printed); add --realtime to watch it at its own pace")
    parser.add_argument("--serve", action="store_true",
                        help="also open the legacy TCP ports (agents, service) and the ROS node")
    parser.add_argument("--simspark-port", type=port_number, default=3100, metavar="PORT",
                        help="with --serve: SimSpark agent port (0: a free port, -1: off)")
    parser.add_argument("--rcsssmj-port", type=port_number, default=60000, metavar="PORT",
                        help="with --serve: rcsssmj agent port (0: a free port, -1: off)")
    parser.add_argument("--service-port", type=port_number, default=4000, metavar="PORT",
                        help="with --serve: service port (0: a free port, -1: off)")
    parser.add_argument("--simspark-monitor-port", type=port_number, default=-1, metavar="PORT",
                        help="SimSpark monitors, e.g. RoboViz (3200 as rcssserver3d; 0: a free port; -1: off)")
    parser.add_argument("--rcsssmj-monitor-port", type=port_number, default=-1, metavar="PORT",
                        help="rcsssmj monitors (60001 as rcssservermj; 0: a free port; -1: off)")
    parser.add_argument("--draw-port", type=port_number, default=-1, metavar="PORT",
                        help="UDP port for agents' RoboViz drawings, shown by the browser monitor (-1: off)")


def _serving(args: argparse.Namespace, port: int) -> int | None:
    """A port of --serve (None: not serving, or -1)."""
    return port if args.serve and port != -1 else None


def run_match(args: argparse.Namespace) -> int:
    from sim_master.server.single import SingleModeServer

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    os.makedirs(args.out, exist_ok=True)
    log_path = os.path.join(args.out, "match.mcap")
    max_cycles = int(math.ceil(args.duration / 0.02 * 1.5)) + 1000
    config = ServerConfig(
        sync=not args.realtime, realtime=args.realtime, ros=args.serve,
        simspark_port=_serving(args, args.simspark_port), rcsssmj_port=_serving(args, args.rcsssmj_port),
        simspark_monitor_port=None if args.simspark_monitor_port == -1 else args.simspark_monitor_port,
        rcsssmj_monitor_port=None if args.rcsssmj_monitor_port == -1 else args.rcsssmj_monitor_port,
        draw_port=None if args.draw_port == -1 else args.draw_port,
        service_port=_serving(args, args.service_port),
        web_port=None if args.web_port in (None, -1) else args.web_port,
        log_path=log_path, seed=args.seed, max_cycles=max_cycles, kickoff_after=1.0,
        half_time=args.duration / 2, vision_noise=True, engine=args.engine)
    from sim_physics.engine.factory import EngineUnavailable

    try:
        server = SingleModeServer(config)
    except EngineUnavailable as exc:
        print(f"soccersim match: {exc}", file=sys.stderr)
        return 2
    field = server.loop.engine.field
    for team, side_name, kind in ((args.left_name, "left", args.left), (args.right_name, "right", args.right)):
        built_in = BUILT_IN[kind]
        for unum in range(1, args.players + 1):
            model = built_in.model_of(None, unum)
            brain = built_in.make(side_name, unum, field.length, field.width, field.goal_width, model)
            outcome = server.loop.add_local_player(team, unum, model, brain)
            if isinstance(outcome, str):
                print(f"soccersim match: cannot add {team} #{unum}: {outcome}", file=sys.stderr)
                return 2
    goals: list[dict[str, Any]] = []
    fouls: list[dict[str, Any]] = []
    ball_xy: list[tuple[float, float]] = []
    first_left: list[str] = []  # the team that kicked off on the left
    started = time.monotonic()
    last_print = [0.0]

    def hook(srv: SimulationLoop, events: list[GameEvent]) -> None:
        s = srv.referee.state
        for e in events:
            if e.kind == "goal":
                team = s.team_left if e.team == "left" else s.team_right
                goals.append({"time": round(e.time, 2), "team": team, "side": e.team, "scorer": e.unum,
                              "detail": e.detail})
            elif e.kind == "foul":
                fouls.append({"time": round(e.time, 2), "side": e.team, "unum": e.unum, "type": e.detail})
        if srv.engine.cycle % 5 == 0:
            x, y, _ = srv.engine.ball_position()
            if not first_left and s.team_left:
                first_left.append(s.team_left)
            # in the first half's frame: once the teams swapped sides, the field is turned
            swapped = bool(first_left) and s.team_left not in ("", first_left[0])
            ball_xy.append((-x, -y) if swapped else (x, y))
        if s.play_mode.value == "GameOver":
            srv.request_stop()
        now = time.monotonic()
        if now - last_print[0] >= 1.0:
            last_print[0] = now
            print(f"\rt={s.game_time:6.1f}s  {s.team_left} {s.score_left}:{s.score_right} {s.team_right}  "
                  f"{s.play_mode.value:<16} {srv.stats.cycles_per_s():6.0f} cycles/s", end="", flush=True)

    server.loop.cycle_hooks.append(hook)
    server.start()
    try:
        web = server.web_monitor
        if web is not None:
            print(f"watch it live at {web.url}", flush=True)
        if args.serve:
            ports = ", ".join(f"{name} agents {srv.port}" for name, srv in server.agent_servers.items())
            print(f"serving: {ports}" + (f", services {server.service_port.port}" if server.service_port else ""),
                  flush=True)
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        elapsed = time.monotonic() - started
        summary = write_outputs(server.loop, args.out, goals, fouls, ball_xy, elapsed,
                                first_left[0] if first_left else "")
        server.close()
    print()
    print(f"final: {summary['teams']['left']} {summary['score'][0]}:{summary['score'][1]} "
          f"{summary['teams']['right']} in {elapsed:.1f} s wall ({summary['cycles_per_s']:.0f} cycles/s); "
          f"outputs in {args.out}")
    return 0


def write_outputs(server: SimulationLoop, out: str, goals: list[dict[str, Any]], fouls: list[dict[str, Any]],
                  ball_xy: list[tuple[float, float]], elapsed: float, first_left: str = "") -> dict[str, Any]:
    from sim_tools.pictures.field2d import FieldPicture, RobotMark, render_field_png, render_heatmap_png

    s = server.referee.state
    # Goals are counted per team name: sides may have changed at half time.
    score = {s.team_left: s.score_left, s.team_right: s.score_right}
    summary = {"teams": {"left": s.team_left, "right": s.team_right},
               "score": [s.score_left, s.score_right], "score_by_team": score,
               "game_time": round(s.game_time, 2), "play_mode": s.play_mode.value, "cycles": server.stats.cycles,
               "wall_s": round(elapsed, 2), "cycles_per_s": round(server.stats.cycles / elapsed, 1) if elapsed else 0.0,
               "goals": goals, "fouls": fouls, "replay": "match.mcap", "pictures": ["final.png", "heatmap.png"]}
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    marks = []
    for p in server.players.with_robots():
        (x, y, _), _ = server.engine.robot_pose(p.robot_id)
        marks.append(RobotMark(p.side, p.unum, x, y, server.engine.robot_yaw(p.robot_id)))
    bx, by, _ = server.engine.ball_position()
    title = (f"{s.team_left} {s.score_left}:{s.score_right} {s.team_right}   t={s.game_time:.1f}s   "
             f"{s.play_mode.value}")
    render_field_png(FieldPicture(server.engine.field, marks, (bx, by), title, (s.team_left, s.team_right)),
                     os.path.join(out, "final.png"))
    heat_title = f"ball positions, {first_left} attacking right (both halves)" if first_left else "ball positions"
    render_heatmap_png(ball_xy, server.engine.field, os.path.join(out, "heatmap.png"), title=heat_title)
    return summary
