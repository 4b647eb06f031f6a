"""Errors, exact rationals and the small readers every claim shares. Standard library only."""

from __future__ import annotations

from fractions import Fraction


class CheckFailed(Exception):
    """The certificate does not verify (the claim is false, or the file is not a valid certificate)."""


class UnreadableInput(Exception):
    """An instance or certificate file cannot be read at all."""


def parse_rational(x) -> Fraction:
    """A JSON integer, or a string 'p/q', 'p' or a decimal, read exactly."""
    if isinstance(x, bool):
        raise CheckFailed(f"not a rational: {x!r}")
    if isinstance(x, int):
        return Fraction(x)
    if not isinstance(x, str):
        raise CheckFailed(f"not a rational: {x!r}")
    try:
        if "/" in x:
            p, q = x.split("/")
            if int(q) <= 0:
                raise CheckFailed(f"non-positive denominator in {x!r}")
            return Fraction(int(p), int(q))
        return Fraction(x)
    except (ValueError, ZeroDivisionError):
        raise CheckFailed(f"not a rational: {x!r}") from None


def canonical(f: Fraction) -> str:
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def _matrix(obj, rows, cols, name):
    if not isinstance(obj, list) or len(obj) != rows:
        raise CheckFailed(f"{name} must have {rows} rows")
    out = []
    for r in obj:
        if not isinstance(r, list) or len(r) != cols:
            raise CheckFailed(f"every row of {name} must have {cols} entries")
        out.append([parse_rational(x) for x in r])
    return out


def _vector(obj, size, name):
    if not isinstance(obj, list) or len(obj) != size:
        raise CheckFailed(f"{name} must be a list of {size} rationals")
    return [parse_rational(x) for x in obj]


def _degree(act) -> int:
    if act == {"name": "relu"}:
        return 1
    if isinstance(act, dict) and set(act) == {"name", "degree"} and act["name"] == "power":
        c = act["degree"]
        if isinstance(c, int) and not isinstance(c, bool) and c >= 1:
            return c
    raise CheckFailed(f"unknown activation {act!r}")


def _only_fields(cert: dict, allowed: set) -> None:
    if set(cert) - allowed:
        raise CheckFailed(f"unknown fields {sorted(set(cert) - allowed)}")


def _pair(p, n, k):
    return all(isinstance(t, int) and not isinstance(t, bool) for t in p) and 0 <= p[0] < n and 0 <= p[1] < k

