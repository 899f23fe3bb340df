"""The replay log as a loop adapter: every cycle's snapshot (keyframes and deltas), game state
changes and events, written as ROS 2 messages into the MCAP file (`store.mcap_log`).

Why in the ROS layer: the log's records are sim_msgs messages in CDR, so building and
serializing them needs the message classes; the MCAP format itself stays in the store."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from rclpy.serialization import serialize_message
from rosgraph_msgs.msg import Clock
from sim_physics.engine.node import DeltaMemory

from sim_master.master.adapters import LoopAdapter
from sim_master.ros.convert import joint_command_msg, percept_to_msg, stamp
from sim_master.ros.drawings import DrawingSource, marker_view
from sim_master.ros.frames import tf_cdr
from sim_master.ros.markers import loop_marks, match_markers
from sim_master.ros.names import player_namespace
from sim_master.ros.snapshot_cdr import snapshot_cdr
from sim_master.store.log_precision import frames_for_log, vectors_for_log
from sim_master.store.mcap_log import ReplayLogWriter
from sim_msgs.msg import GameState
from soccer_referee.ros.messages import event_to_msg, game_key, game_state_to_msg

if TYPE_CHECKING:
    from sim_contracts.commands import Command
    from sim_contracts.percept import Percept
    from sim_master.master.adapters import CycleView
    from sim_master.master.players import Player
    from soccer_referee.events import GameEvent


# /tf and the match's markers in the log: 2.5 Hz of sim time (the snapshot, every cycle, is what
# a replay draws; these are for tools that open the file, as Foxglove's 3D panel). At 10 Hz
# they were a third of a match's log (issue 45: a full match in under 100 MB).
FRAMES_EVERY: Final = 20


class ReplayLogRecorder(LoopAdapter):
    name = "replay log"

    def __init__(self, path: str, *, players: bool = False, drawing: DrawingSource | None = None) -> None:
        self.drawing = drawing  # agents' RoboViz drawings (server/draw_feed.py), when their port is open
        self.writer = ReplayLogWriter(path, serialize_message)
        self._last_game: GameState | None = None
        self._drawn_version = -1  # agents' drawings: written when what is shown changes
        self.players = players  # also every player's percepts and joint commands (big: opt-in)
        self._delta_memory: DeltaMemory = {}  # what the log's deltas were taken against

    def on_setting(self, name: str, value: object) -> None:
        if name == "log_players":
            self.players = bool(value)

    def _player_topic(self, loop: CycleView, player: Player, leaf: str, msg_type: str) -> str | None:
        if not player.registered:
            return None
        topic = f"{player_namespace(player.team, player.unum)}/{leaf}"
        # offered as live (sim_bridge.ros.qos.PERCEPT_QOS for percepts: reliable, the last 5)
        self.writer.add_channel(topic, msg_type, (True, False, 5) if leaf == "percept" else (True, False, 10))
        return topic

    def on_percept(self, loop: CycleView, player: Player, percept: Percept) -> None:
        if self.players:
            topic = self._player_topic(loop, player, "percept", "sim_msgs/msg/Percept")
            if topic is not None:
                t = stamp(percept.time)
                self.writer.write(topic, percept.time, percept_to_msg(percept, t, player.side, player.unum))

    def on_effector(self, loop: CycleView, player: Player, command: Command) -> None:
        if not self.players:
            return
        msg = joint_command_msg(command)
        topic = self._player_topic(loop, player, "effectors/joint_command", "sim_msgs/msg/JointCommand")
        if msg is not None and topic is not None:
            self.writer.write(topic, loop.engine.time, msg)

    def on_cycle(self, loop: CycleView, events: Sequence[GameEvent]) -> None:
        """Only what must be read now is read on the loop's thread (the world's delta, the
        frames' poses, the game): building, rounding and serializing the records is done by
        the writer's thread."""
        engine = loop.engine
        t = stamp(engine.time)
        game = game_state_to_msg(loop.referee.state, t)
        changed = self._last_game is None or game_key(self._last_game) != game_key(game)
        capture, keyframe = engine.capture(), self.writer.wants_keyframe()

        def snapshot_bytes() -> bytes:  # (the writer's thread, in the order of the cycles)
            # deltas against the log's own memory: the engine's is a distributed node's
            moved, removed = (capture.entities, ()) if keyframe else capture.changes(self._delta_memory)
            return snapshot_cdr(capture.step, capture.time, keyframe, vectors_for_log(moved), removed)

        self.writer.write_cycle(engine.cycle, engine.time, snapshot_bytes, game if changed else None,
                                [event_to_msg(e, t) for e in events], lambda: Clock(clock=t))
        self._last_game = game
        drawn = marker_view(self.drawing)  # agents' RoboViz drawings, drawn off this thread
        if drawn is not None and drawn[0] != self._drawn_version:
            self._drawn_version = drawn[0]
            self.writer.write("/drawings", engine.time, drawn[1])
        if engine.cycle % FRAMES_EVERY == 0:  # frames for Foxglove's 3D panel
            names, poses = engine.frames()
            models = {rid: engine.robot_model(rid) for rid in engine.robot_ids()}
            self.writer.write("/tf", engine.time, lambda: tf_cdr(names, poses, t, models, rounding=frames_for_log))
            field, ball, robots = loop_marks(loop)
            self.writer.write("/markers", engine.time, lambda: match_markers(field, ball, robots, t))

    def close(self) -> None:
        self.writer.close()
