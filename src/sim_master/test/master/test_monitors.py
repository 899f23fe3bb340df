"""Monitor ports of both dialects: a full frame first, then incremental ones; commands
from a monitor reach the referee."""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sim_bridge.clients import LegacyClient, SimSparkAgent
from sim_master.server.monitor_feed import LegacyMonitorFeed
from soccer_referee.play_modes import PlayMode


def test_frames_and_commands_on_both_monitor_ports(running_server: Callable[..., Any]) -> None:
    with running_server(sync=True, simspark_monitor_port=0, rcsssmj_monitor_port=0) as server:
        agent = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Alpha", 3)
        agent.join()
        agent.act()
        rsmp = LegacyClient("127.0.0.1", server.monitor_servers["rcsssmj"].port)
        spark = LegacyClient("127.0.0.1", server.monitor_servers["simspark"].port)
        for _ in range(6):
            agent.act()
        full, diff = rsmp.receive(), rsmp.receive()
        assert full.startswith(b"((RSMP 1 0)((gt 1 0)") and b"(sg 1 0)full" in full
        assert b"(nd DSC(agent Alpha 3)" in full and b"(nd DSC(ball)" in full and b"(ge 1 0)(FieldLength 30)" in full
        assert b"(team_left Alpha)" in full and b"(sg 1 0)diff" in diff and len(diff) < len(full) / 4
        times = [float(re.search(rb"\(gt 1 0\)([\d.]+)", f).group(1)) for f in (full, diff)]
        assert round(times[1] - times[0], 2) == 0.04  # every 2nd cycle
        sfull, sdiff = spark.receive(), spark.receive()
        assert sfull.startswith(b"((FieldLength 30)(FieldWidth 20)") and b"(RSG 0 1)" in sfull
        assert b"(resetMaterials matNum3 matLeft matType0 naowhite)" in sfull and b"(RDS 0 1)" in sdiff
        spark.send(b"(kickOff Left)")
        rsmp.send(b"(agent (unum 3) (team Left) (move -4 2 0.4 90))(bogus)")
        for _ in range(200):  # monitor commands are taken between cycles: wait for both to act
            agent.act()
            (x, y, _), _ = server.loop.engine.robot_pose("Alpha/p3")
            if server.loop.referee.state.play_mode == PlayMode.KICK_OFF_LEFT and abs(x + 4) < 0.1:
                break
        assert server.loop.referee.state.play_mode == PlayMode.KICK_OFF_LEFT
        assert abs(x + 4) < 0.1 and abs(y - 2) < 0.1
        rsmp.close()
        spark.close()


def test_nobody_watching_builds_no_scene_and_a_late_monitor_gets_a_full_frame(
        running_server: Callable[..., Any]) -> None:
    """With the monitor ports open and nobody connected, no scene is built and no frame is
    made; a monitor that comes later starts with a full frame."""
    with running_server(sync=True, simspark_monitor_port=0, rcsssmj_monitor_port=0) as server:
        agent = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Alpha", 3)
        agent.join()
        for _ in range(10):
            agent.act()
        feed = next(a for a in server.loop.adapters if isinstance(a, LegacyMonitorFeed))
        assert not feed._scenes
        spark = LegacyClient("127.0.0.1", server.monitor_servers["simspark"].port)
        for _ in range(4):
            agent.act()
        assert b"(RSG 0 1)" in spark.receive() and feed._scenes
        spark.close()
