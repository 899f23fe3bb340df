"""`soccersim snapshot --out FILE.png`: a picture of the running world, asked from a running
server over its text service port (`simulation frame`), drawn from above."""
from __future__ import annotations

import argparse
import json
import socket
import sys


def add_snapshot_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, help="PNG file to write")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--service-port", type=int, default=4000, help="the server's text service port")
    parser.add_argument("--width", type=int, default=1200, help="picture width in pixels")


def run_snapshot(args: argparse.Namespace) -> int:
    from sim_physics.world.spec import FieldSpec

    from sim_tools.pictures.field2d import FieldPicture, RobotMark, render_field_png

    try:
        with socket.create_connection((args.host, args.service_port), timeout=10) as s:
            f = s.makefile("rw")
            f.write("snap simulation frame\n")
            f.flush()
            reply = f.readline().strip()
    except OSError as exc:
        print(f"soccersim snapshot: no server at {args.host}:{args.service_port}: {exc}", file=sys.stderr)
        return 1
    parts = reply.split(" ", 2)
    status, body = (parts[1] if len(parts) > 1 else ""), (parts[2] if len(parts) > 2 else "")
    if status != "SUCCESS":
        print(f"soccersim snapshot: the server answered {reply!r}", file=sys.stderr)
        return 1
    frame = json.loads(body)
    fd = frame["field"]
    spec = FieldSpec(length=fd["length"], width=fd["width"], goal_width=fd["goal_width"],
                     goal_depth=fd["goal_depth"], penalty_depth=fd["penalty_depth"],
                     penalty_width=fd["penalty_width"], center_radius=fd["center_radius"],
                     ball_radius=fd["ball_radius"], lines=[tuple(seg) for seg in fd.get("lines", [])])
    marks = [RobotMark(r["side"], r["unum"], r["x"], r["y"], r["yaw_deg"]) for r in frame["robots"]]
    title = (f"{frame['team_left']} {frame['score_left']}:{frame['score_right']} {frame['team_right']}   "
             f"t={frame['game_time']:.1f}s   {frame['play_mode']}")
    picture = FieldPicture(spec, marks, tuple(frame["ball"][:2]), title, (frame["team_left"], frame["team_right"]))
    render_field_png(picture, args.out, width_px=args.width)
    print(f"wrote {args.out} ({len(marks)} robots)")
    return 0
