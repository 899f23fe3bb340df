"""The S-expression hot path: flat messages split by regular expressions must give exactly
what the general parser gives, and everything else must still be parsed or refused."""
from __future__ import annotations

import random

import pytest

from sim_bridge.sexp import SexpError, number, parse_flat, parse_nested, predicates

ATOMS = ["he1", "0.0", "-0.00", "1e-05", "-1.2345678901234567", "syn", "nan", "x_y", "3"]
SPACES = ["", " ", "  ", "\t", "\r\n", "\n"]


def random_flat(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 25)):
        atoms = [rng.choice(ATOMS) for _ in range(rng.randint(0, 3))]
        inner = rng.choice(SPACES).join(atoms) if rng.random() < 0.2 else " ".join(atoms)
        parts.append(rng.choice(SPACES) + "(" + rng.choice(SPACES) + inner + rng.choice(SPACES) + ")")
    return "".join(parts) + rng.choice(SPACES)


def test_fast_path_equals_the_general_parser_on_flat_messages() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        text = random_flat(rng)
        assert parse_flat(text) == parse_nested(text), text


def _reference_parse(text: str) -> list[list[object]]:
    """The first parse_nested: one character at a time. The tokenizing one must agree with it,
    errors and their offsets included."""
    out: list[list[object]] = []
    stack: list[list[object]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "(":
            new: list[object] = []
            if stack:
                stack[-1].append(new)
            stack.append(new)
            if len(stack) > 32:
                raise SexpError(f"lists nested deeper than 32 at offset {i}")
            i += 1
        elif c == ")":
            if not stack:
                raise SexpError(f"unbalanced ')' at offset {i}")
            done = stack.pop()
            if not stack:
                out.append(done)
            i += 1
        elif c in " \t\r\n":
            i += 1
        else:
            j = i
            while j < n and text[j] not in "() \t\r\n":
                j += 1
            if not stack:
                raise SexpError(f"text outside a list at offset {i}: {text[i:j]!r}")
            stack[-1].append(text[i:j])
            i = j
    if stack:
        raise SexpError("unbalanced '(': message ends inside a list")
    return out


def test_the_general_parser_gives_what_the_character_loop_gave() -> None:
    """Perceptions, monitor frames and rubbish: nested lists, odd whitespace, stray atoms and
    parentheses, depth past the limit. Same lists, or the same error at the same offset."""
    rng = random.Random(11)
    pieces = ["(", ")", " ", "\t", "\r\n", "\x0b", "\x0c", "a", "pol", "1.5", "-0.00", "(See", "(B (pol 1 2 3))"]
    texts = [open_ * 40 + "x" + ")" * 40 for open_ in ("(", "((")]
    for _ in range(4000):
        if rng.random() < 0.5:  # mostly well formed, nested
            def expr(depth: int) -> str:
                items = [rng.choice(ATOMS) if rng.random() < 0.6 or depth > 5 else expr(depth + 1)
                         for _ in range(rng.randint(0, 4))]
                return "(" + rng.choice(SPACES).join(items) + ")"
            texts.append(rng.choice(SPACES).join(expr(0) for _ in range(rng.randint(0, 6))))
        else:
            texts.append("".join(rng.choice(pieces) for _ in range(rng.randint(0, 30))))
    for text in texts:
        try:
            want: object = _reference_parse(text)
        except SexpError as exc:
            want = str(exc)
        try:
            got: object = parse_nested(text)
        except SexpError as exc:
            got = str(exc)
        assert got == want, text


@pytest.mark.parametrize("text", ["(init (unum 1)(teamname A))", "((a))", "(a (b (c 1)))", "(a\x0c1)", "(a\x1d1) (b)"])
def test_other_messages_take_the_general_parser(text: str) -> None:
    assert parse_flat(text) == parse_nested(text)


@pytest.mark.parametrize("text", ["(a 1) x", "(a 1", "a)", "(a))", ")("])
def test_malformed_messages_are_refused(text: str) -> None:
    with pytest.raises(SexpError):
        parse_flat(text)


def test_predicates_and_numbers_in_every_form_agents_send() -> None:
    pairs, errors = predicates(b"(he1 1.5)(he2 -0.00)(lle1 1e-05)(rle1 -1.2345678901234567)(syn)")
    assert errors == []
    assert [(n, [number(a) for a in args]) for n, args in pairs] == [
        ("he1", [1.5]), ("he2", [-0.0]), ("lle1", [1e-05]), ("rle1", [-1.2345678901234567]), ("syn", [])]
    assert predicates(b"(he1 \xff)")[1] == ["message is not ascii text"]
    assert "malformed" in predicates(b"(he1 1")[1][0]


def test_numbers_from_the_wire_are_finite_and_integers_in_range() -> None:
    import pytest

    from sim_bridge.sexp import integer, number

    for bad in ("inf", "-inf", "nan", "1e400", ["1"]):
        with pytest.raises(ValueError):
            number(bad)
    assert number("1e-05") == 1e-05 and integer("3", 0, 4) == 3 and integer("3.0", 0, 4) == 3
    for bad in ("5", "-1", "2.5", "1e400"):
        with pytest.raises(ValueError):
            integer(bad, 0, 4)


def test_deep_nesting_is_refused_not_recursed() -> None:
    import pytest

    from sim_bridge.sexp import SexpError, parse_flat, parse_general

    deep = "(" * 1500 + ")" * 1500
    for parse in (parse_flat, parse_general):
        with pytest.raises(SexpError, match="nested deeper"):
            parse(deep)
    assert parse_flat("(init (unum 1)(teamname A))") == [["init", ["unum", "1"], ["teamname", "A"]]]
