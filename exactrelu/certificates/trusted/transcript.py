"""The claim ``transcript``: an oracle's answers at its queries, a network that reproduces every one of them, and a
lower bound on the units of every network that does. Standard library only.

The queries come in blocks, each with its answers (m rationals per point, in order):

``{"line": {"p": [d], "q": [d]}, "t": [n], "answers": [[m] x n]}``
    the points ``p + t q``, one for each t;
``{"axes": {"x": [d], "step": "h"}, "answers": [[m] x d]}``
    the d points ``x + h e_l``, l = 0, ..., d - 1 (e_l the l-th unit vector); with ``"basis": i`` in ``"axes"``, the
    n points ``x + h u_l`` for the n vectors u_l of basis i of the certificate's ``"bases"`` (``[[[d] x n], ...]``);
``{"points": [[d] x n], "answers": [[m] x n]}``
    the points as written.

A certificate has ``"d"``, ``"m"``, ``"queries"`` (the blocks) and at least one of:

``"network"``
    a ReLU network ``{"activation", "U", "V", "b", "c"}`` (as in the equivalence claims; b and c optional): it
    gives every answer exactly at its point. A line block is checked through ``V p + b`` and ``V q`` (k d work once,
    then k per point); an axis block through ``V x + b`` and V's columns (k d once, k per point).
``"windows"``
    ``{"block": i, "points": [[a, b, c], ...]}`` on the line block i: for every window ``t_a < t_b < t_c`` and the
    answers there are not collinear (in some output), and the windows are sorted with ``t_c <= t_a`` of the next
    (disjoint open intervals). Then every network ``U relu(V x + b) + c`` (one hidden layer, any width, any biases)
    that gives these answers has at least as many units as there are windows: on the line it is
    ``g(t) = sum_i U_i relu(V_i p + b_i + t V_i q) + c``, affine except at ``t_i = -(V_i p + b_i) / V_i q`` (one
    point per unit, none when V_i q = 0); an affine function on ``[t_a, t_c]`` makes the three answers collinear, so
    g has some t_i in every open window, and disjoint windows hold distinct t_i (docs/certificates.md, "Transcripts").

A ``network`` with ``"layers"`` (any depth, as in the deep equivalence claims), or any network when the certificate
has bases, is checked by :class:`_DeepNet`: each layer over one denominator, the first layer's pre-activations per
block as for one hidden layer (a basis's images ``W_1 u_l`` once per basis), the layers above point by point in
integers, or on a line once per activation pattern (docs/certificates.md, "Deep networks in a transcript", gives
the proof).

Every comparison is in integers (a unit as (w, L) with (V_i, b_i) = w / L; a point over one denominator E; the
output row r over Du[r], the output bias over Dc); the integers' sizes are bounded before each block is evaluated.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import repeat
from math import gcd
from operator import add, mul

from .common import CheckFailed, cap_bits, digits_of, lcm_within, only_fields, over
from .deep import read_network
from .equivalence import network_units, rational_row, rational_rows
from .packed import Packed

__all__ = ["check_transcript"]

_FIELDS = {"format", "version", "claim", "d", "m", "queries", "bases", "network", "windows", "provenance"}


def _dimension(cert: dict, name: str) -> int:
    value = cert.get(name)
    if type(value) is not int or value < 1:
        raise CheckFailed(f"{name} must be a positive integer")
    return value


def _flat(obj, rows: int | None, cols: int, name: str) -> tuple[list[int], list[int] | None]:
    """A list of ``rows`` (any number, at least one, when None) lists of ``cols`` rationals, read as one row:
    (numerators, denominators or None when all are 1), row-major."""
    if not isinstance(obj, list) or not obj or (rows is not None and len(obj) != rows):
        raise CheckFailed(f"{name} must be a non-empty list" + (f" of {rows} rows" if rows is not None else ""))
    if not all(isinstance(r, list) and len(r) == cols for r in obj):
        raise CheckFailed(f"every row of {name} must be a list of {cols} rationals")
    return rational_row([x for r in obj for x in r])


def _over_one(nums: list[int], dens: list[int] | None, name: str) -> tuple[list[int], int]:
    """Rationals nums / dens as (integers, their common denominator)."""
    if dens is None:
        return list(nums), 1
    D = lcm_within(dens, cap_bits(), name)
    return [p * (D // q) for p, q in zip(nums, dens)], D


def _bits(values) -> int:
    return max(map(int.bit_length, values), default=0)


class _Net:
    """A parsed ReLU network, ready for integer evaluation: unit rows w_i (d + 1 integers) over L_i, the output
    weights ``U[r][i] / L_i = Na[r][i] / Du[r]`` and the output bias ``Nc[r] / Dc``."""

    def __init__(self, obj, d: int, m: int):
        degree, cols, units, out, nd, nm = network_units(obj, 1)
        if degree != 1:
            raise CheckFailed("the transcript claim is about ReLU networks (activation relu)")
        if (nd, nm) != (d, m):
            raise CheckFailed(f"the network has d = {nd}, m = {nm}; the transcript has d = {d}, m = {m}")
        self.k, self.m, self.cap = len(units), m, cap_bits()
        self.w = [w for w, _ in units]
        self.units = Packed(self.w)  # the k dot products of a point, in one pass (.packed)
        self.wcols = list(zip(*(w[:d] for w in self.w)))  # column l: (w_0[l], ..., w_{k-1}[l])
        self.columns = Packed([list(col) for col in self.wcols])  # sum_i a_i w_i[l] for every l, in one pass
        self.wmax = [max(map(abs, w[:d])) for w in self.w]
        self.Na, Du = [], []
        for r in range(m):
            row = [cols[i][r] / L for i, (_, L) in enumerate(units)]
            D = lcm_within([f.denominator for f in row], self.cap, f"output {r}")
            self.Na.append([f.numerator * (D // f.denominator) for f in row])
            Du.append(D)
        Dc = lcm_within([f.denominator for f in out], self.cap, "the output bias")
        Nc = [f.numerator * (Dc // f.denominator) for f in out]
        self.NcDu = [n * D for n, D in zip(Nc, Du)]  # value_r E Dc Du[r] = Dc sum_i Na[r][i] relu(T_i) + NcDu[r] E
        self.Dc, self.DcDu = Dc, [Dc * D for D in Du]
        self.w_bits = _bits(v for w in self.w for v in w) + (d + 1).bit_length()
        self.out_bits = (_bits(v for row in self.Na for v in row) + self.k.bit_length() + Dc.bit_length()
                         + _bits(Du) + _bits(Nc) + 2)

    def bound(self, t_bits: int, e_bits: int, answers, where: str) -> None:
        """Refuse a block whose pre-activations (t_bits) or comparisons would be over the limit ``intermediate``."""
        nums, dens = answers
        total = _bits(nums) + _bits(dens or ()) + self.out_bits + max(t_bits, e_bits)
        if max(t_bits, total) > self.cap:
            raise over("intermediate", f"the exact check of {where} (integers of about {digits_of(total)} digits)")

    def compare(self, T: list[int], E: int, answers, at: int, where: str) -> None:
        """The network's outputs, ``sum_i Na[r][i] relu(T_i) / (Du[r] E) + Nc[r] / Dc``, equal the answers from
        position ``at`` of the flat answers (numerators, denominators or None)."""
        h = list(map(max, T, repeat(0)))
        self.equal([sum(map(mul, Na, h)) for Na in self.Na], E, answers, at, where)

    def equal(self, S: list[int], E: int, answers, at: int, where: str) -> None:
        """``S[r] / (Du[r] E) + Nc[r] / Dc`` (S[r] = sum_i Na[r][i] relu(T_i)) equals the answer, for every r."""
        nums, dens = answers
        for r, s in enumerate(S):
            yd = 1 if dens is None else dens[at + r]
            if yd * (self.Dc * s + self.NcDu[r] * E) != nums[at + r] * self.DcDu[r] * E:
                raise CheckFailed(f"{where}, output {r}: the network's value differs from the answer")

    def axes(self, Z: list[int], g: int, E: int, answers, where: str) -> None:
        """The d probes ``T_il = Z_i + g w_i[l]`` of an axis batch. A unit with ``|Z_i| > |g| max_l |w_i[l]|`` has
        the sign of Z_i at every probe: off, it adds nothing; on, it adds ``Na_i (Z_i + g w_i[l])``, so the on
        units add ``C + g G[l]`` with ``C = sum Na_i Z_i`` and ``G[l] = sum Na_i w_i[l]`` (one packed pass for every
        l); the other units are added probe by probe."""
        bound = [abs(g) * M for M in self.wmax]
        on = [z > b for z, b in zip(Z, bound)]
        near = [i for i, (z, b) in enumerate(zip(Z, bound)) if -b <= z <= b]
        C = [sum(a * z for a, z, o in zip(Na, Z, on) if o) for Na in self.Na]
        G = [self.columns.dot([a if o else 0 for a, o in zip(Na, on)]) for Na in self.Na]
        for l, col in enumerate(self.wcols):
            h = [(i, max(Z[i] + g * col[i], 0)) for i in near]
            S = [c + g * Gr[l] + sum(Na[i] * t for i, t in h) for c, Gr, Na in zip(C, G, self.Na)]
            self.equal(S, E, answers, l * self.m, f"{where}, axis {l}")


_KINDS = {"line": {"line", "t", "answers"}, "axes": {"axes", "answers"}, "points": {"points", "answers"}}


def _bases(obj, d: int) -> list:
    """The certificate's bases, each a non-empty list of vectors of d rationals: (their integers U_l, EU) with
    ``u_l = U_l / EU``."""
    if not isinstance(obj, list) or not obj:
        raise CheckFailed("bases must be a non-empty list of bases (each a list of vectors of d rationals)")
    out = []
    for i, basis in enumerate(obj):
        U, EU = _over_one(*_flat(basis, None, d, f"basis {i}"), f"basis {i}")
        out.append(([U[j:j + d] for j in range(0, len(U), d)], EU))
    return out


def _block(block, d: int, m: int, bases: list) -> tuple[str, object, int, tuple]:
    """(kind, its points' parameters, number of points, flat answers) of one block, its fields checked: a line's
    (P, Q, D, tn, td) with p = P / D, q = Q / D, t = tn / td; an axis batch's (X, DX, h, basis index or None); the
    points' (X, E) rows."""
    kind = next((key for key in _KINDS if key in block), None) if isinstance(block, dict) else None
    if kind is None or set(block) != _KINDS[kind]:
        raise CheckFailed('every query block is {"line", "t", "answers"}, {"axes", "answers"} or {"points", "answers"}')
    if kind == "line":
        line = block["line"]
        if not isinstance(line, dict) or set(line) != {"p", "q"}:
            raise CheckFailed('a line block needs "line": {"p": [d rationals], "q": [d rationals]}')
        P, D = _over_one(*_flat([line["p"], line["q"]], 2, d, "p and q"), "a line")
        tn, td = _flat([block["t"]], 1, len(block["t"]) if isinstance(block["t"], list) else -1, "t")
        td = td or [1] * len(tn)
        params, n = (P[:d], P[d:], D, tn, td), len(tn)
    elif kind == "axes":
        axes = block["axes"]
        if not isinstance(axes, dict) or set(axes) - {"basis"} != {"x", "step"}:
            raise CheckFailed('an axis block needs "axes": {"x": [d rationals], "step": rational} (and "basis": i)')
        basis = axes.get("basis")
        if basis is not None and (type(basis) is not int or not 0 <= basis < len(bases)):
            raise CheckFailed("axes.basis must be the index of one of the certificate's bases")
        X, DX = _over_one(*_flat([axes["x"]], 1, d, "x"), "x")
        hn, hd = _flat([[axes["step"]]], 1, 1, "step")
        params = (X + [DX], DX, Fraction(hn[0], hd[0] if hd else 1), basis)
        n = d if basis is None else len(bases[basis][0])
    else:
        rows = rational_rows(block["points"], None, d, "points")
        params, n = [_over_one(nums, dens, "a point") for nums, dens in rows], len(rows)
    return kind, params, n, _flat(block["answers"], n, m, "answers")


def _check_block(net: _Net, kind: str, params, answers, d: int, where: str) -> None:
    """Every answer of one block equals the network's value at its point (module docstring)."""
    m = net.m
    if kind == "line":
        P, Q, D, tn, td = params
        A = net.units.dot(P + [D])  # L_i D (V_i p + b_i)
        S = net.units.dot(Q + [0])  # L_i D V_i q
        net.bound(net.w_bits + max(_bits(P), _bits(Q), D.bit_length()) + max(_bits(tn), _bits(td)) + 1,
                  D.bit_length() + _bits(td), answers, where)
        for j, (a, b) in enumerate(zip(tn, td)):
            net.compare(list(map(add, map(mul, A, repeat(b)), map(mul, S, repeat(a)))), D * b, answers, j * m,
                        f"{where}, point {j}")
    elif kind == "axes":
        X, DX, h, _ = params  # a block with a basis is checked by _DeepNet
        if h == 0:
            raise CheckFailed(f"{where}: the step of an axis block must be non-zero")
        Z = list(map(mul, net.units.dot(X), repeat(h.denominator)))  # L_i DX hd (V_i x + b_i)
        g, E = h.numerator * DX, DX * h.denominator
        net.bound(net.w_bits + _bits(X) + h.denominator.bit_length() + h.numerator.bit_length() + 1, E.bit_length(),
                  answers, where)
        net.axes(Z, g, E, answers, where)
    else:
        e_bits = max(E.bit_length() for _, E in params)
        net.bound(net.w_bits + max(_bits(X) for X, _ in params) + e_bits, e_bits, answers, where)
        for j, (X, E) in enumerate(params):
            net.compare(net.units.dot(X + [E]), E, answers, j * m, f"{where}, point {j}")


def _dots(rows, x: list[int], C: int) -> list[int]:
    """``[NW_i . x + Nb_i C for each row]`` of rows stored as (g, r) with ``[NW_i | Nb_i] = g r`` (g the content of
    the row: a large common factor is multiplied once, not d times)."""
    return [g * (sum(map(mul, r, x)) + r[-1] * C) for g, r in rows]  # zip stops at x: r[-1] is the bias


class _DeepNet:
    """A network of any depth (``"layers"``) in integers: layer t as the rows ``[NW_t | Nb_t]`` over one denominator
    D_t (W_t = NW_t / D_t, b_t = Nb_t / D_t). A value h over C goes through layer t as ``NW_t h + Nb_t C`` over
    ``D_t C`` (:func:`_dots`). The first layer's pre-activations of a block come as in :class:`_Net` (a line's
    ``b A + a S`` at t = a / b, an axis batch's ``Z + g w[l]``); on a line, the layers above are shared by the points
    with the same activation patterns below (:meth:`line`)."""

    def __init__(self, obj, d: int, m: int, bases: list):
        degree, layers = read_network(obj, "of the transcript")
        if degree != 1:
            raise CheckFailed("the transcript claim is about ReLU networks (activation relu)")
        if (len(layers[0][0][0]), len(layers[-1][0])) != (d, m):
            raise CheckFailed(f"the network has d = {len(layers[0][0][0])}, m = {len(layers[-1][0])}; the "
                              f"transcript has d = {d}, m = {m}")
        self.k, self.m, self.cap, self.layers = "-".join(str(len(W)) for W, _ in layers[:-1]), m, cap_bits(), []
        self.bases, self.images = bases, {}
        for t, (W, b) in enumerate(layers):
            D = lcm_within([f.denominator for row in W for f in (*row, *b)], self.cap, f"layer {t}")
            rows = [[f.numerator * (D // f.denominator) for f in (*row, bi)] for row, bi in zip(W, b)]
            norm = max(sum(map(abs, r)) for r in rows)  # |NW_i . h + Nb_i C| <= norm max(|h|, C)
            self.layers.append(([(g, [v // g for v in r]) for r in rows for g in [gcd(*r) or 1]], D, norm))
            self.cols = self.cols if t else list(zip(*rows))[:d]  # column l of NW_1
        self.grow = max((max(n.bit_length(), D.bit_length()) for _, D, n in self.layers[1:]), default=0)

    def bound(self, first_bits: int, t_bits: int, answers, where: str) -> None:
        """Refuse a block whose values are over the limit ``intermediate``: ``first_bits`` bounds the bits of the
        first layer's values and their denominator (of a line's A, S and C: then ``t_bits`` those of t's parts);
        each layer above adds at most ``grow`` bits (``|NW h + Nb C| <= norm max(|h|, C)``, ``D C``)."""
        nums, dens = answers
        total = first_bits + self.layers[0][2].bit_length() + self.grow * (len(self.layers) - 1) + t_bits + 1
        if total + _bits(nums) + _bits(dens or ()) > self.cap:
            raise over("intermediate", f"the exact check of {where} (integers of about {digits_of(total)} digits)")

    def up(self, T: list[int], C: int) -> tuple[list[int], int]:
        """The first layer's pre-activations T over C through the layers above: the outputs over their
        denominator."""
        for rows, D, _ in self.layers[1:]:
            T, C = _dots(rows, [v if v > 0 else 0 for v in T], C), C * D
        return T, C

    def equal(self, out: list[int], C: int, answers, at: int, where: str) -> None:
        nums, dens = answers
        for r, v in enumerate(out):
            if (1 if dens is None else dens[at + r]) * v != nums[at + r] * C:
                raise CheckFailed(f"{where}, output {r}: the network's value differs from the answer")

    def line(self, A: list[int], S: list[int], C: int, tn, td, answers, where: str) -> None:
        """The points ``t = a / b`` (b > 0) of a line whose first-layer pre-activations are ``(b A + a S) / (b C)``.
        Where layer t's pre-activations are ``(b A_t + a S_t) / (b C_t)`` and its active units are the mask,
        layer t + 1's are ``(b A' + a S') / (b C_t D)`` with ``A' = NW (mask A_t) + Nb C_t``,
        ``S' = NW (mask S_t)``: the same for every point with the same masks so far (computed once for each)."""
        shared: dict = {}
        for j, (a, b) in enumerate(zip(tn, td)):
            At, St, Ct, key = A, S, C, ()
            for rows, D, _ in self.layers[1:]:
                mask = tuple(x * b + y * a > 0 for x, y in zip(At, St))
                key = (key, mask)
                if key not in shared:
                    shared[key] = (_dots(rows, [x if o else 0 for x, o in zip(At, mask)], Ct),
                                   _dots(rows, [y if o else 0 for y, o in zip(St, mask)], 0))
                (At, St), Ct = shared[key], Ct * D
            self.equal([x * b + y * a for x, y in zip(At, St)], Ct * b, answers, j * self.m, f"{where}, point {j}")

    def check(self, kind: str, params, answers, d: int, where: str) -> None:
        """Every answer of one block equals the network's value at its point (class docstring)."""
        first, D1, _ = self.layers[0]
        if kind == "line":
            P, Q, D, tn, td = params
            self.bound(max(_bits(P), _bits(Q), D.bit_length()) + D1.bit_length(), max(_bits(tn), _bits(td)),
                       answers, where)
            self.line(_dots(first, P, D), _dots(first, Q, 0), D1 * D, tn, td, answers, where)
        elif kind == "axes":  # x + h u_l = (hd EU X + hn DX U_l) / (DX hd EU): T = hd EU Z0 + hn DX (NW_1 U_l)
            X, DX, h, basis = params
            U, EU = (None, 1) if basis is None else self.bases[basis]
            u_bits = 1 if basis is None else _bits(v for u in U for v in u)
            self.bound(_bits(X) + h.denominator.bit_length() + h.numerator.bit_length() + EU.bit_length() + u_bits
                       + D1.bit_length() + 1, 0, answers, where)
            if basis is not None and basis not in self.images:  # NW_1 u_l for every l, once per basis
                self.images[basis] = [_dots(first, u, 0) for u in U]
            cols = self.cols if basis is None else self.images[basis]
            Z = [v * h.denominator * EU for v in _dots(first, X[:d], DX)]
            g, C = h.numerator * DX, D1 * DX * h.denominator * EU
            for l, col in enumerate(cols):
                self.equal(*self.up([z + g * w for z, w in zip(Z, col)], C), answers, l * self.m, f"{where}, axis {l}")
        else:
            self.bound(max(max(_bits(X), E.bit_length()) for X, E in params) + D1.bit_length(), 0, answers, where)
            for j, (X, E) in enumerate(params):
                self.equal(*self.up(_dots(first, X, E), D1 * E), answers, j * self.m, f"{where}, point {j}")


def _windows(obj, blocks: list, m: int) -> tuple[int, int]:
    """(number of windows, their block) after checking them (module docstring)."""
    if not isinstance(obj, dict) or set(obj) != {"block", "points"}:
        raise CheckFailed('windows must be {"block": i, "points": [[a, b, c], ...]}')
    i = obj["block"]
    if type(i) is not int or not 0 <= i < len(blocks) or blocks[i][0] != "line":
        raise CheckFailed("windows.block must be the index of a line block")
    _, (_, _, _, tn, td), n, (nums, dens) = blocks[i]
    points, last = obj["points"], None
    if not isinstance(points, list):
        raise CheckFailed("windows.points must be a list of [a, b, c] index triples")
    for count, triple in enumerate(points):
        if not (isinstance(triple, list) and len(triple) == 3 and all(type(j) is int and 0 <= j < n for j in triple)):
            raise CheckFailed(f"window {count} must be three indices of points of block {i}")
        ta, tb, tc = (Fraction(tn[j], td[j]) for j in triple)
        ya, yb, yc = ([Fraction(nums[j * m + r], dens[j * m + r] if dens else 1) for r in range(m)] for j in triple)
        if not ta < tb < tc:
            raise CheckFailed(f"window {count}: its points are not in increasing order of t")
        if last is not None and ta < last:
            raise CheckFailed(f"window {count} overlaps the window before it (or the windows are not sorted)")
        if all((b - a) * (tc - ta) == (c - a) * (tb - ta) for a, b, c in zip(ya, yb, yc)):
            raise CheckFailed(f"window {count}: the three answers are collinear (no kink is proved there)")
        last = tc
    return len(points), i


def _many(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def check_transcript(cert: dict, instance=None) -> str:
    """Verify ``transcript``: the network gives every answer, and the windows prove the lower bound (module
    docstring); return a one-line summary or raise CheckFailed."""
    only_fields(cert, _FIELDS)
    d, m = _dimension(cert, "d"), _dimension(cert, "m")
    raw = cert.get("queries")
    if not isinstance(raw, list) or not raw:
        raise CheckFailed("queries must be a non-empty list of blocks")
    if "network" not in cert and "windows" not in cert:
        raise CheckFailed("a transcript certificate states a network, windows, or both")
    bases = _bases(cert["bases"], d) if "bases" in cert else []
    blocks = [_block(block, d, m, bases) for block in raw]
    deep = "network" in cert and isinstance(cert["network"], dict) and "layers" in cert["network"]
    layered = deep or bool(bases)  # axis batches along a basis are checked by _DeepNet (any depth)
    net = None if "network" not in cert else _DeepNet(cert["network"], d, m, bases) if layered else \
        _Net(cert["network"], d, m)
    bound = _windows(cert["windows"], blocks, m) if "windows" in cert else None
    if net is not None:
        for n, (kind, params, _, answers) in enumerate(blocks):
            if kind == "axes" and params[2] == 0:
                raise CheckFailed(f"block {n} (axes): the step of an axis block must be non-zero")
            if layered:
                net.check(kind, params, answers, d, f"block {n} ({kind})")
            else:
                _check_block(net, kind, params, answers, d, f"block {n} ({kind})")
    count = {kind: sum(1 for b in blocks if b[0] == kind) for kind in _KINDS}
    text = (f"transcript: {_many(sum(b[2] for b in blocks), 'answer')} at the queries ({_many(count['line'], 'line')}, "
            f"{_many(count['axes'], 'axis batch', 'axis batches')}, {_many(count['points'], 'point block')}; "
            f"d = {d}, m = {m})")
    if net is not None:
        text += f"; the network ({'hidden widths' if deep else 'k ='} {net.k}) gives every one exactly"
    if bound is not None:
        text += (f"; every ReLU network U relu(V x + b) + c giving them has at least {_many(bound[0], 'unit')} "
                 f"({_many(bound[0], 'disjoint window')} of block {bound[1]} with answers not collinear)")
        if net is not None and not deep and str(net.k) == str(bound[0]):
            text += ", so none has fewer units than this network"
    return text
