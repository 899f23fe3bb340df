"""A match on the gz-physics engine (`--engine gazebo`) over the legacy ports: a SimSpark agent
and an rcsssmj agent play, both monitor streams draw the world, a monitor kicks off, the
referee scores a goal from a scripted push of the ball, and the agents' robots stand."""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sim_physics.engine.gazebo.engine import GazeboEngine

from sim_bridge.clients import LegacyClient, RcsssmjAgent, SimSparkAgent
from soccer_referee.play_modes import PlayMode


def test_both_dialects_play_a_match_with_a_goal_on_gazebo(running_server: Callable[..., Any]) -> None:
    with running_server(engine="gazebo", simspark_monitor_port=0, rcsssmj_monitor_port=0) as server:
        assert isinstance(server.loop.engine, GazeboEngine)
        alpha = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Alpha", 1)
        alpha.join()
        beta = RcsssmjAgent("127.0.0.1", server.agent_servers["rcsssmj"].port, "Beta", 1)
        beta.join()

        def both(n: int, **speeds: float) -> None:
            for _ in range(n):
                alpha.act(speeds)
                beta.act()

        both(10)
        spark = LegacyClient("127.0.0.1", server.monitor_servers["simspark"].port)
        rsmp = LegacyClient("127.0.0.1", server.monitor_servers["rcsssmj"].port)
        both(6)
        sfull, rfull = spark.receive(), rsmp.receive()
        assert sfull.startswith(b"((FieldLength 30)") and b"(resetMaterials matNum1 matLeft" in sfull
        assert b"(nd DSC(agent Alpha 1)" in rfull and b"(nd DSC(agent Beta 1)" in rfull and b"(nd DSC(ball)" in rfull

        spark.send(b"(kickOff Left)")
        for _ in range(100):
            both(1)
            if server.loop.referee.state.play_mode == PlayMode.KICK_OFF_LEFT:
                break
        assert server.loop.referee.state.play_mode == PlayMode.KICK_OFF_LEFT
        server.loop.calls.call(lambda: server.loop.control.set_play_mode("PlayOn"))
        r = server.loop.engine.field.ball_radius
        loop = server.loop
        loop.calls.call(lambda: loop.engine.set_ball((13.0, 0.3, r), (6.0, 0.0, 0.0)))  # the scripted push
        for _ in range(200):
            both(1, he1=0.5)
            if server.loop.referee.state.score_left:
                break
        state = server.loop.referee.state
        assert (state.score_left, state.score_right) == (1, 0)
        both(5)
        # The agents' percepts come from gz-physics: the head turns 0.5 rad/s (0.573 deg per
        # cycle) while the SimSpark robot stands; the rcsssmj robot (no command: limp) sags.
        angles = [float(m.group(1)) for m in re.finditer(rb"\(HJ \(n hj1\) \(ax ([-\d.]+)\)\)", alpha.log.last)]
        assert angles and abs(angles[0]) > 10.0
        assert server.loop.engine.robot_pose("Alpha/p1")[0][2] > 0.37
        assert b"(GYR" in alpha.log.last and b"(FRP (n lf)" in alpha.log.last
        spark.close()
        rsmp.close()
