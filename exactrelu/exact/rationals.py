"""Exact conversion of scalars to rationals, and the canonical text form.

Every number that enters an exact computation passes through here or through
:mod:`exactrelu.exact.matrix`. A float64 is a dyadic rational and is converted
exactly (``float.as_integer_ratio``), never rounded. NaN and infinities are refused.

Examples
--------
>>> to_fraction(0.1)
Fraction(3602879701896397, 36028797018963968)
>>> to_fraction("1e-3"), to_fraction("-6/4"), to_fraction(" 7 ")
(Fraction(1, 1000), Fraction(-3, 2), Fraction(7, 1))
>>> format_rational(Fraction(-3, 2)), format_rational(4)
('-3/2', '4')
"""

from __future__ import annotations

import numbers
import re
from fractions import Fraction

import flint
import numpy as np

from ..errors import InvalidInput
from ..limits import check_digits

__all__ = ["to_fraction", "format_rational", "fraction_to_fmpq", "fmpq_to_fraction", "rational_root", "RationalLike"]

RationalLike = int | float | str | Fraction | np.integer | np.floating | flint.fmpz | flint.fmpq

# ASCII digits only, as the checker reads them (``\d`` would also match other scripts' digits)
_DECIMAL = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]{1,9}))?")
_RATIO = re.compile(r"([+-]?[0-9]+)(?:/([0-9]+))?")
_SPACE = " \t\n\r\f\v"


def to_fraction(x: RationalLike) -> Fraction:
    """Return the rational number ``x`` denotes, exactly.

    Accepts Python and NumPy integers and floats, :class:`fractions.Fraction`,
    FLINT ``fmpz``/``fmpq``, and strings ``"p/q"``, ``"p"`` or decimals
    (``"0.25"``, ``"1e-3"``, read as the decimal they spell, not as a float).

    Raises
    ------
    InvalidInput
        For NaN, infinities, booleans, empty or malformed strings, zero denominators.

    >>> to_fraction(np.float64(0.5)), to_fraction(2**70)
    (Fraction(1, 2), Fraction(1180591620717411303424, 1))
    """
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (bool, np.bool_)):
        raise InvalidInput(f"a boolean is not a number here: {x!r}")
    if isinstance(x, (int, np.integer, flint.fmpz)):
        return Fraction(int(x))
    if isinstance(x, flint.fmpq):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, (float, np.floating)):  # every float type is a dyadic rational: exact, also np.longdouble
        if not np.isfinite(x):
            raise InvalidInput(f"non-finite number {x!r}: exact arithmetic needs finite values")
        return Fraction(*x.as_integer_ratio())
    if isinstance(x, str):
        return _parse(x)
    if isinstance(x, numbers.Rational):
        return Fraction(int(x.numerator), int(x.denominator))
    raise InvalidInput(f"cannot read {type(x).__name__} {x!r} as a rational number")


def _parse(text: str) -> Fraction:
    """'p/q', 'p' or a decimal, with the sizes of its integers bounded before they are built (limits.py)."""
    s = text.strip(_SPACE)
    m = _RATIO.fullmatch(s)
    if m:
        p, q = m.groups()
        check_digits(s, max(len(p) - (p[0] in "+-"), len(q or "")))
        if q is not None and int(q) == 0:
            raise InvalidInput(f"zero denominator in {text[:40]!r}")
        return Fraction(int(p), int(q or 1))
    m = _DECIMAL.fullmatch(s)
    if m and (m.group(2) or m.group(3)):
        check_digits(s, len(m.group(2)) + len(m.group(3) or "") + abs(int(m.group(4) or 0)))
        return Fraction(s)  # Fraction reads decimal strings exactly
    raise InvalidInput(f"not a rational number: {text[:40]!r} (expected 'p/q', 'p' or a decimal such as '0.25')")


def format_rational(x: RationalLike) -> str:
    """Canonical text of a rational: ``"p/q"`` in lowest terms with q > 0, or ``"p"``."""
    f = to_fraction(x)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def fraction_to_fmpq(x: Fraction) -> flint.fmpq:
    """Convert a Fraction to FLINT's ``fmpq`` (exact)."""
    return flint.fmpq(x.numerator, x.denominator)


def fmpq_to_fraction(x: flint.fmpq) -> Fraction:
    """Convert FLINT's ``fmpq`` to a Fraction (exact; ``fmpq == Fraction`` is silently False)."""
    return Fraction(int(x.p), int(x.q))


def rational_root(x: Fraction, c: int) -> Fraction | None:
    """The rational c-th root of ``x`` >= 0 if it exists, else None (exact).

    A rational in lowest terms has a rational c-th root iff its numerator and denominator
    are perfect c-th powers.

    >>> rational_root(Fraction(8, 27), 3), rational_root(Fraction(2), 2)
    (Fraction(2, 3), None)
    """
    if x < 0:
        return None
    if c == 1:
        return x
    p, q = flint.fmpz(x.numerator), flint.fmpz(x.denominator)
    rp, rq = p.root(c), q.root(c)
    if rp**c != p or rq**c != q:
        return None
    return Fraction(int(rp), int(rq))
