"""RoboViz's debug-drawing protocol (UDP, port 32769 by default): what agents send a monitor to
draw their world model, paths and roles. Parsed here into shapes, kept in named sets as RoboViz
keeps them; no RoboViz code, written from its published protocol.

A datagram holds one or more commands, each `type subtype` (one byte each) then its fields:
numbers are 6 ASCII characters (`"%6f"`, e.g. `-1.235` or `12.000`), colours 3 (or 4) bytes
0-255, text and set names NUL-terminated.

| type subtype | command | fields |
|---|---|---|
| 0 0 | buffer swap | set name (prefix) |
| 1 0 | circle | x y radius thickness, rgb, set |
| 1 1 | line | x1 y1 z1 x2 y2 z2 thickness, rgb, set |
| 1 2 | point | x y z size, rgb, set |
| 1 3 | sphere | x y z radius, rgb, set |
| 1 4 | polygon | n (byte), rgba, n x (x y z), set |
| 2 0 | annotation | x y z, rgb, text, set |
| 2 1 | agent annotation | agent byte (left: unum-1, right: 128+unum-1), rgb, text |
| 2 2 | remove agent annotation | agent byte |
| 3 0 | select agent | agent byte |

Shapes go to their set's pending buffer; a buffer swap shows, for every set whose name starts
with the swapped name, what was drawn since its last swap (RoboViz's double buffering: an agent
redraws a set each cycle and swaps it). Everything is bounded (sets, shapes per set, shapes in
all, text), so a flood of datagrams costs memory once, not without end; each set carries a
version, so what is drawn from the board (markers, the browser's JSON) is rebuilt only for the
sets that changed."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

DEFAULT_PORT = 32769
MAX_SETS = 256
MAX_SHAPES_PER_SET = 2000
MAX_SHAPES = 20000  # pending and shown, over every set: what one rebuild of the drawings costs at most
# One sender's share (sets it made, and the shapes in them): a team's eleven agents drawing
# side by side each keep room, whatever one of them sends.
MAX_SETS_PER_SENDER = 64
MAX_SHAPES_PER_SENDER = 5000
MAX_TEXT = 200  # characters of an annotation or set name kept
NUMBER_WIDTH = 6


class DrawProtocolError(ValueError):
    """A datagram (or the rest of one) that is not the drawing protocol."""


@dataclass(frozen=True, slots=True)
class Shape:
    """One drawn thing, as the browser monitor draws it (JSON-ready with `to_dict`)."""

    kind: str  # circle, line, point, sphere, polygon, text
    points: tuple[tuple[float, float, float], ...]  # centre / ends / vertices / anchor (m)
    size: float  # radius (circle, sphere), size in pixels (point); 0 otherwise
    color: tuple[int, int, int, int]  # rgba 0-255
    text: str = ""
    width: float = 0.0  # line thickness in pixels (circle, line)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "points": [list(p) for p in self.points], "size": self.size,
                               "color": list(self.color), "width": self.width}
        if self.text:
            out["text"] = self.text
        return out


@dataclass(frozen=True, slots=True)
class Draw:
    set_name: str
    shape: Shape


@dataclass(frozen=True, slots=True)
class Swap:
    prefix: str


@dataclass(frozen=True, slots=True)
class AgentAnnotation:
    side: str  # left / right
    unum: int
    text: str | None  # None: remove it
    color: tuple[int, int, int, int] = (255, 255, 255, 255)


@dataclass(frozen=True, slots=True)
class SelectAgent:
    side: str
    unum: int


Command = Draw | Swap | AgentAnnotation | SelectAgent


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def more(self) -> bool:
        return self.at < len(self.data)

    def byte(self, what: str) -> int:
        if self.at >= len(self.data):
            raise DrawProtocolError(f"{what}: datagram ends at byte {self.at}")
        value = self.data[self.at]
        self.at += 1
        return value

    def number(self, what: str) -> float:
        raw = self.data[self.at:self.at + NUMBER_WIDTH]
        if len(raw) < NUMBER_WIDTH:
            raise DrawProtocolError(f"{what}: datagram ends at byte {self.at}")
        self.at += NUMBER_WIDTH
        try:
            value = float(raw.decode("ascii").strip("\x00 "))
        except (UnicodeDecodeError, ValueError):
            raise DrawProtocolError(f"{what}: {raw!r} is not a number") from None
        if not math.isfinite(value) or abs(value) > 1e5:
            raise DrawProtocolError(f"{what}: {value} is out of range")
        return value

    def point(self, what: str) -> tuple[float, float, float]:
        return (self.number(what), self.number(what), self.number(what))

    def color(self, channels: int) -> tuple[int, int, int, int]:
        rgba = [self.byte("colour") for _ in range(channels)]
        return (rgba[0], rgba[1], rgba[2], rgba[3] if channels == 4 else 255)

    def text(self, what: str) -> str:
        end = self.data.find(b"\x00", self.at)
        if end < 0:
            raise DrawProtocolError(f"{what}: no terminating NUL")
        raw = self.data[self.at:end]
        self.at = end + 1
        return raw.decode("utf-8", "replace")[:MAX_TEXT]

    def agent(self) -> tuple[str, int]:
        value = self.byte("agent")
        side, index = ("right", value - 128) if value >= 128 else ("left", value)
        if index > 98:
            raise DrawProtocolError(f"agent byte {value}: no such player")
        return side, index + 1


def parse_datagram(data: bytes) -> list[Command]:
    """Every command of one datagram, in order; a malformed one ends the datagram there
    (DrawProtocolError carries the commands before it in `args[1]`)."""
    reader = _Reader(data)
    commands: list[Command] = []
    try:
        while reader.more():
            commands.append(_command(reader))
    except DrawProtocolError as exc:
        raise DrawProtocolError(str(exc), commands) from None
    return commands


def _command(r: _Reader) -> Command:
    kind, sub = r.byte("type"), r.byte("subtype")
    if kind == 0 and sub == 0:
        return Swap(r.text("set name"))
    if kind == 1 and sub == 0:
        x, y, radius, thickness = (r.number("circle") for _ in range(4))
        return _draw(r, Shape("circle", ((x, y, 0.0),), abs(radius), r.color(3), width=abs(thickness)))
    if kind == 1 and sub == 1:
        a, b, thickness = r.point("line"), r.point("line"), r.number("line")
        return _draw(r, Shape("line", (a, b), 0.0, r.color(3), width=abs(thickness)))
    if kind == 1 and sub == 2:
        p, size = r.point("point"), r.number("point")
        return _draw(r, Shape("point", (p,), abs(size), r.color(3)))
    if kind == 1 and sub == 3:
        p, radius = r.point("sphere"), r.number("sphere")
        return _draw(r, Shape("sphere", (p,), abs(radius), r.color(3)))
    if kind == 1 and sub == 4:
        n = r.byte("polygon vertices")
        if n < 2:
            raise DrawProtocolError(f"a polygon of {n} vertices")
        color = r.color(4)
        vertices = tuple(r.point("polygon") for _ in range(n))
        return _draw(r, Shape("polygon", vertices, 0.0, color))
    if kind == 2 and sub == 0:
        p, color = r.point("annotation"), r.color(3)
        text = r.text("annotation")
        return _draw(r, Shape("text", (p,), 0.0, color, text))
    if kind == 2 and sub == 1:
        side, unum = r.agent()
        color = r.color(3)
        return AgentAnnotation(side, unum, r.text("agent annotation"), color)
    if kind == 2 and sub == 2:
        side, unum = r.agent()
        return AgentAnnotation(side, unum, None)
    if kind == 3 and sub == 0:
        side, unum = r.agent()
        return SelectAgent(side, unum)
    raise DrawProtocolError(f"unknown command {kind} {sub}")


def _draw(r: _Reader, shape: Shape) -> Draw:
    return Draw(r.text("set name"), shape)


def _count(counts: dict[object, int], key: object, change: int) -> None:
    """A per-sender count changed; a sender with nothing left is forgotten (senders come and go)."""
    left = counts.get(key, 0) + change
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


@dataclass(slots=True)
class _Set:
    pending: list[Shape] = field(default_factory=list)
    shown: list[Shape] = field(default_factory=list)
    version: int = 0  # the board's version when what it shows last changed
    dicts: list[dict[str, Any]] | None = None  # `shown` as JSON-ready dicts, built once per version
    owner: object = None  # the sender that made it: its shapes count against that sender's share


class DrawingBoard:
    """The drawings agents sent, as RoboViz keeps them: per named set a pending buffer (being
    drawn) and a shown one (last swapped), plus a text over each annotated agent. `version`
    grows with every change of what is shown, so a viewer re-sends only when it moved; each
    set's own version tells which sets a viewer must rebuild."""

    def __init__(self, max_sets: int = MAX_SETS, max_shapes: int = MAX_SHAPES_PER_SET,
                 max_total: int = MAX_SHAPES, max_sets_per_sender: int = MAX_SETS_PER_SENDER,
                 max_shapes_per_sender: int = MAX_SHAPES_PER_SENDER) -> None:
        self._sets: dict[str, _Set] = {}
        self._max_sets, self._max_shapes, self._max_total = max_sets, max_shapes, max_total
        self._per_sender = (max_sets_per_sender, max_shapes_per_sender)
        self._sets_of: dict[object, int] = {}  # sender -> sets it made
        self._shapes_of: dict[object, int] = {}  # sender -> shapes held in its sets
        self._total = 0  # shapes held, pending and shown
        self.agent_text: dict[tuple[str, int], tuple[str, tuple[int, int, int, int]]] = {}
        self.selected: tuple[str, int] | None = None
        self.version = 0
        self.dropped = 0  # shapes refused (a full set, too many sets, too many shapes)

    def apply(self, command: Command, sender: object = None) -> None:
        """`sender`: who sent it (address and port), whose share a new set and its shapes take."""
        if isinstance(command, Draw):
            entry = self._sets.get(command.set_name)
            owner = sender if entry is None else entry.owner
            if ((entry is not None and len(entry.pending) >= self._max_shapes) or self._total >= self._max_total
                    or self._shapes_of.get(owner, 0) >= self._per_sender[1]):
                self.dropped += 1  # (checked before a set is made: a refused shape leaves no empty set)
                return
            if entry is None:
                if len(self._sets) >= self._max_sets or self._sets_of.get(sender, 0) >= self._per_sender[0]:
                    self.dropped += 1
                    return
                entry = self._sets[command.set_name] = _Set(owner=sender)
                self._sets_of[sender] = self._sets_of.get(sender, 0) + 1
            entry.pending.append(command.shape)
            self._total += 1
            self._shapes_of[owner] = self._shapes_of.get(owner, 0) + 1
        elif isinstance(command, Swap):
            changed = [(name, entry) for name, entry in self._sets.items()
                       if (entry.pending or entry.shown) and name.startswith(command.prefix)]
            if changed:
                self.version += 1
            for name, entry in changed:
                self._total -= len(entry.shown)
                _count(self._shapes_of, entry.owner, -len(entry.shown))
                entry.shown, entry.pending = entry.pending, []
                entry.version, entry.dicts = self.version, None
                if not entry.shown:  # nothing drawn in it any more: the set goes, its maker's room is free
                    del self._sets[name]
                    _count(self._sets_of, entry.owner, -1)
        elif isinstance(command, AgentAnnotation):
            key = (command.side, command.unum)
            if command.text is None:
                if self.agent_text.pop(key, None) is not None:
                    self.version += 1
            elif self.agent_text.get(key) != (command.text, command.color):
                self.agent_text[key] = (command.text, command.color)
                self.version += 1
        elif self.selected != (command.side, command.unum):
            self.selected = (command.side, command.unum)
            self.version += 1

    @property
    def shape_count(self) -> int:
        """Shapes held, pending and shown (at most `max_total`)."""
        return self._total

    def shown(self) -> dict[str, list[Shape]]:
        """Every set with something shown, by name."""
        return {name: list(entry.shown) for name, entry in sorted(self._sets.items()) if entry.shown}

    def shown_versions(self) -> dict[str, int]:
        """Every set with something shown, by name, with the version it last changed at."""
        return {name: entry.version for name, entry in sorted(self._sets.items()) if entry.shown}

    def to_dict(self) -> dict[str, Any]:
        """What the browser monitor draws (sets by name, agent texts, the selected agent)."""
        sets: dict[str, list[dict[str, Any]]] = {}
        for name, entry in sorted(self._sets.items()):
            if entry.shown:
                if entry.dicts is None:
                    entry.dicts = [s.to_dict() for s in entry.shown]
                sets[name] = entry.dicts
        return {"version": self.version, "sets": sets,
                "agents": [{"side": side, "unum": unum, "text": text, "color": list(color)}
                           for (side, unum), (text, color) in sorted(self.agent_text.items())],
                "selected": list(self.selected) if self.selected else None}
