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
"""

from __future__ import annotations

import math
from fractions import Fraction
from operator import mul

from .common import (CheckFailed, activation_degree, approx, cap_bits, digits_of, display, is_pair, lcm_within,
                     only_fields, over, parse_rational, read_matrix, read_vector)
from .instance import bound_instance

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
    bound_integers(X, Y, U, V, b, offset, c)  # before any sample is evaluated
    return X, Y, U, V, b, offset, c


def bound_integers(X, Y, U, V, b, offset, c) -> None:
    """Refuse a check whose integers would have more decimal digits than the limit ``intermediate``.

    Bounds, from the parsed numbers only: each unit's and each sample's common denominator (computed,
    stopping as soon as it is over), the pre-activation t from the numerators' sizes, then t^c, each
    output row's denominator Du and the products of the last step. Every integer the check makes is
    at most the product of these, so the work is O(n k (d + m)) operations on integers of at most
    the limit's digits (docs/limits.md).
    """
    cap = cap_bits()
    DV = [lcm_within([f.denominator for f in (*row, bi)], cap, f"unit {i}") for i, (row, bi) in enumerate(zip(V, b))]
    if max(c * D.bit_length() for D in DV) > cap:
        raise over("intermediate", f"the power {c} of a unit's denominator ({digits_of(c * max(DV).bit_length())} digits)")
    v_bits = max(abs(f.numerator).bit_length() - f.denominator.bit_length() + 1 + D.bit_length()
                 for row, bi, D in zip(V, b, DV) for f in (*row, bi))
    x_bits = y_bits = 0
    for j, ((nums, dens), (ynum, yden)) in enumerate(zip(X, Y)):
        Dx = lcm_within(dens, cap, f"sample {j}")
        x_bits = max(x_bits, Dx.bit_length() + max(abs(p).bit_length() for p in nums))
        y_bits = max(y_bits, max(abs(p).bit_length() + q.bit_length() for p, q in zip(ynum, yden)))
    t_bits = v_bits + x_bits + (len(V[0]) + 1).bit_length()  # |Nv . Nx + Nb Dx|
    powers = [D**c for D in DV]
    du_bits = max(lcm_within([(u / P).denominator for u, P in zip(row, powers)], cap, f"output {r}").bit_length()
                  for r, row in enumerate(U)) + max(abs(u.numerator).bit_length() for row in U for u in row)
    dc_bits = 2 * lcm_within([f.denominator for f in offset], cap, "the output bias").bit_length() + max(
        abs(f.numerator).bit_length() for f in offset)
    total = du_bits + c * t_bits + y_bits + dc_bits + (len(V) + 1).bit_length()
    if total > cap:
        raise over("intermediate", f"the exact check of this network (integers of up to about {digits_of(total)} digits: "
                                   f"activation degree {c} times pre-activations of up to {digits_of(t_bits)} digits)")


def _differences(X, Y, U, V, b, offset, c):
    """For every entry (j, r) in order: (j, r, p, q) with network_jr - labels_jr == p / q, q > 0."""
    k, m = len(V), len(U)
    # unit i over one denominator: V_i = Nv_i / D_i, b_i = Nb_i / D_i
    D = [math.lcm(bi.denominator, *(f.denominator for f in row)) for row, bi in zip(V, b)]
    Nv = [[f.numerator * (Di // f.denominator) for f in row] for row, Di in zip(V, D)]
    Nb = [bi.numerator * (Di // bi.denominator) for bi, Di in zip(b, D)]
    # U[r][i] / D_i^c = Na[r][i] / Du[r]
    A = [[U[r][i] / Fraction(D[i]) ** c for i in range(k)] for r in range(m)]
    Du = [math.lcm(*(f.denominator for f in row)) for row in A]
    Na = [[f.numerator * (Dr // f.denominator) for f in row] for row, Dr in zip(A, Du)]
    Dc = math.lcm(*(f.denominator for f in offset))  # the output bias c_r = Nc[r] / Dc
    Nc = [f.numerator * (Dc // f.denominator) for f in offset]
    for j, ((nums, dens), (ynum, yden)) in enumerate(zip(X, Y)):
        Dx = math.lcm(*dens)
        Nx = nums if Dx == 1 else [p * (Dx // q) for p, q in zip(nums, dens)]
        h = []
        for i in range(k):
            t = sum(map(mul, Nv[i], Nx)) + Nb[i] * Dx
            h.append(t**c if t > 0 else 0)
        scale = Dx**c
        for r in range(m):
            S = Du[r] * scale  # network_jr = sum(Na[r] h) / S + Nc[r] / Dc
            yield j, r, (yden[r] * (Dc * sum(map(mul, Na[r], h)) + Nc[r] * S) - ynum[r] * S * Dc), S * yden[r] * Dc


def _shape(X, Y, U, b, offset, c) -> str:
    bias = (", hidden biases" if any(b) else "") + (", output bias" if any(offset) else "")
    return f"(k={len(U[0])}, d={len(X[0][0])}, activation degree {c}{bias})"


def check_realizes(cert: dict, instance: dict) -> str:
    """Verify the claim ``realizes``; return a one-line summary or raise CheckFailed."""
    X, Y, U, V, b, offset, c = _network(cert, instance, "realizes", set())
    for j, r, p, _ in _differences(X, Y, U, V, b, offset, c):
        if p:
            raise CheckFailed(f"sample {j}, output {r}: the network's value differs from the label")
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
    expected = iter(entries + [None])
    nxt = next(expected)
    for j, r, p, _ in _differences(X, Y, U, V, b, offset, c):
        if (j, r) == nxt:
            if not p:
                raise CheckFailed(f"sample {j}, output {r} is listed as corrupted but the network reproduces it")
            nxt = next(expected)
        elif p:
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
    for _, _, p, q in _differences(X, Y, U, V, b, offset, c):
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
