"""S-expressions of the legacy protocols.

Hot path: agents' action messages are flat lists of `(name arg ...)` with at most one
level of nesting (`(init (unum 1)(teamname A))`); `parse_flat` splits them with str
methods, no token objects. Anything else (monitor commands, odd input) goes through
sexpdata. Numbers accept every form agents send: 1.5, -0.00, 1e-05, full repr."""
from __future__ import annotations

import math
import re
from typing import Final

import sexpdata

Atom = str | float | int
Expr = Atom | list["Expr"]


class SexpError(ValueError):
    """Malformed S-expression (unbalanced parentheses, text outside lists, too deep)."""


# No message of either protocol nests deeper than 4 (`(init (unum 1))`, monitor frames
# about 6); anything deeper is refused before a recursive repr/str could overflow the stack.
MAX_DEPTH: Final = 32


_SPACE: Final = " \t\r\n"
# A message of flat lists only (effector lists, every cycle from every agent): regular
# expressions split it in C; anything nested takes the general loop below.
_FLAT_MESSAGE: Final = re.compile(r"(?:[ \t\r\n]*\([^()\x0b\x0c\x1c-\x1f]*\))*[ \t\r\n]*")  # only ASCII
# whitespace str.split() knows is excluded, so split() == splitting on " \t\r\n"
_FLAT_LIST: Final = re.compile(r"\(([^()]*)\)")


def parse_flat(text: str) -> list[list[Expr]]:
    """Top-level lists of a message, each as [name, args...]; nested lists as lists.

    Atoms stay strings: callers convert where they expect numbers (`number`)."""
    if _FLAT_MESSAGE.fullmatch(text):
        return [inner.split() for inner in _FLAT_LIST.findall(text)]
    return parse_nested(text)


_TOKEN: Final = re.compile(r"[()]|[^() \t\r\n]+")  # what lies between " \t\r\n" is skipped


def parse_nested(text: str) -> list[list[Expr]]:
    """parse_flat for any message: its tokens split in C (a regular expression), then lists in
    lists; an error names the offset where the message goes wrong."""
    out: list[list[Expr]] = []
    stack: list[list[Expr]] = []
    for token in _TOKEN.findall(text):
        if token == "(":
            new: list[Expr] = []
            if stack:
                stack[-1].append(new)
            stack.append(new)
            if len(stack) > MAX_DEPTH:
                raise _located(text, f"lists nested deeper than {MAX_DEPTH}")
        elif token == ")":
            if not stack:
                raise _located(text, "unbalanced ')'")
            done = stack.pop()
            if not stack:
                out.append(done)
        elif stack:
            stack[-1].append(token)
        else:
            raise _located(text, "text outside a list")
    if stack:
        raise SexpError("unbalanced '(': message ends inside a list")
    return out


def _located(text: str, problem: str) -> SexpError:
    """The error parse_nested met, found again token by token to name its offset (errors are
    rare: the fast pass keeps no offsets)."""
    depth = 0
    for match in _TOKEN.finditer(text):
        token, at = match.group(), match.start()
        if token == "(":
            depth += 1
            if depth > MAX_DEPTH:
                return SexpError(f"lists nested deeper than {MAX_DEPTH} at offset {at}")
        elif token == ")":
            if depth == 0:
                return SexpError(f"unbalanced ')' at offset {at}")
            depth -= 1
        elif depth == 0:
            return SexpError(f"text outside a list at offset {at}: {token!r}")
    return SexpError(problem)


def predicates(payload: bytes, encoding: str = "ascii") -> tuple[list[tuple[str, list[Expr]]], list[str]]:
    """An agent message as (name, args) pairs, plus one error per part that is not one
    (undecodable or malformed text rejects the whole message, as both references do)."""
    try:
        exprs = parse_flat(payload.decode(encoding))
    except UnicodeDecodeError:
        return [], [f"message is not {encoding} text"]
    except SexpError as exc:
        return [], [f"malformed S-expression, message dropped: {exc}"]
    pairs: list[tuple[str, list[Expr]]] = []
    errors: list[str] = []
    for expr in exprs:
        if expr and isinstance(expr[0], str):
            pairs.append((expr[0], expr[1:]))
        else:
            errors.append(f"expected (name ...), got {expr!r}")
    return pairs, errors


def number(atom: Expr) -> float:
    """A finite numeric atom; raises ValueError naming the atom for anything else (lists,
    words, inf, nan, 1e400): no number from the wire is infinite."""
    if isinstance(atom, list):
        raise ValueError("expected a number, got a list")
    value = float(atom)
    if not math.isfinite(value):
        raise ValueError(f"expected a finite number, got {atom!r}")
    return value


def integer(atom: Expr, low: int, high: int) -> int:
    """An integral atom in [low, high] (1.0 counts as 1); ValueError otherwise."""
    value = number(atom)
    if value != int(value) or not low <= value <= high:
        raise ValueError(f"expected an integer in {low}..{high}, got {atom!r}")
    return int(value)


def parse_general(text: str) -> list[Expr]:
    """Full S-expression parsing for cold paths (monitor commands), via sexpdata."""
    depth = deepest = 0
    for c in text:
        if c == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif c == ")":
            depth -= 1
    if deepest > MAX_DEPTH:
        raise SexpError(f"lists nested deeper than {MAX_DEPTH}")
    try:
        parsed = sexpdata.loads(f"({text})", true=None, false=None)
    except Exception as exc:  # sexpdata raises several types
        raise SexpError(str(exc)) from exc
    return [_plain(x) for x in parsed]


def _plain(x: object) -> Expr:
    if isinstance(x, list):
        return [_plain(v) for v in x]
    if isinstance(x, sexpdata.Symbol):
        return str(x)
    if isinstance(x, (int, float, str)):
        return x
    return str(x)
