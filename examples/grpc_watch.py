#!/usr/bin/env python3
"""Watch a match over soccersim's gRPC API: print the score and every goal as it happens, and
where the ball is now and then. Needs grpcio, protobuf and soccersim_api only (no ROS).

    source install/setup.bash
    soccersim match &                        # or any soccersim server (gRPC on 50051)
    python examples/grpc_watch.py            # --address host:port, --token-file FILE

Ctrl-C stops it; it also ends when the server stops.
"""
from __future__ import annotations

import argparse
import sys
import threading

from soccersim_api.client import CallError, SoccerSimClient


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default="127.0.0.1:50051", help="the server's gRPC API (default %(default)s)")
    parser.add_argument("--token-file", default=None, help="a file holding the server's token")
    parser.add_argument("--ball-every", type=float, default=5.0, metavar="S",
                        help="print the ball's position every S seconds of wall time (0: never)")
    args = parser.parse_args(argv)
    token = ""
    if args.token_file:
        with open(args.token_file, encoding="utf-8") as f:
            token = f.readline().strip()
    with SoccerSimClient(args.address, token=token) as sim:
        try:
            state = sim.state()
        except CallError as exc:
            print(f"grpc_watch: {args.address}: {exc}", file=sys.stderr)
            return 1
        print(f"connected: {state.mode} mode, cycle {state.cycle}, {state.players} players", flush=True)
        if args.ball_every > 0:
            threading.Thread(target=watch_ball, args=(sim, args.ball_every), daemon=True).start()
        try:
            for update in sim.game_updates():
                g = update.state
                for event in update.events:
                    if event.kind == "goal":
                        print(f"GOAL {event.team} at {event.game_time:.1f} s: "
                              f"{g.team_left or 'left'} {g.score_left} - {g.score_right} {g.team_right or 'right'}",
                              flush=True)
                print(f"[{g.game_time:7.1f} s] {g.play_mode}  {g.team_left or '-'} {g.score_left} : "
                      f"{g.score_right} {g.team_right or '-'}", flush=True)
        except CallError as exc:
            print(f"grpc_watch: the stream ended: {exc}", file=sys.stderr)
        except KeyboardInterrupt:
            pass
    return 0


def watch_ball(sim: SoccerSimClient, every: float) -> None:
    try:
        for world in sim.worlds(max_rate_hz=1.0 / every):
            ball = world.entities.get("ball")
            if ball is not None:
                p = ball.pose.position
                print(f"  ball at ({p.x:+.2f}, {p.y:+.2f}) at cycle {world.step}", flush=True)
    except CallError:
        pass


if __name__ == "__main__":
    sys.exit(main())
