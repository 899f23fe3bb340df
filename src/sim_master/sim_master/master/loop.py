"""The simulation loop: one cycle as explicit phases, with adapters plugged in.

A cycle, in the manner of gz-sim's pre-update, update
and post-update:

1. collect: the agents' actions (sync mode: wait for each one's (syn), per-agent timeout);
2. apply: due effector commands (both references act one cycle after a command arrives);
3. step physics: the engine advances one cycle;
4. judge: the referee looks at the world and rules;
5. hear: say messages are delivered to whoever can hear them;
6. perceive: every player's percept goes to its outlet (TCP port, ROS topic, local brain);
7. publish: adapters see the finished cycle (monitors, replay log, ROS topics).

In sync mode on an engine that steps on a thread of its own (Feature.OVERLAPPED_STEP: ODE),
the agent ports' players are perceived as rcssserver3d perceives them: their percepts go out
while the physics steps, so the step runs while they think. Their percept of a cycle's state is
sent in the next cycle's step (6 moves into 3) and their answers, read in that cycle's collect,
act in its step; every percept, answer and its effect come in the same order and at the same
cycle as in the order above, only sooner. What acts at once (a scene, an init, an operator's
command) acts on the state after the step in progress rather than before it. Players in this
process (ROS players, local brains) are perceived after the step as above.

This core knows no ROS, no sockets and no file formats: transports, outlets and adapters
(`sim_master.master.adapters`) are registered by whoever starts the server
(`sim_master.server.single`). The engine is any `SimulationNode`. Everything here runs on
the loop's thread; other threads hand work in through LoopCalls.
"""
from __future__ import annotations

import gc
import logging
import math
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ParamSpec, cast

from sim_physics.engine.common import MODEL_ALIASES
from sim_physics.engine.league import off_league
from sim_physics.engine.node import Feature, OverlapsSteps, SimulationNode

from sim_contracts import names
from sim_contracts.agent_log import AgentLog
from sim_contracts.agents import (
    IN_PROCESS_RULES,
    LOCAL_RULES,
    SIMSPARK_RULES,
    AgentCommands,
    AgentConnected,
    AgentDisconnected,
    AgentError,
    AgentLagging,
    PlayerRules,
)
from sim_contracts.commands import Beam, Command, InitPlayer, JointTargets, JointVelocities, Say, Scene, Syn
from sim_contracts.logtext import clip
from sim_contracts.percept import GameStateView, Heard, Percept
from sim_master.master.adapters import AgentTransport, LocalBrain, LoopAdapter, PerceptOutlet
from sim_master.master.config import ServerConfig
from sim_master.master.control import SimulationControl
from sim_master.master.entity_services import EntityServices
from sim_master.master.ground_truth import ground_truth
from sim_master.master.hearing import Hearing, Listener, SaidMessage, Utterance, say_error
from sim_master.master.loop_calls import LoopCalls
from sim_master.master.pacing import RealTimePacer
from sim_master.master.players import Player, PlayerTable, Source
from sim_master.master.referee_world import EngineWorld
from sim_master.master.spawn import join_spot, parking_spot
from soccer_referee.events import GameEvent
from soccer_referee.referee import Referee
from soccer_referee.rules import rule_book
from soccer_referee.service import RefereeHost

_log = logging.getLogger("soccersim")
_P = ParamSpec("_P")

AVAILABLE_MODELS: tuple[str, ...] = ("nao", "nao0", "nao1", "nao2", "nao3", "nao4", "pusher")
# Robots of agents that have not joined a team yet (SimSpark's scene makes one before init):
# two teams' worth. A connection asking for more closes the one that has waited longest;
# each waiting robot costs every cycle, and the agent ports close a connection that joins no
# team (sim_bridge.agent_server).
MAX_WAITING_ROBOTS = 22


def _listening(adapters: list[LoopAdapter], hook: str) -> list[LoopAdapter]:
    """The adapters that do something in a per-player hook (the others keep LoopAdapter's
    no-op): called 22 times a cycle, a no-op through a fault boundary still costs."""
    default = getattr(LoopAdapter, hook)
    return [a for a in adapters if getattr(type(a), hook, default) is not default or hook in getattr(a, "__dict__", {})]


# The phases of a cycle, as the loop times them (vision apart from the rest of perceive).
PHASES = ("collect", "apply", "physics", "judge", "hear", "vision", "perceive", "publish")


@dataclass(slots=True)
class CycleStats:
    """The loop's own counters: cycles, and wall time per phase (what the benches report)."""

    cycles: int = 0
    started: float = field(default_factory=time.monotonic)
    phase_s: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PHASES, 0.0))
    realtime_ratio: float | None = None  # real time: game time / wall time over the pacer's last window

    def phase_ms_per_cycle(self) -> dict[str, float]:
        return {name: round(1000 * s / max(self.cycles, 1), 3) for name, s in self.phase_s.items()}

    def cycles_per_s(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.cycles / elapsed if elapsed > 0 else 0.0


CYCLE_S = 0.02  # wall time of a cycle in real-time mode at speed 1 (both references')
MAX_STEP_CYCLES = 1_000_000  # one step request runs at most this many cycles (5.5 h of sim time)


class SimulationLoop:
    """Players, referee and engine, cycled in phases. `run()` (blocking) or `cycle()`. What
    operators and services ask of it between cycles are two objects it owns: `control`
    (control.py: pause, step, settings, referee commands) and `entities` (entity_services.py:
    spawn, delete, set state, reset)."""

    def __init__(self, config: ServerConfig, engine: SimulationNode, *, log: logging.Logger = _log) -> None:
        self.config = config
        self.log = log
        self.engine = engine
        self.players = PlayerTable()
        self._robot_of: dict[tuple[str, int], str] = {}
        self.world = EngineWorld(self.engine, self._robot_of)
        overrides = {"half_time": config.half_time} if config.half_time else {}
        self.referee: RefereeHost = Referee.create(rule_book(config.rules, **overrides), self.world)
        self.referee.field = self.engine.field  # the world file is the one source of the field's figures
        self.local_brains: dict[str, LocalBrain] = {}
        self._before_kickoff_s = 0.0
        self.hearing = Hearing()
        self.calls = LoopCalls()
        self.stats = CycleStats()
        # Registered by whoever starts the server: agent ports by source, where each source's
        # percepts go, and the adapters that watch the cycle.
        self.transports: dict[Source, AgentTransport] = {}
        self.outlets: dict[Source, PerceptOutlet] = {"local": _LocalBrains(self)}
        self.adapters: list[LoopAdapter] = []
        self._listeners: dict[str, list[LoopAdapter]] = {}  # hook -> the adapters that do something in it
        self.stop_event = threading.Event()
        self.control = SimulationControl(self)  # pause, step, settings, operator commands
        self._parked = 0
        self._team_counts: dict[str, int] = {"left": 0, "right": 0}
        self.agent_log = AgentLog(log)  # what agents make the server say, bounded per agent
        self._utterances: list[Utterance] = []
        # this cycle's say messages with who heard them (side, unum): what monitors show
        self.said: list[SaidMessage] = []
        # Effector commands of legacy agents wait here for their dialect's delay (one cycle on
        # both references): (cycles still to wait, player, command).
        self._delayed: list[tuple[int, Player, Command]] = []
        self._reading_between_cycles = False  # real time: polling while waiting for the tick
        self._overlapped_now = False  # this cycle perceives the agent ports' players while it steps
        # what the agent ports' players heard in the last cycle, told with its state in this one's step
        self._heard_in_last_cycle: dict[str, list[Heard]] = {}
        # Inits of players whose robot enters the world after the cycle's step (rcsssmj's rules).
        self._joining: list[tuple[Player, InitPlayer]] = []
        self.cycle_hooks: list[Callable[[SimulationLoop, list[GameEvent]], None]] = []
        self.messaging_players: dict[str, Player] = {}
        self._adapter_faults: set[str] = set()
        self._in_process = 0  # in-process players (ROS, local) joined so far: their connection names
        self.entities = EntityServices(self)  # spawn, delete, set state, reset (entity_services.py)
        self._beam_rng = random.Random(config.seed)  # beam noise: the run's seed makes it repeat

    # ------------------------------------------------------------------ lifecycle
    def add_transport(self, source: Source, transport: AgentTransport) -> None:
        """An agent port: its events feed the collect phase, its agents get their percepts."""
        self.transports[source] = transport
        self.outlets[source] = transport

    def add_outlet(self, source: Source, outlet: PerceptOutlet) -> None:
        self.outlets[source] = outlet

    def add_adapter(self, adapter: LoopAdapter) -> None:
        self.adapters.append(adapter)
        self._listeners.clear()

    def _listening(self, hook: str) -> list[LoopAdapter]:
        """`_listening` of the adapters, found once per hook while the adapters stay the same
        (the per-player hooks are asked 22 times a cycle)."""
        found = self._listeners.get(hook)
        if found is None:
            found = self._listeners[hook] = _listening(self.adapters, hook)
        return found

    def close(self) -> None:
        """Stop: pending calls fail, a pending step request is released (stop always wins),
        adapters close in reverse order of registration, then the agent ports."""
        self.calls.fail_pending("server stopped")
        self.control.cancel_steps()
        for adapter in reversed(self.adapters):
            try:
                adapter.close()
            except Exception as exc:  # noqa: BLE001 - every part still gets closed
                self.log.error("closing %s failed: %s: %s", adapter.name, type(exc).__name__, exc)
        self.adapters.clear()
        for transport in self.transports.values():
            transport.close()
        self.transports.clear()

    def request_stop(self) -> None:
        self.stop_event.set()

    @property
    def paused(self) -> bool:
        """Held by an operator (control.py); what the adapters' view shows."""
        return self.control.paused

    def run(self) -> None:
        """Cycle until stopped (signal, killsim, max_cycles)."""
        pacer = RealTimePacer() if self.config.realtime and not self.config.sync else None
        idle: RealTimePacer | None = None
        self.calls.bind_to_current_thread()
        heap_settled_at = -1  # player count when the long-lived heap was last frozen
        while not self.stop_event.is_set():
            if len(self.players) != heap_settled_at:
                # What exists now (engine, models, players) lives for the match: the cyclic
                # collector stops re-scanning it. Its full passes over the whole heap were
                # 6 % of a 22-agent cycle; a cycle's own garbage is still collected.
                gc.freeze()
                heap_settled_at = len(self.players)
            if self.config.max_cycles is not None and self.stats.cycles >= self.config.max_cycles:
                break
            if pacer is not None:
                pacer.period = CYCLE_S / self.control.speed  # an operator may change the pace
                self._idle_until(pacer, between_cycles=True)
                self.stats.realtime_ratio = pacer.ratio
                while pacer.said:
                    self.log.warning("%s", pacer.said.pop(0))
            elif self.config.sync and not self._anyone_playing():
                # sync mode with no agent: the clock runs in real time, not flat out
                idle = idle or RealTimePacer()
                self._idle_until(idle)
                idle.said.clear()  # pacing an empty sync server: nothing to say about lag
            else:
                idle = None
            self.cycle()

    # ------------------------------------------------------------------ one cycle
    def cycle(self) -> bool:
        """One simulation cycle; returns False when paused (nothing simulated)."""
        # real time: a command handed in before this cycle takes its due ones (a ROS player's)
        # is read between cycles, as one read while waiting for the tick
        self._reading_between_cycles = self.config.realtime and not self.config.sync
        try:
            self._poll_services()
        finally:
            self._reading_between_cycles = False
        for adapter in self._listening("before_cycle"):
            self._adapter_hook(adapter, "before_cycle", adapter.before_cycle, self)
        if self.config.wait_for_teams and not (self.referee.state.team_left and self.referee.state.team_right):
            self._poll_agents(0.0)
            self._join_waiting()  # the teams this waits for join without a step
            time.sleep(0.002)
            return False
        if self.control.holds():
            self._poll_agents(0.0)  # inits wait for the next step
            time.sleep(0.002)
            return False
        clock = time.perf_counter
        phase = self.stats.phase_s
        t0 = clock()
        due = self._take_due_effectors()
        self._overlapped_now = self._overlapping()
        self._collect_agents()  # 1. collect (in sync mode: waiting for the agents)
        self.calls.run_pending(at_boundary=False)
        # the league engine may have changed with the first robot of an empty world, nobody owed
        self._overlapped_now = self._overlapping()
        if self._overlapped_now:
            self._cycle_overlapped(due + self._take_answers(), t0, clock())
            return True
        t1 = clock()
        self._apply_due(due)  # 2. apply
        t2 = clock()
        self._step_engine()  # 3. step physics
        t3 = clock()
        self._join_waiting()  # 3b. robots that enter the world unstepped (rcsssmj)
        t3b = clock()
        events = self._judge()  # 4. judge
        t4 = clock()
        heard = self._hear()  # 5. hear
        t5 = clock()
        vision_s, _ = self._perceive(heard)  # 6. perceive: vision, then percepts built, encoded and sent
        t6 = clock()
        self._publish(events)  # 7. publish
        t7 = clock()
        phase["collect"] += t1 - t0
        phase["apply"] += t2 - t1 + t3b - t3
        phase["physics"] += t3 - t2
        phase["judge"] += t4 - t3b
        phase["hear"] += t5 - t4
        phase["vision"] += vision_s
        phase["perceive"] += t6 - t5 - vision_s
        phase["publish"] += t7 - t6
        self.stats.cycles += 1
        self.control.cycle_done()
        return True

    def _overlapping(self) -> bool:
        """Whether this cycle perceives the agent ports' players while the engine steps: sync
        mode, on an engine that steps on its own thread (the league engine's choice may change
        while no robot is in the world), unless the run asks for the plain order."""
        return self.config.sync and self.config.overlap_step and Feature.OVERLAPPED_STEP in self.engine.features

    def _cycle_overlapped(self, due: list[tuple[Player, Command]], t0: float, t1: float) -> None:
        """The rest of a cycle whose step runs while the agent ports' players are perceived
        (the state before it, with what was heard in it: as they would have been at the end of
        the last cycle)."""
        clock = time.perf_counter
        phase = self.stats.phase_s
        window, heard_before = self._perceived_in_step, self._heard_in_last_cycle
        self._heard_in_last_cycle = {}
        t2 = clock()
        if any(type(command) is Beam for _, command in due):
            # a beam moves a robot before the step: the percepts of the state before it first
            vision_s, perceive_s = self._perceive(heard_before, window)
            applied = clock()
            self._apply_due(due)
            apply_s = clock() - applied
            self._step_engine()
        else:
            applied = clock()
            self._apply_due(due)
            apply_s = clock() - applied
            halves = cast(OverlapsSteps, self.engine)
            self._step_engine(halves.begin_step)
            try:
                vision_s, perceive_s = self._perceive(heard_before, window)
            finally:  # the step is taken whatever happened meanwhile
                self._step_engine(halves.finish_step)
        t3 = clock()
        self._join_waiting()
        t4 = clock()
        events = self._judge()
        t5 = clock()
        heard = self._hear()  # as in the plain order: who hears this cycle's says, where they stand now
        self._heard_in_last_cycle = heard  # for the agent ports' players, with this state, next cycle
        t6 = clock()
        end_vision_s, end_perceive_s = self._perceive(heard, lambda player: not window(player))
        t7 = clock()
        self._publish(events)
        t8 = clock()
        phase["collect"] += t1 - t0
        phase["apply"] += apply_s + t4 - t3
        phase["physics"] += t3 - t2 - apply_s - vision_s - perceive_s  # what the percepts did not hide
        phase["vision"] += vision_s + end_vision_s
        phase["perceive"] += perceive_s + end_perceive_s
        phase["judge"] += t5 - t4
        phase["hear"] += t6 - t5
        phase["publish"] += t8 - t7
        self.stats.cycles += 1
        self.control.cycle_done()

    def _perceived_in_step(self, player: Player) -> bool:
        """An agent port's player: perceived while the step runs (others after it)."""
        return player.source in self.transports

    def _apply_due(self, due: list[tuple[Player, Command]]) -> None:
        for player, command in due:
            if self.players.get(player.agent_id) is player:
                self._guarded(player, self._apply_effector, command)

    def _step_engine(self, step: Callable[[], None] | None = None) -> None:
        """The engine's step (or one of its halves) inside the loop's last fault boundary."""
        try:
            (step or self.engine.step)()  # engines roll back their own faults: engine/recovery.py
        except Exception as exc:  # noqa: BLE001 - the last boundary: a step no engine foresaw
            self._log_fault("physics step", exc)

    def _judge(self) -> list[GameEvent]:
        events = self.referee.step(self.engine.cycle_dt)
        if any(e.kind == "sides_swapped" for e in events):
            self._swap_sides()
        self._auto_kickoff()
        return events

    def _publish(self, events: Sequence[GameEvent]) -> None:
        for adapter in list(self.adapters):
            self._adapter_hook(adapter, "on_cycle", adapter.on_cycle, self, events)
        for hook in self.cycle_hooks:
            hook(self, list(events))

    def _adapter_hook(self, adapter: LoopAdapter, phase: str, hook: Callable[_P, None], *args: _P.args,
                      **kwargs: _P.kwargs) -> None:
        """One fault boundary per adapter: a failing monitor or log never stops the match.
        (Typed: mypy checks the loop is the view, or view and commands, each hook declares.)"""
        try:
            hook(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the boundary itself
            key = f"{adapter.name}:{phase}:{type(exc).__name__}"
            if key not in self._adapter_faults:
                self._adapter_faults.add(key)
                self.log.error("%s failed in %s: %s: %s (logged once)", adapter.name, phase, type(exc).__name__, exc)

    def tell_setting(self, name: str, value: object) -> None:
        """A live setting changed (control.py): every adapter's `on_setting`."""
        for adapter in list(self.adapters):
            self._adapter_hook(adapter, "on_setting", adapter.on_setting, name, value)

    def _anyone_playing(self) -> bool:
        return (bool(self.messaging_players) or bool(self.local_brains)
                or any(t.has_agents() for t in self.transports.values()))

    def _auto_kickoff(self) -> None:
        from soccer_referee.commands import KickOff
        from soccer_referee.play_modes import PlayMode

        after = self.config.kickoff_after
        s = self.referee.state
        if after is None or s.play_mode != PlayMode.BEFORE_KICK_OFF or not (s.team_left and s.team_right):
            self._before_kickoff_s = 0.0
            return
        self._before_kickoff_s += self.engine.cycle_dt
        if self._before_kickoff_s >= after:
            self.referee.command(KickOff(None))
            self._before_kickoff_s = 0.0

    def _swap_sides(self) -> None:
        """Half time with a change of ends: every registered player changes side."""
        self._robot_of.clear()
        for p in self.players:
            if p.registered:
                p.side = "right" if p.side == "left" else "left"
                p.announce = True  # the next GS tells the new side, as the first one after init did
                self._robot_of[(p.side, p.unum)] = p.robot_id
                brain = self.local_brains.get(p.agent_id)
                if brain is not None:
                    brain.set_side(p.side)
        self._team_counts = {"left": self._team_counts["right"], "right": self._team_counts["left"]}

    def _idle_until(self, pacer: RealTimePacer, *, between_cycles: bool = False) -> None:
        """Real time: keep sockets serviced while waiting for the next 20 ms tick.
        `between_cycles`: what agents send now is read in the coming cycle (see
        `_apply_command`)."""
        self._reading_between_cycles = between_cycles
        try:
            while True:
                remaining = pacer.remaining()
                if remaining <= 0.0005:
                    break
                self._poll_agents(min(remaining, 0.002))
                self._poll_services()
        finally:
            self._reading_between_cycles = False
        pacer.wait()

    # ------------------------------------------------------------------ agents
    def _poll_services(self) -> None:
        self.calls.run_pending()
        for adapter in list(self.adapters):
            self._adapter_hook(adapter, "poll", adapter.poll, self)

    def _poll_agents(self, timeout: float) -> None:
        for source, transport in self.transports.items():
            for event in transport.poll(timeout if len(self.transports) == 1 else 0.0):
                self._handle_event(source, event)
        if len(self.transports) != 1 and timeout > 0:
            time.sleep(timeout)

    def _collect_agents(self) -> None:
        for source, transport in self.transports.items():
            events = transport.collect_cycle(None, self.stop_event)  # real time: only what is there
            for event in events:
                self._handle_event(source, event)
        if self.config.sync:
            self._wait_for_ros_players()

    def _wait_for_ros_players(self) -> None:
        deadline = time.monotonic() + self.config.sync_timeout
        waiting = [p for p in self.messaging_players.values() if not p.lagging and p.answered_once]
        self.calls.run_pending(at_boundary=False)
        while waiting:
            # a player that left meanwhile (its publishers gone: removed by a call run here) is
            # not waited for: it would hold every cycle until the sync timeout
            waiting = [p for p in waiting if not p.synced and self.messaging_players.get(p.agent_id) is p]
            if not waiting or self.stop_event.is_set():
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                for p in waiting:
                    p.lagging = True
                    self.log.warning("ROS player %s did not synchronize within %.2f s: lagging",
                                     p.namespace, self.config.sync_timeout)
                break
            self.calls.wait_and_run(min(remaining, 0.1))  # asleep until a player's message is handed in
        for p in self.messaging_players.values():
            p.synced = False

    def _handle_event(self, source: Source, event: object) -> None:
        if isinstance(event, AgentCommands):
            player = self.players.get(event.agent_id)
            if player is None:
                return  # its connection was closed (refused, evicted) after these commands were read
            for command in event.commands:
                if type(command) is Syn:
                    continue  # the transport has taken it (sync mode's wait); nothing acts on it here
                if self.players.get(event.agent_id) is not player:
                    break  # a refused init removed it: the rest of its message has nobody to act on
                if not self._guarded(player, self._apply_command, command):
                    break
        elif isinstance(event, AgentConnected):
            transport = self.transports.get(source)
            self.players.add(Player(event.agent_id, source, rules=transport.rules if transport else SIMSPARK_RULES))
            self.log.info("agent %s connected from %s", event.agent_id, event.peer)
        elif isinstance(event, AgentDisconnected):
            self.log.info("agent %s left: %s", event.agent_id, event.reason)
            self.remove_player(event.agent_id)
        elif isinstance(event, AgentError):
            self.agent_log.warn(event.agent_id, event.message, once=True)
        elif isinstance(event, AgentLagging):
            self.log.warning("agent %s is lagging (it did not answer in time; not waited for until it does)",
                             event.agent_id)

    def _guarded(self, player: Player, handler: Callable[[Player, Command], None], command: Command) -> bool:
        """One fault boundary per client: a command that fails in a way nobody foresaw ends
        that agent's connection with a log line, never the match. False when it did."""
        try:
            handler(player, command)
            return True
        except Exception as exc:  # noqa: BLE001 - the boundary itself
            self.log.error("agent %s: %s on %s: %s; disconnected", player.agent_id, type(exc).__name__,
                           type(command).__name__, exc)
            transport = self.transports.get(player.source)
            if transport is not None:
                transport.disconnect(player.agent_id, f"internal error on its command: {type(exc).__name__}")
            self.remove_player(player.agent_id)
            return False

    def _take_answers(self) -> list[tuple[Player, Command]]:
        """The effector commands read in this cycle's collect that act in its step: those of
        players perceived while the last step ran (their wait 0, `_apply_command`)."""
        joining = {id(p) for p, _ in self._joining}
        due = [(p, c) for wait, p, c in self._delayed if wait == 0 and id(p) not in joining]
        if due:
            self._delayed = [e for e in self._delayed if e[0] != 0 or id(e[1]) in joining]
        return due

    def _take_due_effectors(self) -> list[tuple[Player, Command]]:
        # a player whose robot joins after this cycle's step keeps its commands for the next
        joining = {id(p) for p, _ in self._joining}
        due = [(p, c) for wait, p, c in self._delayed if wait <= 1 and id(p) not in joining]
        self._delayed = [(max(wait - 1, 1), p, c) for wait, p, c in self._delayed if wait > 1 or id(p) in joining]
        return due

    _EFFECTORS = (JointVelocities, JointTargets, Beam, Say)

    def _apply_command(self, player: Player, command: Command) -> None:
        delay = player.rules.effector_delay  # the dialect's timing (both references: one cycle)
        if delay > 0 and self._reading_between_cycles:
            # Real time: both references send a perception at the start of a cycle and read
            # the answers at the next cycle's start, so an answer read while we wait for the
            # tick belongs to the coming cycle, as one read in its collect phase does; taken
            # as due there, a prompt agent's command acted a cycle early (its perception
            # goes out at the end of ours), which threw FC Portugal and magmaOffenburg over.
            delay += 1
        if delay > 0 and isinstance(command, self._EFFECTORS):
            if self._overlapped_now and self._perceived_in_step(player):
                delay -= 1  # it answers the percept sent in the last step: acts in this cycle's
            self._delayed.append((delay, player, command))
            return
        self._apply_effector(player, command)

    def _apply_effector(self, player: Player, command: Command) -> None:
        if self.players.get(player.agent_id) is not player:
            return  # it left (or was refused) while the command waited for its cycle
        if isinstance(command, JointVelocities):
            if player.robot_id:
                self._report(player, self.engine.set_joint_velocities(player.robot_id, command.speeds))
                self._tell_adapters_effector(player, command)
        elif isinstance(command, JointTargets):
            if player.robot_id:
                self._report(player, self.engine.set_joint_pd(player.robot_id, command.targets))
                self._tell_adapters_effector(player, command)
        elif isinstance(command, Scene):
            self._create_robot(player, player.rules.scene_model(command.robot_type))
        elif isinstance(command, InitPlayer):
            self._init_player(player, command)
        elif isinstance(command, Beam):
            self._beam(player, command.x, command.y, command.rotation_deg)
        elif isinstance(command, Say):
            self._say(player, command.message)

    def _tell_adapters_effector(self, player: Player, command: Command) -> None:
        for adapter in self._listening("on_effector"):
            self._adapter_hook(adapter, "on_effector", adapter.on_effector, self, player, command)

    def _report(self, player: Player, errors: list[str]) -> None:
        """Log each distinct bad command of an agent once (agents repeat them every cycle),
        within the agent's log budget (sim_contracts/agent_log.py)."""
        for error in errors:
            self.agent_log.warn(player.agent_id, error, once=True)

    # ------------------------------------------------------------------ robots and teams
    def _create_robot(self, player: Player, model: str) -> str | None:
        """Create the player's robot; returns an error text or None."""
        model = MODEL_ALIASES.get(model, model)
        if player.robot_id:
            return f"agent {player.agent_id} already has a robot"
        waiting = [p for p in self.players if p.robot_id and not p.registered]
        if len(waiting) >= MAX_WAITING_ROBOTS:  # the one waiting longest makes room (a real agent inits at once)
            self._disconnect(waiting[0], f"{len(waiting)} robots wait to join a team: the longest waiting goes")
        x, y, yaw = parking_spot(self._parked, self.engine.field.length, self.engine.field.width)
        try:
            self.engine.add_robot(player.agent_id, model, x, y, yaw)
        except ValueError as exc:
            self.agent_log.warn(player.agent_id, str(exc))
            return clip(str(exc))
        self._parked += 1
        player.robot_id = player.agent_id
        player.model = model
        note = off_league(self.engine, player.robot_id, model)
        if note is not None:  # once per robot: not a silently worse match
            self.log.warning("%s", note)
        self.engine.set_vision(player.robot_id, player.rules.vision)
        return None

    def _init_player(self, player: Player, command: InitPlayer) -> None:
        refusal = player.rules.init_refusal(has_robot=bool(player.robot_id), joined=player.registered,
                                            joining=any(waiting is player for waiting, _ in self._joining))
        if refusal is not None:
            self.agent_log.warn(player.agent_id, refusal, once=True)
        elif player.rules.joins_after_step:
            self._joining.append((player, command))
        else:
            self._join(player, command)

    def _join_waiting(self) -> None:
        """The robots of the inits that wait for the step enter the world now."""
        joining, self._joining = self._joining, []
        for player, command in joining:
            if self.players.get(player.agent_id) is player:  # not gone meanwhile
                self._guarded(player, self._join, command)

    def _join(self, player: Player, command: Command) -> None:
        """An init's robot (unless `scene` made it) and its place in a team."""
        assert isinstance(command, InitPlayer)
        if not player.rules.robot_from_scene:
            error = self._create_robot(player, player.rules.init_model(command.model, None))
            if error is not None:
                self._refuse(player, error)
                return
        error = self.register(player, command.team, command.unum)
        if error is not None:
            self._refuse(player, error)

    def register(self, player: Player, team: str, unum: int) -> str | None:
        """Join the player's robot to a team through the referee; returns an error or None."""
        decision = self.referee.register(team, unum)  # the referee host checks name and number
        if not decision.success:
            return decision.error
        player.team, player.side, player.unum = team, decision.side, decision.unum
        player.announce = True
        transport = self.transports.get(player.source)
        if transport is not None:
            transport.mark_registered(player.agent_id)
        entity = names.player_entity(team, player.unum)  # the robot's name from now on
        self.engine.rename_robot(player.robot_id, entity)
        player.robot_id = entity
        self._robot_of[(player.side, player.unum)] = player.robot_id
        self.engine.set_label(player.robot_id, team, player.unum)
        count = self._team_counts[player.side]
        self._team_counts[player.side] = count + 1
        x, y, yaw = join_spot(player.rules.join_spots, player.side, player.unum, count, self.engine.field)
        self.engine.teleport_robot(player.robot_id, x, y, yaw)
        self.log.info("agent %s is %s #%d (%s) with %s", player.agent_id, team, player.unum,
                      player.side, player.model)
        return None

    def _disconnect(self, player: Player, reason: str) -> None:
        """Close the player's connection (an agent port's player) and remove it."""
        self.agent_log.warn(player.agent_id, f"disconnected: {reason}")
        transport = self.transports.get(player.source)
        if transport is not None:
            transport.disconnect(player.agent_id, reason)
        self.remove_player(player.agent_id)

    def _refuse(self, player: Player, error: str) -> None:
        self.agent_log.warn(player.agent_id, f"init refused: {error}")
        if player.rules.close_refused:  # rcsssmj closes the connection of a refused agent
            transport = self.transports.get(player.source)
            if transport is not None:
                transport.disconnect(player.agent_id, f"init refused: {error}")
            self.remove_player(player.agent_id)

    def remove_player(self, agent_id: str) -> None:
        player = self.players.remove(agent_id)
        if player is None:
            return
        self._delayed = [entry for entry in self._delayed if entry[1] is not player]
        self._joining = [entry for entry in self._joining if entry[0] is not player]
        if player.registered:
            self.referee.unregister(player.side, player.unum)
            self._robot_of.pop((player.side, player.unum), None)
        if player.robot_id and player.robot_id in self.engine.robot_ids():
            self.engine.remove_robot(player.robot_id)
        self.hearing.forget(agent_id)
        self.agent_log.forget(agent_id)
        self.messaging_players.pop(agent_id, None)
        self.local_brains.pop(agent_id, None)
        for adapter in self.adapters:
            self._adapter_hook(adapter, "on_player_left", adapter.on_player_left, self, agent_id)

    def _beam(self, player: Player, x: float, y: float, rotation: float) -> None:
        if not player.registered:
            self.agent_log.warn(player.agent_id, "beam before init ignored", once=True)
            return
        if not all(math.isfinite(v) for v in (x, y, rotation)):
            self._report(player, [f"beam with non-finite values ({x}, {y}, {rotation}) ignored"])
            return
        xy, deg = player.rules.beam_noise
        if self.config.beam_noise and (xy or deg):  # as rcssserver3d: before its clamps
            rng = self._beam_rng
            x, y, rotation = x + rng.uniform(-xy, xy), y + rng.uniform(-xy, xy), rotation + rng.uniform(-deg, deg)
        decision = self.referee.request_beam(player.side, player.unum, x, y, rotation, frame=player.rules.beam_frame)
        if not decision.success:
            self._report(player, [f"beam refused: {decision.error}"])
            return
        self.engine.teleport_robot(player.robot_id, decision.x, decision.y, decision.yaw_deg)

    def _say(self, player: Player, message: str) -> None:
        if not player.registered or not player.robot_id:
            return
        error = say_error(message)
        if error is not None:
            self._report(player, [error])
            return
        (x, y, _), _ = self.engine.robot_pose(player.robot_id)
        self._utterances.append(Utterance(player.agent_id, player.team, player.side, x, y, message))

    # ------------------------------------------------------------------ perceptions
    def game_view(self, player: Player) -> GameStateView:
        s = self.referee.state
        view = GameStateView(play_mode=s.play_mode.value, game_time=s.game_time,
                             score_left=s.score_left, score_right=s.score_right,
                             team_left=s.team_left, team_right=s.team_right)
        if player.announce:
            view.unum, view.side = player.unum, player.side
            player.announce = False
        return view

    def _hear(self) -> dict[str, list[Heard]]:
        """Say messages of this cycle, delivered to every registered player in range."""
        self.said = []
        if not self._utterances:
            return {}
        listeners = []
        for p in self.players.with_robots():
            if p.registered:
                (x, y, _), _ = self.engine.robot_pose(p.robot_id)
                listeners.append(Listener(p.agent_id, p.side, x, y))
        heard = self.hearing.deliver(self._utterances, listeners, self.referee.state.game_time)
        for u, agent_ids in zip(self._utterances, self.hearing.heard_by, strict=True):
            speaker = self.players.get(u.speaker)
            hearers = sorted((h.side, h.unum) for agent_id in agent_ids
                             if (h := self.players.get(agent_id)) is not None)
            self.said.append(SaidMessage(u.side, speaker.unum if speaker else 0, u.team, u.message, hearers))
        self._utterances = []
        return heard

    def _perceive(self, heard: dict[str, list[Heard]],
                  which: Callable[[Player], bool] | None = None) -> tuple[float, float]:
        """Percepts to every player (or those `which` picks); returns the seconds spent on
        vision, and on the rest."""
        started = time.perf_counter()
        # Who sees this cycle (each agent's own vision phase), computed for all at once.
        plan: list[tuple[Player, PerceptOutlet, bool, bool]] = []  # player, outlet, vision, with lines
        for player in self.players.with_robots():
            outlet = self.outlets.get(player.source)
            if outlet is None or (not player.rules.perceives_before_joining and not player.registered):
                continue
            if which is not None and not which(player):
                continue
            # only perceptions that carry field lines compute them
            plan.append((player, outlet, outlet.wants_vision(player.agent_id), player.rules.field_lines))
        if not plan:
            return 0.0, time.perf_counter() - started
        t0 = time.perf_counter()
        try:
            self.engine.prepare_vision([(p.robot_id, lines) for p, _, vision, lines in plan if vision])
        except Exception as exc:  # noqa: BLE001 - a fault boundary: percepts below compute their own
            self._log_fault("vision", exc)
        vision_s = time.perf_counter() - t0
        percept_listeners = self._listening("on_percept")
        for player, outlet, vision, lines in plan:
            try:
                percept = self.percept_for(player, vision, lines=lines)
                percept.heard = heard.get(player.agent_id, [])
                outlet.send_percept(player.agent_id, percept)
            except Exception as exc:  # noqa: BLE001 - one player's percept failing never stops the match
                self._log_fault(f"percept of {player.agent_id}", exc)
                continue
            for adapter in percept_listeners:
                self._adapter_hook(adapter, "on_percept", adapter.on_percept, self, player, percept)
        return vision_s, time.perf_counter() - started - vision_s

    def _log_fault(self, what: str, exc: Exception) -> None:
        """A server-side failure the match survives: logged once per kind, with its traceback."""
        key = f"{what}:{type(exc).__name__}"
        if key not in self._adapter_faults:
            self._adapter_faults.add(key)
            self.log.exception("%s failed: %s: %s (the match goes on; logged once)", what, type(exc).__name__, exc)

    def percept_for(self, player: Player, vision: bool, *, lines: bool = True) -> Percept:
        percept = self.engine.percept(player.robot_id, vision=vision, lines=lines)
        percept.game = self.game_view(player)
        if percept.vision is not None and self.config.ground_truth and player.registered:
            percept.vision.truth = ground_truth(self.engine, player.robot_id, player.side, self.config.ground_truth)
        return percept

    # ------------------------------------------------------------------ ROS-native players (loop thread)
    def add_messaging_player(self, team: str, unum: int, model: str, perception: str = "") -> Player | str:
        """InitAgent from ROS: a robot for /<team>/p<unum> that perceives (and beams) by
        `perception`'s rules; returns the player or an error."""
        if perception not in IN_PROCESS_RULES:
            return f"perception must be empty, simspark or rcsssmj, not {perception[:40]!r}"
        self._in_process += 1
        outcome = self._join_in_process(f"ros-{self._in_process}", "ros", team, unum, model,
                                        IN_PROCESS_RULES[perception])
        if isinstance(outcome, Player):
            self.messaging_players[outcome.agent_id] = outcome
        return outcome

    def _join_in_process(self, agent_id: str, source: Source, team: str, unum: int, model: str,
                         rules: PlayerRules) -> Player | str:
        """Robot plus registration for a player that is not a TCP agent; all or nothing."""
        player = self.players.add(Player(agent_id, source, rules=rules))
        error = self._create_robot(player, model)
        if error is None:
            error = self.register(player, team, unum)
        if error is not None:
            self.remove_player(agent_id)
            return error
        player.announce = False  # side and unum travel with every percept of these players
        return player

    def add_local_player(self, team: str, unum: int, model: str, brain: LocalBrain) -> Player | str:
        """A player whose brain runs in this process (built-in demo teams in `soccersim match`)."""
        self._in_process += 1
        player = self._join_in_process(f"local-{self._in_process}", "local", team, unum, model, LOCAL_RULES)
        if isinstance(player, str):
            return player
        self.local_brains[player.agent_id] = brain
        x, y, rot = brain.home()
        self._beam(player, x, y, rot)
        return player

    def player_joint_command(self, agent_id: str, command: JointVelocities | JointTargets | str) -> None:
        """A ROS player's joint command, already read from its message (or the reason it
        could not be read, reported like any bad command)."""
        player = self.players.get(agent_id)
        if player is None or not player.robot_id:
            return
        if isinstance(command, str):
            self._report(player, [command])
        else:
            self._apply_command(player, command)  # with its rules' effector delay

    def player_beam(self, agent_id: str, x: float, y: float, rotation: float) -> None:
        player = self.players.get(agent_id)
        if player is not None:
            self._apply_command(player, Beam(x, y, rotation))

    def player_say(self, agent_id: str, message: str) -> None:
        player = self.players.get(agent_id)
        if player is not None:
            self._apply_command(player, Say(message))

    def player_synchronize(self, agent_id: str) -> None:
        player = self.players.get(agent_id)
        if player is not None:
            player.synced = True
            player.answered_once = True
            if player.lagging:
                player.lagging = False
                self.log.info("ROS player %s answers again", player.namespace)



class _LocalBrains:
    """The outlet of in-process players (built-in demo teams): a brain answers each percept
    with joint speeds at once, inside the perceive phase."""

    def __init__(self, loop: SimulationLoop) -> None:
        self._loop = loop

    def wants_vision(self, agent_id: str) -> bool:
        return self._loop.local_brains[agent_id].wants_vision()

    def send_percept(self, agent_id: str, percept: Percept) -> None:
        loop = self._loop
        player = loop.players.get(agent_id)
        if player is None:
            return
        brain = loop.local_brains[agent_id]
        speeds = brain.act(percept)
        loop._report(player, loop.engine.set_joint_velocities(player.robot_id, speeds))
        beam = brain.beam_request()
        if beam is not None:
            loop.player_beam(agent_id, *beam)
