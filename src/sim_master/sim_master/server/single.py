"""Single mode: the simulation loop with the adapters its configuration asks for.

Why a module of its own: this is the one place that knows every part of the server. The
server owns a loop core (`master.loop`, `server.loop`) and gives it a physics engine (ODE,
MuJoCo or gz-physics), the TCP agent ports of both dialects, the monitor ports, the browser
monitor, the text service port, the replay log and the ROS node, each registered as a
transport, outlet or adapter; the core imports none of them.
`soccersim server`, `soccersim match` and the tests build the server through this class.
"""
from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from sim_physics.engine.factory import physics_engine
from sim_physics.engine.node import Feature, ReadsModelsAhead

from sim_bridge.agent_server import AgentServer
from sim_bridge.dialects import all_dialects
from sim_bridge.monitor_server import MonitorServer
from sim_bridge.service_port import ServicePort
from sim_master.master.adapters import LoopAdapter, OperatedLoop
from sim_master.master.config import ServerConfig
from sim_master.master.loop import AVAILABLE_MODELS, CycleStats, SimulationLoop
from sim_master.master.players import Source
from sim_master.server.draw_feed import DrawingFeed, DrawingPort
from sim_master.server.monitor_feed import LegacyMonitorFeed
from sim_master.server.service_feed import ServicePortFeed
from sim_master.server.services import register_services
from sim_master.server.web_feed import WebMonitorFeed

if TYPE_CHECKING:
    from sim_master.api.feed import ApiFeed
    from sim_master.monitor_web.server import WebMonitor
    from sim_master.ros.remote_referee import RemoteReferee
    from sim_master.ros.replay_log import ReplayLogRecorder
    from sim_master.ros.server_node import ServerNode

__all__ = ["AVAILABLE_MODELS", "SingleModeServer"]

_log = logging.getLogger("soccersim")


# Read before the ports open, as rcssserver3d loads its scene: the heterogeneous Naos every
# SimSpark team uses (on ODE each model file takes about 0.1 s to read, once).
PRELOADED_MODELS: tuple[str, ...] = ("nao0", "nao1", "nao2", "nao3", "nao4")


class SingleModeServer:
    """The embedded default server: the loop (`loop`) and the parts it is given. Call
    `start()`, then `run()` (blocking) or `loop.cycle()`."""

    def __init__(self, config: ServerConfig, *, log: logging.Logger = _log) -> None:
        engine = physics_engine(config.engine, config.world, vision_noise=config.vision_noise, seed=config.seed,
                                log=log.info, physics_threads=config.physics_threads)
        self.config = config
        self.log = log
        self.loop = SimulationLoop(config, engine, log=log)
        self.monitor_servers: dict[str, MonitorServer] = {}
        self.web_monitor: WebMonitor | None = None
        self.drawing: DrawingFeed | None = None
        self.service_port: ServicePort | None = None
        self.log_writer: ReplayLogRecorder | None = None
        self.ros: ServerNode | None = None
        self.ros_context: Any = None
        self._remote_referee: RemoteReferee | None = None
        self.api: ApiFeed | None = None  # the core API over gRPC, when it serves

    def _open_drawing_port(self) -> None:
        """Agents' RoboViz drawings (self.drawing) for the browser monitor and the log, unless the
        port is off or taken (a RoboViz running on this machine has it: the match goes on without)."""
        port = self.config.draw_port
        if port is None:
            return
        try:
            feed = DrawingFeed(DrawingPort(self.config.host, port))
        except OSError as exc:
            self.log.warning("drawing port: cannot listen on UDP %s:%d (%s); agents' drawings are not shown "
                             "(--draw-port)", self.config.host, port, exc.strerror or exc)
            return
        self.drawing = feed
        self.loop.add_adapter(feed)
        feed.start()

    @property
    def agent_servers(self) -> dict[Source, AgentServer]:
        """The TCP agent ports by dialect (the transports this assembly registered)."""
        return {source: t for source, t in self.loop.transports.items() if isinstance(t, AgentServer)}

    def start(self, ros_args: list[str] | None = None) -> None:
        c = self.config
        raise_open_files_limit()
        if c.referee not in ("internal", "external"):
            raise StartupError(f"--referee {c.referee[:40]}: internal or external")
        if c.referee == "external" and not c.ros:
            raise StartupError("--referee external: the referee is reached over ROS (drop --no-ros)")
        for source, dialect in all_dialects().items():
            port = c.agent_port(source)
            if port is None:
                continue
            server = AgentServer(dialect, c.host, port, sync=c.sync, sync_timeout=c.sync_timeout)
            _listen(server.start, f"{source}_port", c.host, port)
            self.loop.add_transport(cast(Source, source), server)
            self.log.info("%s agents: %s:%d", source, c.host, server.port)
        for name, port in (("simspark", c.simspark_monitor_port), ("rcsssmj", c.rcsssmj_monitor_port)):
            if port is not None:
                monitor = MonitorServer(name, c.host, port, allow_remote_commands=c.allow_remote_monitor_commands)
                _listen(monitor.start, f"{name}_monitor_port", c.host, port)
                self.monitor_servers[name] = monitor
        if self.monitor_servers:
            self.loop.add_adapter(LegacyMonitorFeed(self.monitor_servers))
        if c.web_port is not None or c.log_path:  # agents' drawings are shown and logged
            self._open_drawing_port()
        if c.web_port is not None:
            from sim_master.monitor_web.server import WebMonitor

            web = WebMonitor(c.host, c.web_port, allow_remote_commands=c.allow_remote_monitor_commands, live=True)
            try:
                web.start()
            except OSError as exc:  # a viewer only: the match goes on without it
                self.log.warning("browser monitor: cannot listen on %s:%d (%s); going on without it "
                                 "(--web-port)", c.host, c.web_port, exc.strerror or exc)
            else:
                self.web_monitor = web
                self.loop.add_adapter(WebMonitorFeed(web, self.drawing))
        if c.service_port is not None:
            self.service_port = ServicePort(c.host, c.service_port)
            register_services(self.service_port, self.loop, drawing=self.drawing)
            _listen(self.service_port.start, "service_port", c.host, c.service_port)
            self.loop.add_adapter(ServicePortFeed(self.service_port))
        if c.grpc_port is not None:
            self._start_api()
        if c.log_path:
            from sim_master.ros.replay_log import ReplayLogRecorder

            self.log_writer = ReplayLogRecorder(c.log_path, players=c.log_players, drawing=self.drawing)
            self.loop.add_adapter(self.log_writer)
            self.log.info("replay log: %s", c.log_path)
        if c.ros:
            self._start_ros(ros_args)
        if Feature.MODELS_READ_AHEAD in self.loop.engine.features:
            self.loop.add_adapter(ModelsReadAhead(cast(ReadsModelsAhead, self.loop.engine), PRELOADED_MODELS))
        self.loop.calls.bind_to_current_thread()
        self.loop.stats = CycleStats()

    def _start_api(self) -> None:
        """The core API over gRPC (api/): a surface for tools, so a port that is taken is said
        and the match goes on without it; a configuration that is unsafe is refused."""
        from sim_master.api.feed import ApiFeed
        from sim_master.api.server import Security, SetupError, read_pem

        c = self.config
        try:
            security = Security(c.grpc_token, read_pem(c.grpc_tls_cert, "--grpc-tls-cert"),
                                read_pem(c.grpc_tls_key, "--grpc-tls-key"), c.grpc_insecure)
            feed = ApiFeed(self.loop, c.grpc_host, c.grpc_port or 0, security,
                           drawing=None if self.drawing is None else self.drawing.shown)
        except SetupError as exc:
            raise StartupError(str(exc)) from None
        try:
            feed.start()
        except (RuntimeError, OSError) as exc:
            self.log.warning("gRPC API: cannot listen on %s:%s (%s); going on without it (--grpc-port)",
                             c.grpc_host, c.grpc_port, str(exc)[:120])
            return
        self.api = feed
        self.loop.add_adapter(feed)

    def _start_ros(self, ros_args: list[str] | None) -> None:
        import rclpy
        from rclpy.signals import SignalHandlerOptions

        from sim_master.ros.server_node import ServerNode

        external = self.config.referee == "external"
        self.ros_context = rclpy.Context()
        # the server's lines reach the console once, through Python's logging: ROS's own
        # console copy of what goes to /rosout is off
        rclpy.init(args=["soccersim", *(ros_args or []), "--ros-args", "--disable-stdout-logs"],
                   context=self.ros_context, signal_handler_options=SignalHandlerOptions.NO)
        ports: dict[str, int] = {source: server.port for source, server in self.agent_servers.items()}
        self.ros = ServerNode(self.loop, self.ros_context, self.config.node_name, referee=not external,
                              bridge_ports=ports, ros_args=ros_args, drawing=self.drawing)
        if external:
            from sim_master.ros.remote_referee import RemoteReferee
            from sim_master.ros.server_node import REFEREE_NODE

            loop = self.loop
            remote = RemoteReferee(self.ros_context, REFEREE_NODE, loop.referee.rules, loop.world,
                                   lambda: loop.engine.time, timeout=min(self.config.sync_timeout, 1.0))
            remote.field = loop.engine.field
            loop.referee = remote
            self._remote_referee = remote
        self.loop.add_outlet("ros", self.ros)
        self.loop.add_adapter(self.ros)
        self.ros.start()
        nodes = [self.ros.node, *(n.node for n in (self.ros.referee, self.ros.bridge) if n is not None)]
        self.log.info("ROS 2 nodes %s (domain %s)%s", ", ".join(n.get_fully_qualified_name() for n in nodes),
                      os.environ.get("ROS_DOMAIN_ID", "0"), "; the referee judges in its own process" if external
                      else "")

    def run(self) -> None:
        """Cycle until stopped (the loop's run)."""
        self.loop.run()

    def request_stop(self) -> None:
        self.loop.request_stop()

    def listening(self) -> list[str]:
        """Where this server listens, one line per port (printed by `soccersim server`)."""
        lines = [f"{name} agents: {self.config.host}:{server.port}" for name, server in self.agent_servers.items()]
        lines += [f"{name} monitors: {self.config.host}:{m.port}" for name, m in self.monitor_servers.items()]
        if self.web_monitor is not None:
            lines.append(f"browser monitor: {self.web_monitor.url}")
        if self.drawing is not None:
            lines.append(f"agents' drawings (RoboViz protocol): UDP {self.config.host}:{self.drawing.port.port}")
        mode = "sync" if self.config.sync else "real-time"
        if self.service_port is not None:
            lines.append(f"service port: {self.config.host}:{self.service_port.port}")
        if self.api is not None:
            lines.append(f"gRPC API (soccersim.v1): {self.api.server.address}")
        c = self.config
        threads = ""
        if c.engine in ("auto", "ode"):
            from sim_physics.engine.ode.engine import island_threads

            threads = f" (ODE on {island_threads(c.physics_threads)} threads)"
        lines.append(f"mode: {mode}; world: {c.world}; engine: {c.engine}{threads}; rules: {c.rules}")
        return lines

    def close(self) -> None:
        self.loop.close()  # adapters (ROS node, log, monitors, ports) close in reverse order
        if self._remote_referee is not None:
            self._remote_referee.close()
            self._remote_referee = None
        self.monitor_servers.clear()
        self.web_monitor = None
        self.drawing = None
        self.service_port = None
        self.api = None
        self.log_writer = None
        self.ros = None
        if self.ros_context is not None:
            import rclpy

            if self.ros_context.ok():
                rclpy.shutdown(context=self.ros_context)
            self.ros_context = None


class ModelsReadAhead(LoopAdapter):
    """The robot models are read on the loop's thread once the ports are open, one as each
    cycle begins (not in the polls between cycles) until all are (0.1-0.2 s each): the server
    accepts agents at once (issue 31: it read them all for 1.6-5 s before listening), and
    neither agents nor service calls wait for more than one model."""

    name = "models read ahead"

    def __init__(self, engine: ReadsModelsAhead, models: tuple[str, ...]) -> None:
        self._engine = engine
        self._models = models
        self._unread = list(models)
        self._started = time.perf_counter()

    def before_cycle(self, loop: OperatedLoop) -> None:
        if not self._unread:
            return
        model = self._unread.pop(0)
        try:
            self._engine.prepare_models([model])
        except (ValueError, OSError) as exc:  # a broken model file: its robots are refused at join
            loop.log.warning("robot model %s not read ahead: %s", model, exc)
        if not self._unread:
            loop.log.info("robot models %s read in %.2f s", ", ".join(self._models),
                          time.perf_counter() - self._started)


class StartupError(RuntimeError):
    """A port the configuration asks for cannot be had: one line naming its flag."""


def raise_open_files_limit(want: int = 65536) -> int:
    """Every agent, page and monitor is a socket: the soft limit on open files (often 1024) is
    raised to the hard one, so a crowd of idle connections on one surface cannot leave no
    descriptor for an agent that joins. Returns the limit now in force."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def _listen(start: Callable[[], None], setting: str, host: str, port: int) -> None:
    try:
        start()
    except OSError as exc:
        flag = "--" + setting.replace("_", "-")
        raise StartupError(f"{flag} {port}: cannot listen on {host}:{port} ({exc.strerror or exc})") from exc
