"""RoboViz's drawing protocol: datagrams built byte by byte as agents send them (numbers as
6 ASCII characters, colours as bytes, NUL-terminated names), parsed into shapes, kept in sets
that show on a buffer swap; malformed datagrams lose only themselves."""
from __future__ import annotations

import pytest

from sim_bridge.roboviz_draw import (
    AgentAnnotation,
    Draw,
    DrawingBoard,
    DrawProtocolError,
    SelectAgent,
    Shape,
    Swap,
    parse_datagram,
)


def num(v: float) -> bytes:
    return (b"%6f" % v)[:6]  # what agents' "%6f" into a 6-byte field leaves


def name(s: str) -> bytes:
    return s.encode() + b"\x00"


def circle(x: float, y: float, r: float, t: float, rgb: bytes, set_name: str) -> bytes:
    return b"\x01\x00" + num(x) + num(y) + num(r) + num(t) + rgb + name(set_name)


def line(a: tuple[float, float, float], b: tuple[float, float, float], t: float, rgb: bytes, set_name: str) -> bytes:
    return b"\x01\x01" + b"".join(map(num, (*a, *b, t))) + rgb + name(set_name)


def sphere(p: tuple[float, float, float], r: float, rgb: bytes, set_name: str) -> bytes:
    return b"\x01\x03" + b"".join(map(num, (*p, r))) + rgb + name(set_name)


def swap(set_name: str) -> bytes:
    return b"\x00\x00" + name(set_name)


def test_every_command_is_read_as_agents_write_it() -> None:
    polygon = b"\x01\x04\x03" + bytes([10, 20, 30, 128]) + b"".join(num(v) for v in (0, 0, 0, 1, 0, 0, 0, 1, 0)) \
        + name("poly")
    datagram = (circle(1.5, -2.25, 0.5, 2, b"\xff\x00\x00", "a.circle")
                + line((0, 0, 0), (3, -1.5, 0.25), 3, b"\x00\xff\x00", "a.line")
                + b"\x01\x02" + b"".join(map(num, (1, 2, 0.1, 4))) + b"\x00\x00\xff" + name("pts")
                + sphere((-14.0, 3, 0.04), 0.1, b"\x01\x02\x03", "ball")
                + polygon
                + b"\x02\x00" + b"".join(map(num, (2, 2, 0.5))) + b"\xff\xff\x00" + name("go <here>") + name("notes")
                + b"\x02\x01" + bytes([8]) + b"\x10\x20\x30" + name("striker")
                + b"\x02\x02" + bytes([128 + 2])
                + b"\x03\x00" + bytes([128])
                + swap("a"))
    commands = parse_datagram(datagram)
    assert [type(c).__name__ for c in commands] == ["Draw"] * 6 + ["AgentAnnotation"] * 2 + ["SelectAgent", "Swap"]
    c0, c1, c2, c3, c4, c5 = (c for c in commands[:6] if isinstance(c, Draw))
    assert (c0.set_name, c0.shape.kind, c0.shape.points, c0.shape.size, c0.shape.width, c0.shape.color) == \
        ("a.circle", "circle", ((1.5, -2.25, 0.0),), 0.5, 2.0, (255, 0, 0, 255))
    assert c1.shape.points == ((0.0, 0.0, 0.0), (3.0, -1.5, 0.25)) and c1.shape.width == 3.0
    assert (c2.shape.kind, c2.shape.points, c2.shape.size, c2.set_name) == ("point", ((1.0, 2.0, 0.1),), 4.0, "pts")
    assert (c3.shape.kind, c3.shape.points[0], c3.shape.size) == ("sphere", (-14.0, 3.0, 0.04), 0.1)
    assert c4.shape.kind == "polygon" and len(c4.shape.points) == 3 and c4.shape.color == (10, 20, 30, 128)
    assert (c5.shape.kind, c5.shape.text, c5.set_name) == ("text", "go <here>", "notes")
    assert commands[6] == AgentAnnotation("left", 9, "striker", (16, 32, 48, 255))
    assert commands[7] == AgentAnnotation("right", 3, None)
    assert commands[8] == SelectAgent("right", 1)
    assert commands[9] == Swap("a")


@pytest.mark.parametrize("bad, why", [
    (b"\x01\x00" + num(1) + b"12", "ends"),                                  # cut in a number
    (b"\x01\x00" + num(1) + b"abcdef" + num(1) + num(1) + b"\x00\x00\x00" + name("x"), "not a number"),
    (b"\x01\x03" + b"   nan" + num(0) + num(0) + num(1) + b"\x00\x00\x00" + name("x"), "out of range"),
    (b"\x01\x03" + b"1e+300" + num(0) + num(0) + num(1) + b"\x00\x00\x00" + name("x"), "out of range"),
    (b"\x01\x01" + num(0) * 7 + b"\x00\x00\x00" + b"no terminator", "NUL"),
    (b"\x07\x01", "unknown command"),
    (b"\x02\x01" + bytes([127]) + b"\x00\x00\x00" + name("x"), "no such player"),
])
def test_a_malformed_command_ends_its_datagram_and_keeps_what_came_before(bad: bytes, why: str) -> None:
    good = sphere((0, 0, 0), 1, b"\x00\x00\x00", "kept")
    with pytest.raises(DrawProtocolError, match=why) as caught:
        parse_datagram(good + bad)
    kept = caught.value.args[1]
    assert len(kept) == 1 and isinstance(kept[0], Draw) and kept[0].set_name == "kept"


def test_sets_show_what_was_drawn_since_their_last_swap() -> None:
    board = DrawingBoard()
    for c in parse_datagram(sphere((1, 0, 0), 0.1, b"\xff\x00\x00", "p1.ball") + line((0, 0, 0), (1, 1, 0), 1,
                                                                                      b"\x00\xff\x00", "p1.path")):
        board.apply(c)
    assert board.shown() == {}  # drawing, not yet shown
    version = board.version
    board.apply(Swap("p1.ball"))
    assert list(board.shown()) == ["p1.ball"] and board.version > version
    board.apply(Swap("p1"))  # a prefix swaps every set under it: the path shows, the ball set is empty now
    assert list(board.shown()) == ["p1.path"]
    for c in parse_datagram(line((0, 0, 0), (2, 2, 0), 1, b"\x00\xff\x00", "p1.path") + swap("")):
        board.apply(c)
    assert [s.points[1] for s in board.shown()["p1.path"]] == [(2.0, 2.0, 0.0)]  # redrawn, not added
    data = board.to_dict()
    assert data["sets"]["p1.path"][0]["kind"] == "line" and data["agents"] == [] and data["selected"] is None


def test_agent_texts_and_the_selected_agent() -> None:
    board = DrawingBoard()
    board.apply(AgentAnnotation("left", 9, "striker", (1, 2, 3, 255)))
    board.apply(SelectAgent("right", 4))
    assert board.to_dict()["agents"] == [{"side": "left", "unum": 9, "text": "striker", "color": [1, 2, 3, 255]}]
    assert board.to_dict()["selected"] == ["right", 4]
    board.apply(AgentAnnotation("left", 9, None))
    assert board.to_dict()["agents"] == []


def test_a_flood_costs_bounded_memory() -> None:
    board = DrawingBoard(max_sets=4, max_shapes=10)
    for i in range(100):
        for c in parse_datagram(sphere((i, 0, 0), 0.1, b"\x00\x00\x00", f"set{i % 8}")):
            board.apply(c)
    board.apply(Swap(""))
    shown = board.shown()
    assert len(shown) == 4 and all(len(shapes) == 10 for shapes in shown.values())
    assert board.dropped == 100 - 40


def test_the_board_holds_at_most_its_shapes_in_all_and_versions_each_set() -> None:
    board = DrawingBoard(max_sets=64, max_shapes=100, max_total=250)
    for i in range(600):
        board.apply(Draw(f"set{i % 6}", Shape("point", ((0.0, 0.0, 0.0),), 1.0, (0, 0, 0, 255))))
    assert board.shape_count == 250 and board.dropped == 350
    board.apply(Swap("set1"))
    versions = board.shown_versions()
    assert list(versions) == ["set1"]
    board.apply(Swap("set2"))
    assert board.shown_versions()["set1"] == versions["set1"]  # unchanged sets keep their version


def test_a_polygon_needs_two_vertices() -> None:
    with pytest.raises(DrawProtocolError, match="polygon of 0 vertices"):
        parse_datagram(b"\x01\x04\x00\xff\x00\x00\xffset\0")


def test_one_sender_cannot_take_every_set_or_shape() -> None:
    board = DrawingBoard(max_sets=256, max_total=20000, max_sets_per_sender=8, max_shapes_per_sender=50)
    flood, agent = ("127.0.0.1", 5000), ("127.0.0.1", 6000)
    for i in range(1000):
        board.apply(Draw(f"flood{i % 20}", Shape("point", ((0.0, 0.0, 0.0),), 1.0, (0, 0, 0, 255))), flood)
    board.apply(Swap("flood"))
    assert len(board.shown()) == 8 and sum(len(s) for s in board.shown().values()) == 50
    for i in range(10):
        board.apply(Draw("7.L.path", Shape("point", ((i, 0.0, 0.0),), 1.0, (0, 0, 0, 255))), agent)
    board.apply(Swap("7.L"))
    assert len(board.shown()["7.L.path"]) == 10  # the agent's drawing has its room
    board.apply(Swap("flood"))  # the flood's sets emptied: its share is free again
    for _ in range(50):
        board.apply(Draw("flood0", Shape("point", ((0.0, 0.0, 0.0),), 1.0, (0, 0, 0, 255))), flood)
    assert board.shape_count == 10 + 50


def test_an_emptied_set_goes() -> None:
    board = DrawingBoard(max_sets_per_sender=2)
    for name in ("a", "b"):
        board.apply(Draw(name, Shape("point", ((0.0, 0.0, 0.0),), 1.0, (0, 0, 0, 255))), "s")
    board.apply(Swap(""))
    board.apply(Swap(""))  # shown, then nothing: both sets go
    board.apply(Draw("c", Shape("point", ((0.0, 0.0, 0.0),), 1.0, (0, 0, 0, 255))), "s")
    board.apply(Swap("c"))
    assert list(board.shown()) == ["c"]
