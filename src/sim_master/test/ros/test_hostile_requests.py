"""Hostile service requests cost only their own answer (issue 26): a catastrophic regex,
a pose that is no number, a 1 MB uri, an entity-expansion document, a box of size 1e308, a
negative mass, a ball sent to 1e308 or a robot to z = -1e6. Each is refused with the
standard's code and a reason; every service answers afterwards; the match goes on."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sim_bridge.clients import SimSparkAgent
from simulation_interfaces.msg import EntityFilters, Resource, Result
from simulation_interfaces.srv import GetEntities, GetEntityState, SetEntityState, SpawnEntity

BOX = """<sdf version="1.9"><model name="b"><link name="l">
<inertial><mass>{mass}</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial>
<collision name="c"><pose>{pose}</pose><geometry><box><size>{size}</size></box></geometry></collision>
</link></model></sdf>"""
LAUGHS = ('<?xml version="1.0"?><!DOCTYPE sdf [<!ENTITY a "aaaaaaaaaa">'
          + "".join(f'<!ENTITY a{i} "{"&a;" * 10 if i == 0 else f"&a{i - 1};" * 10}">' for i in range(6))
          + ']><sdf version="1.9"><model name="x">&a5;</model></sdf>')


def _spawn(c: Any, name: str, text: str = "", uri: str = "") -> Any:
    request = SpawnEntity.Request(name=name, entity_resource=Resource(uri=uri, resource_string=text))
    request.initial_pose.pose.position.z = 0.5
    return c.call(SpawnEntity, "/hostile/spawn_entity", request).result


def test_hostile_requests_are_refused_and_every_service_goes_on(running_server: Callable[..., Any],
                                                                ros_caller: Any) -> None:
    with running_server(sync=False, realtime=True, ros=True, node_name="hostile") as server:
        c = ros_caller
        agent = SimSparkAgent("127.0.0.1", server.agent_servers["simspark"].port, "a" * 40, 1)
        agent.join()  # its robot is named aaa...a/p1: the filter below backtracks for ever on it in re
        c.spin_until(lambda: "a" * 40 + "/p1" in server.loop.engine.robot_ids(), "the agent's robot")
        started = time.monotonic()
        greedy = c.call(GetEntities, "/hostile/get_entities",
                        GetEntities.Request(filters=EntityFilters(filter="^(a+)+$")))
        assert greedy.result.result == Result.RESULT_OK and time.monotonic() - started < 5.0
        assert c.call(GetEntities, "/hostile/get_entities",
                      GetEntities.Request(filters=EntityFilters(filter="^bal+$"))).entities == ["ball"]

        refused = {
            "pose abc": _spawn(c, "p1", BOX.format(mass=1, pose="abc def", size="0.2 0.2 0.2")),
            "huge box": _spawn(c, "p2", BOX.format(mass=1, pose="0 0 0 0 0 0", size="1e308 1e308 1e308")),
            "mass -1": _spawn(c, "p3", BOX.format(mass=-1, pose="0 0 0 0 0 0", size="0.2 0.2 0.2")),
            "entities": _spawn(c, "p4", LAUGHS),
            "1 MB uri": _spawn(c, "p5", uri="a" * (1 << 20)),
            "long file name": _spawn(c, "p6", uri="b" * 3000 + ".sdf"),
        }
        for what, outcome in refused.items():
            assert outcome.result != Result.RESULT_OK, what
            assert outcome.error_message and len(outcome.error_message) < 1000, what
        assert _spawn(c, "fine", BOX.format(mass=1, pose="0 0 0 0 0 0", size="0.2 0.2 0.2")).result == Result.RESULT_OK

        ball = c.call(GetEntityState, "/hostile/get_entity_state", GetEntityState.Request(entity="ball")).state
        far = ball
        far.pose.position.x = 1e308
        reply = c.call(SetEntityState, "/hostile/set_entity_state",
                       SetEntityState.Request(entity="ball", state=far, set_pose=True))
        assert reply.result.result == SetEntityState.Response.INVALID_POSE, reply.result.error_message
        deep = c.call(GetEntityState, "/hostile/get_entity_state", GetEntityState.Request(entity="fine")).state
        deep.pose.position.z = -1e6
        reply = c.call(SetEntityState, "/hostile/set_entity_state",
                       SetEntityState.Request(entity="fine", state=deep, set_pose=True))
        assert reply.result.result == SetEntityState.Response.INVALID_POSE
        fast = c.call(GetEntityState, "/hostile/get_entity_state", GetEntityState.Request(entity="ball")).state
        fast.twist.linear.x = 1e6
        reply = c.call(SetEntityState, "/hostile/set_entity_state",
                       SetEntityState.Request(entity="ball", state=fast, set_twist=True))
        assert reply.result.result != Result.RESULT_OK

        cycles = server.loop.stats.cycles
        deadline = time.monotonic() + 10
        while server.loop.stats.cycles < cycles + 25 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.loop.stats.cycles >= cycles + 25, "the match stopped"
        assert c.call(GetEntities, "/hostile/get_entities").result.result == Result.RESULT_OK
        (x, _, z) = server.loop.engine.ball_position()
        assert abs(x) < 20 and abs(z) < 5
        agent.close()
