"""The replay log: every cycle's snapshot delta and every game event in an MCAP file with
ROS 2 message encoding (schemas 'ros2msg', messages CDR), readable by Foxglove and the mcap
tools. Chunks (zstd) are closed and the file flushed every `flush_every` cycles (1 s of sim
time by default), so a killed server loses at most the last second. Written on a thread of
its own: the loop only hands records over.

The format knows no ROS runtime: the writer is handed the serializer (the ROS layer passes
rclpy's CDR serializer) and the reader decodes with mcap_ros2's pure-Python decoder."""
from __future__ import annotations

import collections
import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Final

from mcap.writer import CompressionType, Writer
from sim_physics.snapshot import Snapshot

from sim_contracts.logtext import clip
from sim_master.store.msgdefs import message_definition
from sim_master.store.snapshot_records import snapshot_from_record

# The world's state: the live server's topic name, in the log too (logs written before
# issue 44 call it /snapshot; they are read as if they had this name)
SNAPSHOT_TOPIC: Final = "/entity_states"
LEGACY_TOPICS: Final = {"/snapshot": SNAPSHOT_TOPIC}
TOPICS: Final = {SNAPSHOT_TOPIC: "sim_msgs/msg/Snapshot", "/game_state": "sim_msgs/msg/GameState",
                 "/game_events": "sim_msgs/msg/GameEvent", "/clock": "rosgraph_msgs/msg/Clock",
                 "/tf": "tf2_msgs/msg/TFMessage", "/markers": "visualization_msgs/msg/MarkerArray",
                 "/drawings": "visualization_msgs/msg/MarkerArray"}  # agents' RoboViz drawings
# The QoS each topic is offered with live (rosbag2's channel metadata, so a player replays it
# the same way): (reliable, transient local, depth).
QOS: Final = {SNAPSHOT_TOPIC: (True, False, 10), "/game_state": (True, True, 1), "/game_events": (True, False, 50),
              "/clock": (True, False, 10), "/tf": (True, False, 10), "/markers": (True, False, 10),
              "/drawings": (True, True, 1)}
KEYFRAME_EVERY: Final = 500  # a full snapshot every 10 s of sim time, deltas in between


# What the loop may hand the writer before it waits for the disk: about 10 s of a 22-agent
# match (a cycle is 3-6 records); beyond it the loop waits, it never drops a record.
MAX_QUEUED: Final = 4096
WAKE_S: Final = 0.05  # the writer looks this often (sooner when a quarter of MAX_QUEUED waits)

Payload = Any  # a message to serialize, its CDR bytes, or a callable returning them


class ReplayLogWriter:
    """`serialize` turns a message of one of TOPICS' types into its CDR bytes.

    The loop's thread only hands records over: serializing, compressing and writing happen on
    the writer's own thread (issue 45: in the loop they were most of a logged cycle). A record
    may be a message, its bytes, or a callable making them, so building a message from plain
    data can move off the loop too. A failed disk is raised (once per call: the loop's adapter
    boundary says it once) from the next call, and the match goes on."""

    def __init__(self, path: str, serialize: Callable[[Any], bytes], *, flush_every: int = 50,
                 keyframe_every: int = KEYFRAME_EVERY, max_queued: int = MAX_QUEUED) -> None:
        self.path = path
        self._serialize = serialize
        self._file: BinaryIO = open(path, "wb")
        self._writer = Writer(self._file, chunk_size=256 * 1024, compression=CompressionType.ZSTD)
        self._writer.start(profile="ros2", library="soccersim")
        self._channels: dict[str, int] = {}
        self._schemas: dict[str, int] = {}
        self.flush_every = flush_every
        self.keyframe_every = keyframe_every
        self.cycles = 0  # handed over (the loop's count: keyframes follow it)
        self.error: str | None = None  # why the writer's thread stopped writing
        self._closed = False
        # a deque the loop appends to without a lock or a wake-up; the writer looks every
        # WAKE_S (or sooner when much is waiting) and writes what it finds in one go
        self._jobs: collections.deque[tuple[Any, ...] | None] = collections.deque()
        self._max_queued = max_queued
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._drain, name="replay-log", daemon=True)
        self._thread.start()
        for topic, msg_type in TOPICS.items():
            self.add_channel(topic, msg_type, QOS[topic])

    def add_channel(self, topic: str, msg_type: str, qos: tuple[bool, bool, int] = (True, False, 10)) -> None:
        """A topic beyond TOPICS (e.g. a player's percepts); adding one twice does nothing."""
        if topic in self._channels:
            return
        self._channels[topic] = -1  # known at once; registered in the file by the writer's thread
        self._put(("channel", topic, msg_type, qos))

    def write(self, topic: str, time: float, msg: Payload) -> None:
        """A message of `topic`'s type (or its bytes, or a callable making them)."""
        self._put(("message", topic, int(round(time * 1e9)), msg, False))

    def write_cycle(self, step: int, time: float, snapshot_msg: Payload, game_state_msg: Any | None,
                    event_msgs: list[Any], clock_msg: Any) -> None:
        # the cycle's game state and events before its snapshot, which closes the cycle for a
        # reader: the first cycle of a replay has its team names and sides (issue 30: grey robots
        # until one step), and a cycle's events come with that cycle, not the next
        ns = int(round(time * 1e9))
        self._put(("message", "/clock", ns, clock_msg, False))
        if game_state_msg is not None:
            self._put(("message", "/game_state", ns, game_state_msg, False))
        for event in event_msgs:
            self._put(("message", "/game_events", ns, event, False))
        self._put(("message", SNAPSHOT_TOPIC, ns, snapshot_msg, True))
        self.cycles += 1

    def wants_keyframe(self) -> bool:
        return self.cycles % self.keyframe_every == 0

    def flush(self) -> None:
        """Everything handed over so far is in the file when this returns."""
        flushed = threading.Event()
        self._put(("flush", flushed))
        self._wake.set()
        while not flushed.wait(0.1) and self._thread.is_alive():
            pass
        self._raise_if_failed()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self._thread.is_alive():
                self._jobs.append(None)
                self._wake.set()
                self._thread.join()
            if self.error is None:
                self._writer.finish()
                self._file.close()
                return
            with contextlib.suppress(OSError):  # the disk's error was said already
                self._file.close()

    def _put(self, job: tuple[Any, ...]) -> None:
        self._raise_if_failed()
        if self._closed:
            raise ValueError(f"replay log {self.path} is closed")
        if len(self._jobs) >= self._max_queued // 4:
            self._wake.set()  # much is waiting: the writer looks now
            while len(self._jobs) >= self._max_queued and self._thread.is_alive():
                time.sleep(0.001)  # the disk is behind: the loop waits, nothing is dropped
        self._jobs.append(job)

    def _raise_if_failed(self) -> None:
        if self.error is not None:
            raise OSError(f"replay log {self.path}: {self.error}; nothing more is written")

    # ------------------------------------------------------------------ the writer's thread
    def _drain(self) -> None:
        written = 0
        while True:
            self._wake.wait(WAKE_S)
            self._wake.clear()
            while self._jobs:
                job = self._jobs.popleft()
                if job is None:
                    return
                kind = job[0]
                if kind == "flush":
                    if self.error is None:
                        self._guarded(self._flush_now)
                    job[1].set()
                    continue
                if self.error is not None:
                    continue  # failed: what was handed over is let go, the loop hears it on its next call
                if kind == "message":
                    if self._guarded(self._message, *job[1:4]) and job[4]:  # a cycle's last record
                        written += 1
                        if written % self.flush_every == 0:
                            self._guarded(self._flush_now)
                elif kind == "channel":
                    self._guarded(self._register, *job[1:])

    def _guarded(self, work: Callable[..., Any], *args: Any) -> int:
        """One boundary: the disk or a record, never the match (the error stops the writing)."""
        try:
            work(*args)
            return 1
        except Exception as exc:  # noqa: BLE001 - the boundary itself
            self.error = f"{type(exc).__name__}: {exc}"
            return 0

    def _message(self, topic: str, ns: int, payload: Payload) -> None:
        data = payload() if callable(payload) else payload
        if not isinstance(data, (bytes, bytearray, memoryview)):
            data = self._serialize(data)
        self._writer.add_message(self._channels[topic], log_time=ns, publish_time=ns, data=bytes(data))

    def _register(self, topic: str, msg_type: str, qos: tuple[bool, bool, int]) -> None:
        schema = self._schemas.get(msg_type)
        if schema is None:
            schema = self._schemas[msg_type] = self._writer.register_schema(
                msg_type, "ros2msg", message_definition(msg_type).encode())
        self._channels[topic] = self._writer.register_channel(
            topic, "cdr", schema, metadata={"offered_qos_profiles": _qos_yaml(*qos)})

    def _flush_now(self) -> None:
        self._writer.flush()
        self._file.flush()


@dataclass(slots=True)
class ReplayCycle:
    step: int
    time: float
    snapshot: Snapshot  # full world state at this cycle (deltas merged)
    game_state: Any | None  # the last GameState message up to this cycle
    events: list[Any] = field(default_factory=list)
    drawings: Any | None = None  # the last /drawings MarkerArray up to this cycle (agents' drawings)


@dataclass(slots=True, frozen=True)
class ReplayCheckpoint:
    """Where reading can resume: the world and game state just before the cycle at `time`."""

    time: float
    world: Snapshot | None
    game_state: Any | None
    drawings: Any | None = None


@dataclass(slots=True)
class ReplayIndex:
    """What a replay viewer needs to know of a whole log before playing it: its time span,
    its decisions (goals, fouls) to jump to, and checkpoints to seek from."""

    start: float
    end: float
    cycles: int
    checkpoints: list[ReplayCheckpoint]
    events: list[tuple[float, Any]]  # (sim time, GameEvent message)

    def checkpoint_before(self, time: float) -> ReplayCheckpoint | None:
        best = None
        for checkpoint in self.checkpoints:
            if checkpoint.time > time + 1e-9:
                break
            best = checkpoint
        return best


def salvaged_records(f: BinaryIO, damage: list[str]) -> Iterator[Any]:
    """Every record of a log that can be read, in file order, whatever happened to the file:
    cut off by a crash (no summary, a record half written), a chunk whose bytes were damaged
    (skipped: the chunks after it are read), garbage where a record should start (reading
    stops there). What was lost is said in `damage` (one entry per kind). The one reader of
    damaged logs: replay and repair both read through it."""
    from mcap.records import Chunk, Footer
    from mcap.stream_reader import StreamReader, breakup_chunk

    lost_chunks, ended = 0, False
    records = StreamReader(f, emit_chunks=True).records
    while True:
        try:
            record = next(records)
        except StopIteration:
            break
        except Exception as exc:  # noqa: BLE001 - any garbage: what came before is kept
            if _is_truncation(exc):
                damage.append(f"cut off at byte {f.tell()} (its writer never closed it: a crash?)")
            else:
                damage.append(f"unreadable from byte {f.tell()} on ({type(exc).__name__}: {clip(str(exc), 80)})")
            ended = True
            break
        if isinstance(record, Footer):
            ended = True
        if isinstance(record, Chunk):
            try:
                inner = breakup_chunk(record, validate_crc=True)
            except Exception:  # noqa: BLE001 - a damaged chunk: skipped, the next ones read
                lost_chunks += 1
                continue
            yield from inner
        else:
            yield record
    if not ended:
        damage.append("cut off before its end (its writer never closed it: a crash?)")
    if lost_chunks:
        damage.append(f"{lost_chunks} damaged chunk(s) of about 1 s each skipped")


class ReplayLogReader:
    """Cycles of a log, world state rebuilt from keyframes and deltas. Works on files cut off
    by a crash (no summary) and on damaged ones: it reads what can be read
    (`salvaged_records`); `damage` says what could not, after a pass."""

    def __init__(self, path: str) -> None:
        check_log(path)
        self.path = path
        self.damage: list[str] = []

    def messages(self, since_ns: int | None = None) -> Iterator[tuple[str, int, Any]]:
        """(topic, log time ns, decoded message) in file order. Record by record, so a file
        without its summary (a killed writer) reads up to its last complete chunk. Messages
        logged before `since_ns` are skipped without being decoded (a seek)."""
        from mcap.records import Channel, Message, Schema
        from mcap_ros2.decoder import DecoderFactory

        factory = DecoderFactory()
        schemas: dict[int, Schema] = {}
        channels: dict[int, Channel] = {}
        decoders: dict[int, Callable[[bytes], Any]] = {}
        damage: list[str] = []
        undecoded = 0
        with open(self.path, "rb") as f:
            for record in salvaged_records(f, damage):
                if isinstance(record, Schema):
                    schemas[record.id] = record
                elif isinstance(record, Channel):
                    channels[record.id] = record
                elif isinstance(record, Message):
                    if since_ns is not None and record.log_time < since_ns:
                        continue
                    channel = channels.get(record.channel_id)
                    decoder = decoders.get(record.channel_id)
                    if decoder is None and channel is not None and channel.schema_id in schemas:
                        try:
                            decoder = factory.decoder_for(channel.message_encoding, schemas[channel.schema_id])
                        except Exception:  # noqa: BLE001 - a damaged schema: its messages are not read
                            decoder = None
                        if decoder is not None:
                            decoders[record.channel_id] = decoder
                    if channel is None or decoder is None:
                        undecoded += 1
                        continue
                    try:
                        msg = decoder(record.data)
                    except Exception:  # noqa: BLE001 - one damaged message: skipped
                        undecoded += 1
                        continue
                    yield LEGACY_TOPICS.get(channel.topic, channel.topic), record.log_time, msg
        if undecoded:
            damage.append(f"{undecoded} message(s) that could not be decoded skipped")
        self.damage = damage

    def cycles(self, start: ReplayCheckpoint | None = None) -> Iterator[ReplayCycle]:
        """Every cycle of the log, or those from a checkpoint of `index()` on."""
        world: Snapshot | None = start.world if start else None
        game_state = start.game_state if start else None
        drawings = start.drawings if start else None
        pending_events: list[Any] = []
        since = int(round(start.time * 1e9)) if start else None
        for topic, _, msg in self.messages(since):
            if topic == "/game_state":
                game_state = msg
            elif topic == "/game_events":
                pending_events.append(msg)
            elif topic == "/drawings":
                drawings = msg
            elif topic == SNAPSHOT_TOPIC:
                snap = snapshot_from_record(msg)
                world = snap if world is None or snap.full else world.merged(snap)
                yield ReplayCycle(snap.step, snap.time, world, game_state, pending_events, drawings)
                pending_events = []


    def index(self, every: int = 250, progress: Callable[[float], None] | None = None) -> ReplayIndex:
        """One pass over the log: its span, events, and a checkpoint every `every` cycles
        (memory: one world state per checkpoint, not per cycle). `progress` hears the log time
        read so far at each checkpoint (a long log under load takes a while)."""
        world: Snapshot | None = None
        game_state = drawings = None
        checkpoints: list[ReplayCheckpoint] = []
        events: list[tuple[float, Any]] = []
        count, first, last = 0, None, 0.0
        for topic, ns, msg in self.messages():
            if topic == "/game_state":
                game_state = msg
            elif topic == "/game_events":
                events.append((ns / 1e9, msg))
            elif topic == "/drawings":
                drawings = msg
            elif topic == SNAPSHOT_TOPIC:
                if count % every == 0:
                    checkpoints.append(ReplayCheckpoint(ns / 1e9, world, game_state, drawings))
                    if progress is not None:
                        progress(ns / 1e9)
                snap = snapshot_from_record(msg)
                world = snap if world is None or snap.full else world.merged(snap)
                first = ns / 1e9 if first is None else first
                last = ns / 1e9
                count += 1
        return ReplayIndex(first or 0.0, last, count, checkpoints, events)


MCAP_MAGIC: Final = b"\x89MCAP0\r\n"


class LogError(ValueError):
    """A file that is no replay log (one line for the user)."""


def check_log(path: str) -> None:
    """Raise LogError unless `path` is a readable MCAP file (its first bytes say so)."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(MCAP_MAGIC))
    except OSError as exc:
        raise LogError(f"{path}: {exc.strerror or exc}") from None
    if head != MCAP_MAGIC:
        what = "empty" if not head else "not an MCAP file"
        raise LogError(f"{path}: {what} (a replay log starts with the MCAP magic bytes)")


@dataclass(slots=True)
class RepairReport:
    messages: int
    schemas: int
    channels: int
    complete: bool  # the file already had its summary: nothing was missing
    last_time: float  # s, log time of the last message kept
    damage: list[str] = field(default_factory=list)  # what could not be read (salvaged_records)


def repair_log(path: str, out: str) -> RepairReport:
    """Copy every complete record of a log cut off by a crash (SIGKILL, a full disk: no
    footer, a chunk half written) into a new, complete MCAP file that any MCAP reader opens.
    What is lost is the chunk being written when the writer died (at most `flush_every`
    cycles, 1 s by default)."""
    from mcap.records import Channel, Footer, Message, Schema

    check_log(path)
    schemas: dict[int, int] = {}
    channels: dict[int, int] = {}
    count, last_ns, complete = 0, 0, False
    damage: list[str] = []
    with open(path, "rb") as src, open(out, "wb") as dst:
        writer = Writer(dst, chunk_size=256 * 1024, compression=CompressionType.ZSTD)
        writer.start(profile="ros2", library="soccersim repair")
        for record in salvaged_records(src, damage):
            if isinstance(record, Schema):
                schemas[record.id] = writer.register_schema(record.name, record.encoding, record.data)
            elif isinstance(record, Channel):
                channels[record.id] = writer.register_channel(
                    record.topic, record.message_encoding, schemas.get(record.schema_id, 0), record.metadata)
            elif isinstance(record, Message) and record.channel_id in channels:
                writer.add_message(channels[record.channel_id], log_time=record.log_time, data=record.data,
                                   publish_time=record.publish_time, sequence=record.sequence)
                count += 1
                last_ns = max(last_ns, record.log_time)
            elif isinstance(record, Footer):
                complete = True
        writer.finish()
    return RepairReport(count, len(schemas), len(channels), complete and not damage, last_ns / 1e9, damage)


def _is_truncation(exc: Exception) -> bool:
    text = f"{type(exc).__name__}: {exc}".lower()
    return any(word in text for word in ("end", "eof", "truncat", "short", "unexpected", "crc", "invalid"))


def _qos_yaml(reliable: bool, transient_local: bool, depth: int) -> str:
    """One offered QoS profile in rosbag2's YAML form (history 1 keep last; reliability 1
    reliable, 2 best effort; durability 1 transient local, 2 volatile; durations unset)."""
    unset = "{sec: 2147483647, nsec: 4294967295}"
    return (f"- history: 1\n  depth: {depth}\n  reliability: {1 if reliable else 2}\n"
            f"  durability: {1 if transient_local else 2}\n  deadline: {unset}\n  lifespan: {unset}\n"
            f"  liveliness: 1\n  liveliness_lease_duration: {unset}\n  avoid_ros_namespace_conventions: false")
