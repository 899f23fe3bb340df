"""The other process of the DDS tests: publishes a full Percept, or serves InitAgent."""
from __future__ import annotations

import sys

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node

from sim_msgs.msg import ForceResistance, HeardMessage, Percept, VisionObjects
from sim_msgs.srv import InitAgent


def full_percept() -> Percept:
    """Every field set to a distinctive value (the test rebuilds the same message)."""
    p = Percept()
    p.header.stamp.sec, p.header.stamp.nanosec, p.header.frame_id = 12, 340000000, "torso"
    g = p.game_state
    g.stamp.sec, g.play_mode, g.play_mode_index, g.game_time, g.half = 12, "KickIn_Left", 4, 71.5, 2
    g.team_left, g.team_right, g.score_left, g.score_right = "Alpha", "Beta", 3, 1
    g.last_touch_team, g.last_touch_unum = "right", 9
    p.unum, p.side = 7, "left"
    p.gyro.x, p.gyro.y, p.gyro.z = 0.5, -1.25, 3.0
    p.accelerometer.x, p.accelerometer.y, p.accelerometer.z = 0.1, -0.2, 9.81
    p.torso_pose.position.x, p.torso_pose.position.y, p.torso_pose.position.z = -4.5, 1.25, 0.38
    p.torso_pose.orientation.w, p.torso_pose.orientation.z = 0.0, 1.0
    p.joint_names = [f"j{i}" for i in range(22)]
    p.joint_angles = [i * 1.5 - 10 for i in range(22)]
    p.joint_velocities = [i * -0.25 for i in range(22)]
    f = ForceResistance(name="lf")
    f.center.x, f.center.y, f.center.z, f.force.x, f.force.y, f.force.z = 0.01, -0.02, -0.03, 0.5, -0.5, 22.6
    p.foot_resistance = [f]
    p.vision_updated = True
    p.seen = VisionObjects(name=["B", "head"], team=["", "Beta"], unum=[0, 4], distance=[2.5, 8.0],
                           azimuth=[-10.0, 20.0], elevation=[-12.5, 1.0])
    p.line_ends = VisionObjects(name=["L", "L"], team=["", ""], unum=[0, 0], distance=[1.0, 3.0],
                                azimuth=[-60.0, 60.0], elevation=[-30.0, -10.0])
    p.heard = [HeardMessage(time=71.48, from_self=False, from_teammate=True, direction=45.0, message="go.left")]
    return p


def publish() -> None:
    node = Node("percept_peer")
    pub = node.create_publisher(Percept, "/test/percept", 10)
    msg = full_percept()
    node.create_timer(0.05, lambda: pub.publish(msg))
    rclpy.spin(node)


def serve() -> None:
    node = Node("init_agent_peer")
    teams: list[str] = []

    def init_agent(req: InitAgent.Request, res: InitAgent.Response) -> InitAgent.Response:
        if req.team not in teams:
            teams.append(req.team)
        if len(teams) > 2 and req.team == teams[-1]:
            res.success, res.error = False, f"two teams are playing already; {req.team!r} cannot join"
            return res
        res.success, res.unum, res.side = True, req.unum or 1, "left" if teams[0] == req.team else "right"
        res.player_namespace = f"/{req.team}/p{res.unum}"
        return res

    node.create_service(InitAgent, "/test/init_agent", init_agent)
    rclpy.spin(node)


if __name__ == "__main__":
    rclpy.init()
    try:
        {"publish": publish, "serve": serve}[sys.argv[1]]()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
