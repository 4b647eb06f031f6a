"""The input box of a VNN-LIB property (``exactrelu equiv --vnnlib FILE``), read exactly.

VNN-LIB (the VNN-COMP format, SMT-LIB syntax) declares the inputs ``X_0 .. X_{d-1}`` and the outputs ``Y_j`` as
``(declare-const X_0 Real)`` and states bounds as ``(assert (<= X_0 0.6))``, ``(assert (>= X_0 -0.5))``, possibly
inside one ``(and ...)``. This reader takes the *input box*: every assertion on one input and one constant, each
input bounded below and above (several bounds of one side: their intersection, which is what the conjunction
means). Assertions on the outputs are counted and not read: the question asked is said by ``--epsilon`` (or
equality), not by the file. Anything else about the inputs (a disjunction, a bound relating two inputs or an input
and an output) is not a box, and is refused rather than guessed. Constants are decimals read exactly (``0.679858``
is 679858/10^6), with the project's digit limits.

A strict bound on an input (``<``, ``>``) is refused too: the box is closed, and a counterexample on its boundary
would lie outside an open one. Hostile files cost nothing: the parser is iterative (no recursion, nesting deeper
than 64 refused), its work is linear in the file's size, and a number's digits are bounded before it is built.

>>> box = parse_vnnlib("(declare-const X_0 Real)(declare-const Y_0 Real)"
...                    "(assert (<= X_0 0.5))(assert (>= X_0 -1/2))(assert (<= Y_0 3))")
>>> box.lower, box.upper, box.outputs
([Fraction(-1, 2)], [Fraction(1, 2)], 1)
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from fractions import Fraction

from ..errors import InvalidInput
from ..exact.rationals import to_fraction
from .files import read_bytes

__all__ = ["VnnlibBox", "parse_vnnlib", "read_vnnlib"]

_TOKEN = re.compile(r"\s+|;[^\n]*|\(|\)|[^\s();]+")
_NAME = re.compile(r"([XY])_(0|[1-9][0-9]{0,8})")
_DEPTH = 64
_FLIP = {"<=": ">=", ">=": "<=", "<": ">", ">": "<"}


@dataclass
class VnnlibBox:
    """``lower``, ``upper``: d rationals each; ``outputs``: how many assertions on the outputs were not read."""

    lower: list[Fraction]
    upper: list[Fraction]
    outputs: int


def _parse(text: str) -> list:
    """The top-level s-expressions of ``text`` as nested lists of strings."""
    stack: list[list] = [[]]
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # pragma: no cover - the token pattern matches every character
            raise InvalidInput(f"VNN-LIB: unreadable text at character {pos}")
        tok, pos = m.group(), m.end()
        if tok[0] in " \t\r\n\f\v;":
            continue
        if tok == "(":
            if len(stack) > _DEPTH:
                raise InvalidInput(f"VNN-LIB: parentheses nested deeper than {_DEPTH} (not a property file)")
            stack.append([])
        elif tok == ")":
            if len(stack) == 1:
                raise InvalidInput(f"VNN-LIB: an unmatched ')' at character {pos}")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    if len(stack) != 1:
        raise InvalidInput("VNN-LIB: the file ends inside an expression (an unmatched '(')")
    return stack[0]


def _constant(e) -> Fraction | None:
    """A number: a decimal or p/q, or ``(- c)``; None if ``e`` is not one."""
    if isinstance(e, list):
        if len(e) == 2 and e[0] == "-" and isinstance(e[1], str):
            c = _constant(e[1])
            return None if c is None else -c
        return None
    if e[:1] in ("-", "+", ".") or e[:1].isdigit():
        return to_fraction(e)
    return None


def _bound(e, names: dict) -> tuple[int, str, Fraction] | None:
    """(input, '<=' or '>=', c) of ``(<= X_i c)`` or ``(<= c X_i)`` (also >=, <, >); None for an output bound."""
    if not (isinstance(e, list) and len(e) == 3 and e[0] in _FLIP):
        raise InvalidInput(f"VNN-LIB: {_show(e)} is not a bound of one variable by a constant")
    op, left, right = e
    if isinstance(right, str) and right in names:
        op, left, right = _FLIP[op], right, left
    c = _constant(right)
    if not (isinstance(left, str) and left in names) or c is None:
        raise InvalidInput(f"VNN-LIB: {_show(e)} is not a bound of one variable by a constant (not an input box)")
    kind, index = names[left]
    if kind == "Y":
        return None
    if op in ("<", ">"):
        raise InvalidInput(f"VNN-LIB: {_show(e)} is a strict bound; an input box is closed (write <= or >=)")
    return index, "<=" if op[0] == "<" else ">=", c


def _show(e) -> str:
    text = e if isinstance(e, str) else "(" + " ".join(_show(x) for x in e[:6]) + (" ..." if len(e) > 6 else "") + ")"
    return text if len(text) <= 80 else text[:77] + "..."


def _declare(e, names: dict) -> None:
    if len(e) != 3 or not isinstance(e[1], str) or e[2] != "Real" or not _NAME.fullmatch(e[1]):
        raise InvalidInput(f"VNN-LIB: {_show(e)}: only Real variables X_i (inputs) and Y_j (outputs) are read")
    if e[1] in names:
        raise InvalidInput(f"VNN-LIB: {e[1]} is declared twice")
    m = _NAME.fullmatch(e[1])
    names[e[1]] = (m.group(1), int(m.group(2)))


def parse_vnnlib(text: str) -> VnnlibBox:
    """The input box stated by the VNN-LIB ``text`` (module docstring); InvalidInput when it states none."""
    names: dict = {}
    lows: dict[int, Fraction] = {}
    highs: dict[int, Fraction] = {}
    outputs = 0
    for e in _parse(text):
        if not isinstance(e, list) or not e or e[0] not in ("declare-const", "assert"):
            raise InvalidInput(f"VNN-LIB: {_show(e)} is neither a declaration nor an assertion")
        if e[0] == "declare-const":
            _declare(e, names)
            continue
        if len(e) != 2:
            raise InvalidInput(f"VNN-LIB: {_show(e)}: an assertion has one expression")
        body = e[1]
        parts = body[1:] if isinstance(body, list) and body[:1] == ["and"] else [body]
        for part in parts:
            got = _bound(part, names)
            if got is None:
                outputs += 1
                continue
            t, side, c = got
            target = highs if side == "<=" else lows
            target[t] = c if t not in target else (min if side == "<=" else max)(target[t], c)
    inputs = sorted(i for kind, i in names.values() if kind == "X")
    if not inputs:
        raise InvalidInput("VNN-LIB: the file declares no input X_0")
    if inputs != list(range(len(inputs))):
        raise InvalidInput(f"VNN-LIB: the inputs are not X_0 .. X_{len(inputs) - 1} (X_{inputs[-1]} is declared)")
    loose = [t for t in inputs if t not in lows or t not in highs]
    if loose:
        raise InvalidInput(f"VNN-LIB: input X_{loose[0]} has no {'lower' if loose[0] not in lows else 'upper'} "
                           "bound: the file states no input box")
    return VnnlibBox([lows[t] for t in inputs], [highs[t] for t in inputs], outputs)


def read_vnnlib(path: str | os.PathLike) -> VnnlibBox:
    """The input box of the VNN-LIB file ``path`` (:func:`parse_vnnlib`).

    >>> read_vnnlib("no-such.vnnlib")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: no such VNN-LIB file: no-such.vnnlib
    """
    raw = read_bytes(path, what="VNN-LIB file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{path}: not a VNN-LIB file (not UTF-8 text)") from None
    return parse_vnnlib(text)
