"""Settings of one server run (the `soccersim server` flags)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class ServerConfig:
    sync: bool = False  # wait for every agent's (syn) each cycle; otherwise real time
    realtime: bool = True  # pace to 20 ms per cycle (sync mode without it runs as fast as agents answer)
    host: str = "127.0.0.1"
    simspark_port: int | None = 3100  # None disables a port; 0 picks a free one
    simspark_monitor_port: int | None = 3200
    rcsssmj_port: int | None = 60000
    rcsssmj_monitor_port: int | None = 60001
    service_port: int | None = 4000
    web_port: int | None = None  # browser monitor (None: off)
    # the core API over gRPC (soccersim.v1; `soccersim server` serves it on 50051; None: off)
    grpc_port: int | None = None
    grpc_host: str = "127.0.0.1"  # another address needs TLS and a token, or grpc_insecure
    grpc_tls_cert: str | None = None  # PEM files
    grpc_tls_key: str | None = None
    grpc_token: str = ""  # every call but health and reflection carries it ("": none)
    grpc_insecure: bool = False
    # agents' debug drawings (RoboViz's UDP protocol), drawn by the browser monitor (None: off)
    draw_port: int | None = None
    world: str = "simspark_field"
    # physics: auto (each league's: ODE for SimSpark robots, MuJoCo for rcsssmj), mujoco, ode, gazebo
    engine: str = "auto"
    # sync mode: the agent ports' players are perceived while the physics steps (rcssserver3d's
    # order; sim_master/master/loop.py); False: after it, as in real time
    overlap_step: bool = True
    physics_threads: int = 0  # ODE's islands on this many threads, same results on any; 0: one per core, up to 4
    rules: str = "simspark"
    log_path: str | None = None
    log_players: bool = False  # the replay log also holds every player's percepts and joint commands
    seed: int | None = None
    # per cycle, s: how long sync mode waits for a silent agent before it plays on without it
    # (rcssservermj waits 5 s; rcssserver3d waits for ever)
    sync_timeout: float = 5.0
    allow_remote_monitor_commands: bool = False
    ros: bool = True  # run the in-process ROS 2 node
    node_name: str = "soccersim"
    # internal: the referee judges in this process, every cycle in lockstep; external: a
    # referee_node in its own process judges over DDS (soccer_referee/ros/judge.py)
    referee: str = "internal"
    max_cycles: int | None = None  # stop after this many cycles (matches, tests)
    vision_noise: bool = True
    beam_noise: bool = True  # SimSpark agents' beams land within +-0.05 m, +-10 deg (rcssserver3d's)
    kickoff_after: float | None = None  # kick off by itself after this long in BeforeKickOff (s)
    wait_for_teams: bool = False  # hold the simulation until both teams have a player
    half_time: float | None = None  # override the rule book's half length (s of game time)
    # ground truth in each See (rcssserver3d's SenseMyPos/SenseMyOrien/SenseBallPos; off there too)
    ground_truth: tuple[str, ...] = ()  # of mypos, myorien, ballpos
    tf_rate: float = 10.0  # /tf messages per second of sim time (a ROS parameter that may change live)

    def agent_port(self, dialect: str) -> int | None:
        """The TCP agent port of a dialect (`<dialect>_port`; None: off)."""
        port = getattr(self, f"{dialect}_port", None)
        return port if isinstance(port, int) else None
