"""Trainer moves on the monitor ports place a robot as each reference server does.

Teams' tools lean on these: FC Portugal's kick and get-up demos put a fallen robot back on its
feet with rcssserver3d's `(agent .. (move x y z deg))`, which sets the torso level and turned
(deg 0 faces +y there); `(pos x y z)` carries it as it is. rcsssmj's moves set the orientation
and zero every joint."""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from sim_bridge.clients import LegacyClient, SimSparkAgent
from sim_bridge.monitor_server import parse_monitor_command
from sim_bridge.sexp import parse_flat
from soccer_referee.commands import MoveAgent


def _parse(text: str, dialect: str) -> object:
    return parse_monitor_command(parse_flat(text)[0], dialect)


def test_each_dialect_reads_its_own_moves() -> None:
    spark = "(agent (unum 9) (team Left) (move -1.2 0.3 0.4 -90))"
    assert _parse(spark, "simspark") == MoveAgent("Left", 9, -1.2, 0.3, 0.0, z=0.4, upright=True)
    assert _parse(spark, "rcsssmj") == MoveAgent("Left", 9, -1.2, 0.3, -90.0, z=0.4, upright=True, zero_joints=True)
    assert _parse("(agent (unum 2) (team B) (pos 1 2 0.3))", "simspark") == MoveAgent("B", 2, 1.0, 2.0, None, z=0.3)
    assert _parse("(agent (unum 2) (team B) (pos 1 2 0.3))", "rcsssmj") == MoveAgent(
        "B", 2, 1.0, 2.0, None, z=0.3, orientation=(1.0, 0.0, 0.0, 0.0), zero_joints=True)
    assert _parse("(agent (unum 2) (team B) (move3d 1 2 0.3 0 0 0 1))", "rcsssmj").orientation == (0, 0, 0, 1)
    with pytest.raises(ValueError):
        _parse("(agent (unum 2) (team B) (move3d 1 2 0.3 0 0 0 1))", "simspark")
    with pytest.raises(ValueError):
        _parse("(agent (unum 2) (team B) (move 1 2 0.3))", "simspark")


def _tilt_and_heading(server, robot: str) -> tuple[float, float]:
    _, (w, x, y, z) = server.loop.engine.robot_pose(robot)
    tilt = math.degrees(math.acos(max(-1.0, min(1.0, 1 - 2 * (x * x + y * y)))))
    return tilt, server.loop.engine.robot_yaw(robot)


def test_a_fallen_nao_is_put_back_on_its_feet_by_move_and_carried_as_it_is_by_pos(
        running_server: Callable[..., Any]) -> None:
    with running_server(sync=True, simspark_monitor_port=0, rcsssmj_monitor_port=0) as server:
        agent = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "Alpha", 3)
        agent.join()
        spark = LegacyClient("127.0.0.1", server.monitor_servers["simspark"].port)
        rsmp = LegacyClient("127.0.0.1", server.monitor_servers["rcsssmj"].port)

        def run_until(done, cycles: int = 200) -> None:
            for _ in range(cycles):  # commands are taken between cycles
                agent.act()
                if done():
                    return
            raise AssertionError("the move never took effect")

        # laid on its side (rcsssmj's move3d: 90 deg about x), then left to settle
        rsmp.send(b"(agent (unum 3) (team Alpha) (move3d -1 1 0.15 0.7071 0.7071 0 0))")
        run_until(lambda: abs(server.loop.engine.robot_pose("Alpha/p3")[0][0] + 1) < 0.05)
        for _ in range(25):
            agent.act()
        lying, _ = _tilt_and_heading(server, "Alpha/p3")
        assert lying > 70

        spark.send(b"(agent (unum 3) (team Alpha) (pos -3 2 0.2))")  # carried as it is: still lying
        run_until(lambda: abs(server.loop.engine.robot_pose("Alpha/p3")[0][0] + 3) < 0.05)
        assert _tilt_and_heading(server, "Alpha/p3")[0] > 70

        spark.send(b"(agent (unum 3) (team Alpha) (move -2 1 0.4 -90))")  # level, facing +x
        run_until(lambda: abs(server.loop.engine.robot_pose("Alpha/p3")[0][0] + 2) < 0.05)
        for _ in range(50):  # dropped from 0.4 m it lands on its feet and stands
            agent.act()
        (x, y, z), _ = server.loop.engine.robot_pose("Alpha/p3")
        tilt, heading = _tilt_and_heading(server, "Alpha/p3")
        assert tilt < 5 and abs(heading) < 3, (tilt, heading)
        assert abs(x + 2) < 0.05 and abs(y - 1) < 0.05 and z > 0.3
        spark.close()
        rsmp.close()
