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

import hashlib
import json
import math
from fractions import Fraction
from itertools import compress, repeat
from operator import add, floordiv, mod, mul, sub

from .common import (CheckFailed, UnreadableInput, activation_degree, approx, canonical, display, is_pair, only_fields,
                     parse_rational, read_matrix, read_vector)
from .deep import HiddenLayers, read_network
from .instance import bound_instance
from .packed import Packed
from .realizes_bounds import OutputBound, bounded_rows

_NETWORK_FIELDS = {"format", "version", "claim", "instance_sha256", "activation", "U", "V", "b", "c", "layers",
                   "provenance"}


def parse_network(cert: dict, d: int, m: int, activation, extra: set) -> tuple:
    """Parse the network of a certificate about an instance of d inputs and m outputs (with this activation):
    (U, V, b, offset, c, hidden, bound, shape) with ``offset`` the output bias (m entries), c the activation degree,
    ``hidden`` the layers below the last two (:class:`.deep.HiddenLayers`; None for a network given by U, V, b, c)
    and ``bound`` the last two layers' bound (:class:`.realizes_bounds.OutputBound`). Reads no sample."""
    only_fields(cert, _NETWORK_FIELDS | extra)
    c = activation_degree(cert.get("activation"))
    if activation is not None and activation_degree(activation) != c:
        raise CheckFailed("the certificate's activation differs from the instance's")
    if "layers" in cert:
        return _deep_network(cert, d, m, c)
    Vraw = cert.get("V")
    if not isinstance(Vraw, list) or not Vraw:
        raise CheckFailed("V must be a non-empty list of rows")
    k = len(Vraw)
    U = read_matrix(cert.get("U"), m, k, "U")
    V = read_matrix(Vraw, k, d, "V")
    b = read_vector(cert["b"], k, "b") if "b" in cert else [Fraction(0)] * k
    offset = read_vector(cert["c"], m, "c") if "c" in cert else [Fraction(0)] * m
    return U, V, b, offset, c, None, OutputBound(U, V, b, offset, c), _shape(d, U, b, offset, c)


def _deep_network(cert: dict, d: int, m: int, c: int) -> tuple:
    """:func:`parse_network` for ``"layers"``: the layers but the last two enter as ``hidden``, the last two as V, b
    and U, c."""
    if {"U", "V", "b", "c"} & set(cert):
        raise CheckFailed("a network has 'layers' or U, V, b, c, not both")
    layers = read_network({"activation": cert["activation"], "layers": cert["layers"]}, 1)[1]
    widths = [len(layers[0][0][0])] + [len(W) for W, _ in layers]
    if len(layers) < 2 or widths[0] != d or widths[-1] != m:
        raise CheckFailed(f"the layers (widths {widths}) must be two or more, from the instance's d = {d} "
                          f"inputs to its m = {m} outputs")
    hidden = HiddenLayers(layers[:-2], c)
    (V, b), (U, offset) = layers[-2], layers[-1]
    return (U, V, b, offset, c, hidden, OutputBound(U, V, b, offset, c),
            f"(layers {'-'.join(map(str, widths))}, activation degree {c})")


def _differences(X, Y, U, V, b, offset, c, first: int = 0):
    """For every row j of X, Y in order: (first + j, ps, qs) with network_jr - labels_jr == ps[r] / qs[r], qs[r] > 0,
    for every output r.

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
    for j, ((nums, dens), (ynum, yden)) in enumerate(zip(X, Y), first):
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


def _shape(d, U, b, offset, c) -> str:
    bias = (", hidden biases" if any(b) else "") + (", output bias" if any(offset) else "")
    return f"(k={len(U[0])}, d={d}, activation degree {c}{bias})"


def check_realizes(cert: dict, instance: dict) -> str:
    """Verify the claim ``realizes``; return a one-line summary or raise CheckFailed."""
    return combine(cert, [part(_claim(cert, "realizes"), instance)])


def check_realizes_except(cert: dict, instance: dict) -> str:
    """Verify ``realizes-except``: the network differs from the labels exactly at the listed entries.

    An optional ``"max_except": "p/q"`` bounds the listed entries to that fraction of the n m entries.
    """
    return combine(cert, [part(_claim(cert, "realizes-except"), instance)])


def check_residual(cert: dict, instance: dict) -> str:
    """Verify ``residual``: the stated squared error (and largest absolute error) are exact."""
    return combine(cert, [part(_claim(cert, "residual"), instance)])


def _claim(cert: dict, claim: str) -> dict:
    if cert.get("claim") != claim:
        raise CheckFailed(f"not a '{claim}' certificate")
    return cert


#: The claims checked sample by sample, so in independent ranges of samples, and the fields each adds.
RANGE_CLAIMS = {"realizes": set(), "realizes-except": {"except", "max_except"},
                "residual": {"squared_error", "max_abs_error"}}


def certificate_sha256(cert: dict) -> str:
    """The SHA-256 of a certificate's canonical JSON text: binds a range's verdict to its certificate."""
    return hashlib.sha256(json.dumps(cert, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def part(cert: dict, instance: dict, start: int = 0, stop: int | None = None) -> dict:
    """Check the samples ``start <= j < stop`` of a ``realizes``, ``realizes-except`` or ``residual`` claim.

    Returns the range's verdict, a dict of plain values (JSON- and pickle-friendly) bound to the certificate and
    instance hashes, for :func:`combine`; raises CheckFailed at the first entry of the range that refutes the claim.
    """
    claim = cert.get("claim")
    if claim not in RANGE_CLAIMS:
        raise CheckFailed(f"claim {claim!r} is not checked by ranges of samples")
    only_fields(cert, _NETWORK_FIELDS | RANGE_CLAIMS[claim])
    X, Y = bound_instance(cert, instance, claim)
    n = len(X)
    stop = n if stop is None else stop
    if not (type(start) is int and type(stop) is int and 0 <= start < stop <= n):
        raise UnreadableInput(f"the range {start}:{stop} is not one of samples 0 <= START < STOP <= {n}")
    return part_of_rows(cert, X[start:stop], Y[start:stop], instance.get("activation"), start, n)


def part_of_rows(cert: dict, X: list, Y: list, activation, start: int, n: int) -> dict:
    """:func:`part` on the parsed rows of samples ``start .. start + len(X) - 1`` of an instance of n samples.

    The caller binds the rows to the certificate's ``instance_sha256`` (a parallel check hashes its workers'
    rows in order); the verdict is valid only together with that binding.
    """
    claim = cert.get("claim")
    if claim not in RANGE_CLAIMS:
        raise CheckFailed(f"claim {claim!r} is not checked by ranges of samples")
    m = len(Y[0][0])
    U, V, b, offset, c, hidden, bound, shape = parse_network(cert, len(X[0][0]), m, activation, RANGE_CLAIMS[claim])
    H = bounded_rows(hidden, bound, X, Y, start)  # before any sample is evaluated
    rows = _differences(H, Y, U, V, b, offset, c, start)
    verdict = {"claim": claim, "certificate_sha256": certificate_sha256(cert), "instance_sha256": cert["instance_sha256"],
               "n": n, "m": m, "samples": [start, start + len(X)], "shape": shape}
    if claim == "realizes":
        for j, ps, _ in rows:
            if any(ps):
                raise CheckFailed(f"sample {j}, output {_first_nonzero(ps)}: the network's value differs from the label")
    elif claim == "realizes-except":
        _except_part(_listed(cert, n, m)[0], rows, m)
    else:
        _stated(cert)
        verdict.update(_residual_part(rows))
    return verdict


def combine(cert: dict, parts: list) -> str:
    """The verdict on the whole claim from the verdicts of ranges that tile the samples 0..n-1 (from :func:`part`)."""
    claim = cert.get("claim")
    if not parts or claim not in RANGE_CLAIMS:
        raise CheckFailed("nothing to combine")
    first = parts[0]
    same = {key: first.get(key) for key in ("claim", "instance_sha256", "n", "m", "shape")}
    same["certificate_sha256"] = certificate_sha256(cert)
    if same["claim"] != claim or same["instance_sha256"] != cert.get("instance_sha256") \
            or any({key: p.get(key) for key in same} != same for p in parts):
        raise CheckFailed("the ranges' verdicts are not all about this certificate and its instance")
    n, m = same["n"], same["m"]
    spans = sorted(tuple(p["samples"]) for p in parts)
    if spans[0][0] != 0 or spans[-1][1] != n or any(a[1] != b[0] for a, b in zip(spans, spans[1:])):
        raise CheckFailed(f"the ranges {spans[:5]} do not tile the samples 0..{n - 1} exactly once")
    if claim == "realizes":
        return f"realizes: {n} samples x {m} outputs equal exactly {same['shape']}"
    if claim == "realizes-except":
        entries, bound = _listed(cert, n, m)
        return (f"realizes-except: all {n * m:,} entries ({n:,} samples x {m} outputs) except {len(entries):,} "
                f"({_percent(len(entries), n * m)}{bound}) equal exactly, and the {len(entries):,} excepted all differ "
                f"{same['shape']}")
    return _residual_verdict(cert, parts, n, m, same["shape"])


def _listed(cert: dict, n: int, m: int) -> tuple:
    """(the listed entries of ``realizes-except``, sorted pairs, and the text of its bound), refused when malformed."""
    listed = cert.get("except")
    if not isinstance(listed, list) or not all(isinstance(e, list) and len(e) == 2 and is_pair(e, n, m) for e in listed):
        raise CheckFailed(f"except must be a list of [sample, output] pairs with 0 <= sample < {n}, 0 <= output < {m}")
    entries = [tuple(e) for e in listed]
    if any(a >= b_ for a, b_ in zip(entries, entries[1:])):
        raise CheckFailed("except must be sorted, without duplicates")
    return entries, _max_except(cert, len(entries), n * m)  # before any work


def _except_part(entries: list, rows, m: int) -> None:
    """Every entry of the rows differs from its label exactly when it is listed."""
    listed_at: dict = {}  # sample -> its listed outputs, in order
    for j, r in entries:
        listed_at.setdefault(j, []).append(r)
    outputs = range(m)
    for j, ps, _ in rows:
        differ = list(compress(outputs, ps))
        expected = listed_at.get(j, [])
        if differ != expected:
            r = min(set(differ) ^ set(expected))  # the first entry where they disagree
            if r in expected:
                raise CheckFailed(f"sample {j}, output {r} is listed as corrupted but the network reproduces it")
            raise CheckFailed(f"sample {j}, output {r}: the network's value differs from the label and is not listed")


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


def _stated(cert: dict) -> tuple:
    """The stated squared error and largest absolute error (None when not stated) of a ``residual`` certificate."""
    if "squared_error" not in cert:
        raise CheckFailed("residual needs 'squared_error'")
    stated_max = parse_rational(cert["max_abs_error"]) if "max_abs_error" in cert else None
    return parse_rational(cert["squared_error"]), stated_max


def _residual_part(rows) -> dict:
    """The exact sum of squared differences and the largest |difference| over the rows, as exact Fractions.

    The differences p / q of a batch of rows are put over one denominator L, the lcm of their distinct q (the
    rows of a float instance have few, all a power of two times one factor per output): p / q = p (L/q) / L, so
    the batch adds ``sum (p L/q)^2`` over L^2 and its largest is ``max |p L/q|`` over L, each a loop in C over
    the entries (no gcd, no comparison per entry). When L would be much longer than the longest q (many distinct
    denominators) each q of the batch keeps its own sum instead (:func:`_by_denominator`).
    """
    sums: dict[int, int] = {}  # denominator -> the sum of squared numerators over it
    big_p, big_q = 0, 1  # the largest |p| / q so far, compared by cross-multiplication (once per batch)
    ps: list = []
    qs: list = []
    for _, p, q in rows:
        ps += p
        qs += q
        if len(ps) >= _BATCH:
            big_p, big_q = _batch(ps, qs, sums, big_p, big_q)
            ps, qs = [], []
    if ps:
        big_p, big_q = _batch(ps, qs, sums, big_p, big_q)
    total = sum((Fraction(s, q * q) for q, s in sums.items()), Fraction(0))
    return {"squared_error": total, "max_abs_error": Fraction(big_p, big_q)}  # text only when printed (--range)


_BATCH = 1 << 14  #: entries put over one denominator at a time (bounds the lists a part holds)


def _batch(ps: list, qs: list, sums: dict, big_p: int, big_q: int) -> tuple:
    """Add the entries ps[i] / qs[i] to ``sums``; return the largest |p| / q of them and (big_p, big_q)."""
    distinct = set(qs)
    top = max(distinct).bit_length() + 64
    L = 1
    for q in distinct:
        L = L * q // math.gcd(L, q)
        if L.bit_length() > top:
            return _by_denominator(ps, qs, sums, big_p, big_q)
    factor = {q: L // q for q in distinct}
    scaled = list(map(mul, ps, map(factor.__getitem__, qs)))  # p / q == scaled / L
    sums[L] = sums.get(L, 0) + sum(map(mul, scaled, scaled))
    p = max(map(abs, scaled))
    return (p, L) if p * big_q > big_p * L else (big_p, big_q)


def _by_denominator(ps: list, qs: list, sums: dict, big_p: int, big_q: int) -> tuple:
    """:func:`_batch` entry by entry: one sum per denominator, the largest by cross-multiplication."""
    for p, q in zip(ps, qs):
        if p:
            sums[q] = sums.get(q, 0) + p * p
            if abs(p) * big_q > big_p * q:
                big_p, big_q = abs(p), q
    return big_p, big_q


def _exact(x) -> Fraction:
    """A part's number: a Fraction from this process or a worker, or canonical text from a printed range verdict."""
    return x if isinstance(x, Fraction) else parse_rational(x)


def _residual_verdict(cert: dict, parts: list, n: int, m: int, shape: str) -> str:
    stated, stated_max = _stated(cert)
    total = sum((_exact(p["squared_error"]) for p in parts), Fraction(0))
    largest = max(_exact(p["max_abs_error"]) for p in parts)
    if total != stated:
        raise CheckFailed(f"squared_error is {display(stated)}, but the exact sum of squared differences is {display(total)}")
    if stated_max is not None and stated_max != largest:
        raise CheckFailed(f"max_abs_error is {display(stated_max)}, but the exact largest difference is {display(largest)}")
    extra = f", largest |error| {approx(largest)}" if stated_max is not None else ""
    return f"residual: {n} samples x {m} outputs, squared error {approx(total)}{extra}, stated exactly {shape}"
