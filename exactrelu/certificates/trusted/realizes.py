"""Claims about one network on one instance: ``realizes``, ``realizes-except``, ``residual``.

Standard library only. The network is ``sum_i U[r][i] f(V[i] . x_j + b[i]) + c[r]`` with f the ReLU or
the rectified power t^degree (t^degree for t > 0, else 0); a certificate without ``"b"`` means b = 0, one
without ``"c"`` (the output bias) means c = 0.

``realizes``
    every label equals the network's value exactly.
``realizes-except``
    the network equals the label at every entry (j, r) not in ``"except"`` and differs from it at
    every listed entry: the list is exactly the set of entries that differ (sorted, no duplicates).
``residual``
    ``"squared_error"`` is exactly ``sum_{j,r} (network_jr - labels_jr)^2`` and, when present,
    ``"max_abs_error"`` is exactly ``max_{j,r} |network_jr - labels_jr|``. It states how good a fit
    is, not that it is optimal.

Every comparison is in integers: each unit's (V_i, b_i) is put over one denominator D_i and each
sample over its own Dx_j, so ``t = Nv_i . Nx_j + Nb_i Dx_j`` decides the sign of the pre-activation
exactly and ``f(t / (D_i Dx_j)) = f(t) / (D_i Dx_j)^degree``; the output bias is put over one denominator Dc.
The k dot products of one sample (and the m of the output layer) are one packed integer product
(:mod:`.packed`, exact by the no-carry argument there and in docs/design.md).
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import compress, repeat
from operator import floordiv, mod, mul, sub
from .common import (CheckFailed, activation_degree, approx, display, is_pair, only_fields, parse_rational, read_matrix,
                     read_vector)
from .instance import bound_instance
from .packed import Packed

_NETWORK_FIELDS = {"format", "version", "claim", "instance_sha256", "activation", "U", "V", "b", "c", "provenance"}


def _network(cert: dict, instance: dict, claim: str, extra: set):
    """Parse and bind the network of a certificate: (X, Y, U, V, b, offset, c) with X, Y the parsed instance,
    ``offset`` the output bias (m entries) and c the activation degree."""
    only_fields(cert, _NETWORK_FIELDS | extra)
    X, Y = bound_instance(cert, instance, claim)
    c = activation_degree(cert.get("activation"))
    if instance.get("activation") is not None and activation_degree(instance["activation"]) != c:
        raise CheckFailed("the certificate's activation differs from the instance's")
    d, m = len(X[0][0]), len(Y[0][0])
    Vraw = cert.get("V")
    if not isinstance(Vraw, list) or not Vraw:
        raise CheckFailed("V must be a non-empty list of rows")
    k = len(Vraw)
    U = read_matrix(cert.get("U"), m, k, "U")
    V = read_matrix(Vraw, k, d, "V")
    b = read_vector(cert["b"], k, "b") if "b" in cert else [Fraction(0)] * k
    offset = read_vector(cert["c"], m, "c") if "c" in cert else [Fraction(0)] * m
    return X, Y, U, V, b, offset, c


def _differences(X, Y, U, V, b, offset, c, start: int = 0, stop: int | None = None):
    """For every sample j in order, ``start <= j < stop``: (j, ps, qs) with network_jr - labels_jr == ps[r] / qs[r],
    qs[r] > 0, for every output r.

    Each bias is one more column of its layer: the hidden layer is ``t_i = [Nv_i, Nb_i] . [Nx_j, Dx_j]``, the output
    layer ``s_r = [Dc Na[r], Nc[r] Du[r]] . [h, Dx_j^c]`` = ``network_jr`` times ``Dc Du[r] Dx_j^c``; the k (and m)
    dot products of one sample are one packed integer product (:mod:`.packed`).
    """
    k, m = len(V), len(U)
    # unit i over one denominator: V_i = Nv_i / D_i, b_i = Nb_i / D_i
    D = [math.lcm(bi.denominator, *(f.denominator for f in row)) for row, bi in zip(V, b)]
    units = Packed([[f.numerator * (Di // f.denominator) for f in row] + [bi.numerator * (Di // bi.denominator)]
                    for row, bi, Di in zip(V, b, D)])
    # U[r][i] / D_i^c = Na[r][i] / Du[r]; the output bias c_r = Nc[r] / Dc
    A = [[U[r][i] / Fraction(D[i]) ** c for i in range(k)] for r in range(m)]
    Du = [math.lcm(*(f.denominator for f in row)) for row in A]
    Dc = math.lcm(*(f.denominator for f in offset))
    Nc = [f.numerator * (Dc // f.denominator) for f in offset]
    outputs = Packed([[Dc * f.numerator * (Dr // f.denominator) for f in row] + [Nc[r] * Dr]
                      for r, (row, Dr) in enumerate(zip(A, Du))])
    E = [Dc * Dr for Dr in Du]  # network_jr = s_r / (E[r] Dx_j^c)
    for j in range(start, len(X) if stop is None else stop):
        (nums, dens), (ynum, yden) = X[j], Y[j]
        Dx = max(dens)
        if any(map(mod, repeat(Dx), dens)):  # else every q divides max(dens): it is their lcm (floats: always)
            Dx = math.lcm(*dens)
        Nx = nums if Dx == 1 else list(map(mul, nums, map(floordiv, repeat(Dx), dens)))  # x_j = Nx / Dx
        h = list(map(max, units.dot(Nx + [Dx]), repeat(0)))  # relu(t_i)
        if c > 1:
            h = [t**c for t in h]
        scale = Dx**c
        s = outputs.dot(h + [scale])
        den = list(map(mul, E, repeat(scale)))
        # s_r / den_r - ynum_r / yden_r = (yden_r s_r - ynum_r den_r) / (den_r yden_r)
        yield j, list(map(sub, map(mul, yden, s), map(mul, ynum, den))), list(map(mul, den, yden))


def _first_nonzero(ps: list) -> int:
    return next(r for r, p in enumerate(ps) if p)


def _shape(X, Y, U, b, offset, c) -> str:
    bias = (", hidden biases" if any(b) else "") + (", output bias" if any(offset) else "")
    return f"(k={len(U[0])}, d={len(X[0][0])}, activation degree {c}{bias})"


def check_realizes(cert: dict, instance: dict) -> str:
    """Verify the claim ``realizes``; return a one-line summary or raise CheckFailed."""
    X, Y, U, V, b, offset, c = _network(cert, instance, "realizes", set())
    for j, ps, _ in _differences(X, Y, U, V, b, offset, c):
        if any(ps):
            raise CheckFailed(f"sample {j}, output {_first_nonzero(ps)}: the network's value differs from the label")
    return f"realizes: {len(X)} samples x {len(Y[0][0])} outputs equal exactly {_shape(X, Y, U, b, offset, c)}"


def check_realizes_except(cert: dict, instance: dict) -> str:
    """Verify ``realizes-except``: the network differs from the labels exactly at the listed entries.

    An optional ``"max_except": "p/q"`` bounds the listed entries to that fraction of the n m entries.
    """
    X, Y, U, V, b, offset, c = _network(cert, instance, "realizes-except", {"except", "max_except"})
    listed = cert.get("except")
    n, m = len(X), len(Y[0][0])
    if not isinstance(listed, list) or not all(isinstance(e, list) and len(e) == 2 and is_pair(e, n, m) for e in listed):
        raise CheckFailed(f"except must be a list of [sample, output] pairs with 0 <= sample < {n}, 0 <= output < {m}")
    entries = [tuple(e) for e in listed]
    if any(a >= b_ for a, b_ in zip(entries, entries[1:])):
        raise CheckFailed("except must be sorted, without duplicates")
    bound = _max_except(cert, len(entries), n * m)  # before any work
    listed_at: dict = {}  # sample -> its listed outputs, in order
    for j, r in entries:
        listed_at.setdefault(j, []).append(r)
    outputs = range(m)
    for j, ps, _ in _differences(X, Y, U, V, b, offset, c):
        differ = list(compress(outputs, ps))
        expected = listed_at.get(j, [])
        if differ != expected:
            r = min(set(differ) ^ set(expected))  # the first entry where they disagree
            if r in expected:
                raise CheckFailed(f"sample {j}, output {r} is listed as corrupted but the network reproduces it")
            raise CheckFailed(f"sample {j}, output {r}: the network's value differs from the label and is not listed")
    return (f"realizes-except: all {n * m:,} entries ({n:,} samples x {m} outputs) except {len(entries):,} "
            f"({_percent(len(entries), n * m)}{bound}) equal exactly, and the {len(entries):,} excepted all differ "
            f"{_shape(X, Y, U, b, offset, c)}")


def _max_except(cert: dict, excepted: int, total: int) -> str:
    """Refuse more excepted entries than ``max_except`` (a fraction of all entries) allows; its text for the verdict."""
    if "max_except" not in cert:
        return ""
    bound = parse_rational(cert["max_except"])
    if not 0 <= bound <= 1:
        raise CheckFailed(f"max_except must be a fraction between 0 and 1, not {display(bound)}")
    if excepted > bound * total:
        raise CheckFailed(f"{excepted:,} of {total:,} entries are excepted, more than max_except = {display(bound)} allows")
    return f", at most {display(bound)} allowed"


def _percent(part: int, whole: int) -> str:
    """``part`` / ``whole`` as a percentage for display (3.1%; two significant digits below 0.1%)."""
    pct = 100 * part / whole
    return f"{pct:.1f}%" if pct == 0 or pct >= 0.1 else f"{pct:.2g}%"


def check_residual(cert: dict, instance: dict) -> str:
    """Verify ``residual``: the stated squared error (and largest absolute error) are exact."""
    X, Y, U, V, b, offset, c = _network(cert, instance, "residual", {"squared_error", "max_abs_error"})
    if "squared_error" not in cert:
        raise CheckFailed("residual needs 'squared_error'")
    stated = parse_rational(cert["squared_error"])
    stated_max = parse_rational(cert["max_abs_error"]) if "max_abs_error" in cert else None
    sums: dict[int, int] = {}  # denominator q -> sum of p^2 over the entries p / q (integers, no gcd per entry)
    big_p, big_q = 0, 1  # the largest |p| / q so far, compared by cross-multiplication
    for _, ps, qs in _differences(X, Y, U, V, b, offset, c):
        for p, q in zip(ps, qs):
            if p:
                sums[q] = sums.get(q, 0) + p * p
                if abs(p) * big_q > big_p * q:
                    big_p, big_q = abs(p), q
    total = sum((Fraction(s, q * q) for q, s in sums.items()), Fraction(0))
    largest = Fraction(big_p, big_q)
    if total != stated:
        raise CheckFailed(f"squared_error is {display(stated)}, but the exact sum of squared differences is {display(total)}")
    if stated_max is not None and stated_max != largest:
        raise CheckFailed(f"max_abs_error is {display(stated_max)}, but the exact largest difference is {display(largest)}")
    extra = f", largest |error| {approx(largest)}" if stated_max is not None else ""
    return (f"residual: {len(X)} samples x {len(Y[0][0])} outputs, squared error {approx(total)}{extra}, "
            f"stated exactly {_shape(X, Y, U, b, offset, c)}")
