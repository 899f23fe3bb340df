"""The replay log as a loop adapter: every cycle's snapshot (keyframes and deltas), game state
changes and events, written as ROS 2 messages into the MCAP file (`store.mcap_log`).

Why in the ROS layer: the log's records are sim_msgs messages in CDR, so building and
serializing them needs the message classes; the MCAP format itself stays in the store."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from rclpy.serialization import serialize_message
from rosgraph_msgs.msg import Clock

from sim_master.master.adapters import LoopAdapter
from sim_master.ros.convert import snapshot_to_msg, stamp
from sim_master.ros.frames import tf_message
from sim_master.store.mcap_log import ReplayLogWriter
from sim_msgs.msg import GameState
from soccer_referee.ros.messages import event_to_msg, game_key, game_state_to_msg

if TYPE_CHECKING:
    from sim_master.master.loop import SimulationLoop
    from soccer_referee.events import GameEvent


TF_EVERY: Final = 5


class ReplayLogRecorder(LoopAdapter):
    name = "replay log"

    def __init__(self, path: str) -> None:
        self.writer = ReplayLogWriter(path, serialize_message)
        self._last_game: GameState | None = None

    def on_cycle(self, loop: SimulationLoop, events: Sequence[GameEvent]) -> None:
        engine = loop.engine
        t = stamp(engine.time)
        game = game_state_to_msg(loop.referee.state, t)
        snap = engine.snapshot() if self.writer.wants_keyframe() else engine.delta()
        changed = self._last_game is None or game_key(self._last_game) != game_key(game)
        self.writer.write_cycle(engine.cycle, engine.time, snapshot_to_msg(snap), game if changed else None,
                                [event_to_msg(e, t) for e in events], Clock(clock=t))
        self._last_game = game
        if engine.cycle % TF_EVERY == 0:  # frames for Foxglove's 3D panel, 10 Hz of sim time
            names, poses = engine.frames()
            self.writer.write("/tf", engine.time, tf_message(names, poses, t))

    def close(self) -> None:
        self.writer.close()
