"""rcssserver3d's beam noise (0.6.9+): a SimSpark agent's beam lands within +-0.05 m on x and
y and +-10 degrees of where it asked, drawn from the run's seed (`--seed` repeats a run;
`--no-beam-noise` makes beams exact, as tests need). rcssservermj adds none."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sim_bridge.clients import LegacyClient
from sim_contracts.agents import IN_PROCESS_RULES, LOCAL_RULES, RCSSSMJ_RULES, SIMSPARK_RULES

SPOTS = [(-5.0, -6.0 + 3.0 * i, 15.0 * i) for i in range(5)]


def _beamed_poses(running_server: Callable[..., Any], **settings: Any) -> list[tuple[float, float, float]]:
    """(x, y, yaw deg) of each robot right after its agent's beam to SPOTS."""
    with running_server(**settings) as server:
        port = server.agent_servers["simspark"].port
        agents = []
        for unum, (x, y, rot) in enumerate(SPOTS, start=1):
            agent = LegacyClient("127.0.0.1", port)
            agent.send("(scene rsg/agent/nao/nao_hetero.rsg 0)")
            agent.receive()
            agent.send(f"(init (unum {unum})(teamname Noisy))(beam {x} {y} {rot})(syn)")
            agent.receive()
            agent.send("(syn)")
            agent.receive()
            agents.append(agent)
        loop = server.loop

        def read() -> list[tuple[float, float, float]]:
            out = []
            for unum in range(1, len(SPOTS) + 1):
                robot = loop.players.by_player("left", unum).robot_id
                (x, y, _), _ = loop.engine.robot_pose(robot)
                out.append((x, y, loop.engine.robot_yaw(robot)))
            return out

        # on the loop's thread, between its phases: the agents' percepts go out while ODE steps
        poses = loop.calls.call(read)
        for agent in agents:
            agent.close()
    return poses


def _yaw_diff(a: float, b: float) -> float:
    return (a - b + 180.0) % 360.0 - 180.0


def test_beams_are_noisy_within_rcssserver3ds_bounds_and_repeat_with_the_seed(
        running_server: Callable[..., Any]) -> None:
    exact = _beamed_poses(running_server, beam_noise=False)
    for (x, y, _), (ex, ey, _) in zip(exact, SPOTS, strict=True):  # off: where asked (but settling)
        assert abs(x - ex) < 0.01 and abs(y - ey) < 0.01
    noisy = _beamed_poses(running_server, beam_noise=True, seed=29)
    offsets = [(x - ex, y - ey, _yaw_diff(yaw, eyaw)) for (x, y, yaw), (ex, ey, eyaw) in zip(noisy, exact, strict=True)]
    for dx, dy, dyaw in offsets:
        assert abs(dx) <= 0.05 + 0.01 and abs(dy) <= 0.05 + 0.01 and abs(dyaw) <= 10.0 + 0.5, (dx, dy, dyaw)
    assert max(abs(dx) for dx, _, _ in offsets) > 0.01 and max(abs(dyaw) for _, _, dyaw in offsets) > 1.0
    again = _beamed_poses(running_server, beam_noise=True, seed=29)
    assert all(abs(a - b) < 1e-6 for pa, pb in zip(noisy, again, strict=True) for a, b in zip(pa, pb, strict=True))
    other = _beamed_poses(running_server, beam_noise=True, seed=30)
    assert any(abs(a[0] - b[0]) > 1e-4 for a, b in zip(noisy, other, strict=True))


def test_only_simspark_agents_beams_are_noisy() -> None:
    assert SIMSPARK_RULES.beam_noise == IN_PROCESS_RULES["simspark"].beam_noise == (0.05, 10.0)
    assert RCSSSMJ_RULES.beam_noise == IN_PROCESS_RULES["rcsssmj"].beam_noise == (0.0, 0.0)
    assert IN_PROCESS_RULES[""].beam_noise == LOCAL_RULES.beam_noise == (0.0, 0.0)  # ROS players, demo teams
