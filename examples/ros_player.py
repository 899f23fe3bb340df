#!/usr/bin/env python3
"""A ROS-native player in one file: join a running soccersim server, read percepts, command
joints, stay in lock-step. A starting point for teams that want ROS 2 instead of the TCP
protocols; it depends on rclpy, std_msgs and sim_msgs only.

    source install/setup.bash
    soccersim server --sync &            # or any soccersim server with its ROS node
    python examples/ros_player.py --team Lions --unum 7 --cycles 500

What it does each cycle: turns its head left and right (a P-controller on the head yaw
joint `hj1`, commanded as joint speeds to the effector `he1`), prints what it sees now and
then, and answers with `effectors/synchronize` (in sync mode the server waits for it).
Run it in a server's namespace with `--ros-args -r __ns:=/match1`.
"""
from __future__ import annotations

import argparse
import math
import sys

import rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from std_msgs.msg import Empty

from sim_bridge.ros.qos import PERCEPT_QOS  # reliable: in sync mode every percept is answered
from sim_msgs.msg import Beam, JointCommand, Percept
from sim_msgs.srv import InitAgent


class HeadScanner(Node):
    """One player: joins, then turns its head to +-60 degrees and back, every cycle."""

    def __init__(self, team: str, unum: int, referee: str, cycles: int) -> None:
        super().__init__(f"player_{team}_{unum}")
        self.cycles_left = cycles
        self.target = 60.0  # deg
        self.largest_yaw = 0.0
        join = self.create_client(InitAgent, f"{referee}/init_agent")
        if not join.wait_for_service(timeout_sec=30):
            raise SystemExit(f"ros_player: no referee /{referee} (is `soccersim server` running?)")
        future = join.call_async(InitAgent.Request(team=team, unum=unum, robot_model="nao"))
        rclpy.spin_until_future_complete(self, future, timeout_sec=30)
        reply = future.result()
        if reply is None or not reply.success:
            raise SystemExit(f"ros_player: refused: {reply.error if reply else 'no answer'}")
        ns = reply.player_namespace
        self.get_logger().info(f"{team} #{reply.unum} plays {reply.side} as {ns}")
        reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
        self.joints = self.create_publisher(JointCommand, f"{ns}/effectors/joint_command", reliable)
        self.sync = self.create_publisher(Empty, f"{ns}/effectors/synchronize", reliable)
        self.beam = self.create_publisher(Beam, f"{ns}/effectors/beam", reliable)
        self.create_subscription(Percept, f"{ns}/percept", self.on_percept, PERCEPT_QOS)

    def on_percept(self, msg: Percept) -> None:
        angles = dict(zip(msg.joint_names, msg.joint_angles, strict=True))
        yaw = angles.get("hj1", 0.0)
        self.largest_yaw = max(self.largest_yaw, abs(yaw))
        if abs(yaw - self.target) < 5.0:
            self.target = -self.target
        speed = math.radians(self.target - yaw) * 5.0  # rad/s towards the target
        self.joints.publish(JointCommand(mode=JointCommand.MODE_VELOCITY, names=["he1"], velocities=[speed]))
        if msg.vision_updated and msg.game_state.game_time % 5.0 < 0.02:
            seen = sorted({name for name, team in zip(msg.seen.name, msg.seen.team, strict=True) if not team})
            self.get_logger().info(f"t={msg.game_state.game_time:.1f} head {yaw:.0f} deg, sees {seen}")
        self.sync.publish(Empty())
        self.cycles_left -= 1


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    cut = args_in.index("--ros-args") if "--ros-args" in args_in else len(args_in)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--team", default="Lions")
    parser.add_argument("--unum", type=int, default=0, help="shirt number; 0: the next free one")
    parser.add_argument("--referee", default="soccer_referee",
                        help="the referee's node name, whose init_agent players join through (default %(default)s)")
    parser.add_argument("--cycles", type=int, default=0, help="stop after this many percepts; 0: never")
    args = parser.parse_args(args_in[:cut])
    rclpy.init(args=["ros_player", *args_in[cut:]])
    try:
        player = HeadScanner(args.team, args.unum, args.referee, args.cycles)
        while rclpy.ok() and (args.cycles == 0 or player.cycles_left > 0):
            rclpy.spin_once(player, timeout_sec=0.5)
        print(f"ros_player: done, head turned up to {player.largest_yaw:.0f} deg", flush=True)
    finally:
        if rclpy.ok():
            rclpy.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
