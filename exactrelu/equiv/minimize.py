"""``exactrelu minimize``: a smallest network ``U f(V x + b) + c`` computing the same function (docs/equivalence.md).

From the canonical form ``sum_j beta_j f(p_j . (x, 1)) + A x + offset`` (:mod:`exactrelu.equiv.canonical`):
dead and zero units are gone, parallel units merged, opposite pairs folded, and every equivalent network
has a unit on each of the K hyperplanes p_j. On hyperplane j put ``P_j f(p_j . x~) + N_j f(-p_j . x~)``
with ``P_j + N_j = beta_j``: for the ReLU that is ``beta_j relu(p_j . x~) - N_j (p_j . x~)``, so a unit in
the negative orientation (``N_j = beta_j``, one unit) adds ``-beta_j v_j^T`` to the affine part, and two
units add any ``g v_j^T``. What is left of A, the model having no skip term, is written as pairs
``h relu(w . x) - h relu(-w . x) = h w^T x`` (two units per rank-one term). The offset is the output bias.

The candidates, each checked exactly equal to the input (the canonical forms, then
:func:`exactrelu.equiv.functionally_equal` with its certificate): the input's own orientations with its
parallel units merged (never more units than the input); all hyperplanes positive, or negative where the
input uses them only negatively, with A written by second units on hyperplanes whose normals lie in its row
space and pairs for the rest; and, when the normals are linearly independent, A's unique coordinates
``A = sum_j mu_j v_j^T + E``. The smallest candidate wins.

Lower bound (``lower_bound``, ``optimal`` when it is met). Units on one oriented hyperplane merge, so a
network computing the function has one or two units on each of the K hyperplanes and pairs elsewhere.
One unit on hyperplane j adds 0 or ``-beta_j v_j^T`` to A, a second one any ``g v_j^T``, a pair any rank-one
term. With independent normals: the component E of A outside their span needs ``2 rank E`` units of pairs;
when E = 0, mu is unique, and every j with ``mu_j`` neither 0 nor ``-beta_j`` ("bad") needs a second unit or
a pair, so at least ``K + min(bad, 2)`` units. With dependent normals only K is claimed: which hyperplanes
to orient negatively is then a subset-sum problem over vectors, not solved here. For t^c (c >= 2) the
polynomial terms ``g (q . x~)^c = g f(q . x~) + (-1)^c g f(-q . x~)`` take one or two units each and only K
is claimed.

>>> from exactrelu.network import Network
>>> net = Network.from_rows(U=[[1, -1, 2, 0, 3]], V=[[1, 1], [-1, -1], [2, 2], [5, 5], [0, 0]], b=[0, 0, 0, 1, -1])
>>> res = minimize(net)     # relu(z) - relu(-z) + 2 relu(2z) + 0 relu(5z+1) + 3 relu(-1) = 5 relu(z) - relu(-z)
>>> res.network.k, res.removed, res.optimal, res.lower_bound
(2, 3, True, 2)
>>> minimize(Network.from_rows(U=[[1, 1]], V=[[1], [2]], b=[1, 2])).network.to_json()["U"]
[['3']]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import flint

from ..errors import InvalidInput
from ..exact.linalg import exact_rank, independent_rows
from ..network import Activation, Network
from .canonical import CanonicalForm, _primitive, canonical_form, int_rows, row_denominator
from .equality import Equivalence, functionally_equal

__all__ = ["Minimized", "minimize", "network_from_form"]


@dataclass
class Minimized:
    """The smallest equivalent network found, its proof of equivalence, and what is known of its size.

    Attributes
    ----------
    network : the minimized network (same activation, d, m).
    removed : units of the input minus units of the output (never negative).
    lower_bound : K, the number of hyperplanes: no network computing the function has fewer units (two layers;
        None for other depths, where no bound is claimed).
    optimal : ``network.k == lower_bound`` (proved smallest; False for other depths).
    equivalence : :func:`functionally_equal` of the input and the output (``equivalent``, with its certificate).
    evidence : hyperplanes, rank of the affine part, units of each candidate.
    """

    network: Network
    removed: int
    lower_bound: int | None
    optimal: bool
    equivalence: Equivalence
    evidence: dict = field(default_factory=dict)

    @property
    def certificate(self) -> dict:
        """The ``equivalent`` certificate between the input and :attr:`network`."""
        return self.equivalence.certificate


Unit = tuple[tuple[int, ...], list[Fraction]]  # (p = (V_i, b_i) as integers, U's column)


def _network(units: list[Unit], offset, d: int, m: int, activation: Activation) -> Network:
    """The network ``sum_units col f(p . (x, 1)) + offset`` (units with a zero column left out)."""
    units = [(p, col) for p, col in units if any(col)]
    if not units:  # a constant function: one dead unit keeps the shapes valid
        units = [((0,) * (d + 1), [Fraction(0)] * m)]
    k = len(units)
    U = [[units[i][1][r] for i in range(k)] for r in range(m)]
    V = [list(p[:d]) for p, _ in units]
    b = [p[d] for p, _ in units]
    return Network.from_rows(U, V, activation, b=b if any(b) else None, c=list(offset) if any(offset) else None)


def _merged_input(net: Network) -> tuple[list[Unit], list[Fraction]]:
    """The input with units on one oriented hyperplane merged, zero and dead units dropped, constant units in c."""
    rows, gs, leads = _primitive(net)
    c = net.activation.degree
    D = int(net.U.den) * row_denominator(net) ** c
    table: dict[tuple[int, ...], list[int]] = {}
    offset = list(net.c_fractions())
    for p, g, lead, u in zip(rows, gs, leads, int_rows(net.U.num.transpose())):
        if g == 0 or not any(u):
            continue
        alpha = [x * g**c for x in u]
        if lead == 0:
            if p[-1] > 0:
                offset = [o + Fraction(a, D) for o, a in zip(offset, alpha)]
            continue
        acc = table.setdefault(tuple(p), [0] * net.m)
        for r, a in enumerate(alpha):
            acc[r] += a
    return [(p, [Fraction(a, D) for a in vec]) for p, vec in sorted(table.items())], offset


def _fmpq(rows: list[list[Fraction]]) -> flint.fmpq_mat:
    return flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in r] for r in rows])


def _in_span(X: list[list[int]], Y: list[list[int]]) -> list[bool]:
    """For each row of X: in the row space of Y (independent rows)? Exact: the residual of the projection is zero."""
    Xq, Yq = flint.fmpq_mat(flint.fmpz_mat(X)), flint.fmpq_mat(flint.fmpz_mat(Y))
    R = Xq - Xq * Yq.transpose() * (Yq * Yq.transpose()).inv() * Yq
    return [all(x == 0 for x in row) for row in R.tolist()]


def _integer_row(row: list[Fraction]) -> list[int]:
    den = math.lcm(*(x.denominator for x in row))
    return [x.numerator * (den // x.denominator) for x in row]


def _row_basis(rows: list[list[int]]) -> list[list[int]]:
    """Independent rows spanning the same space (chosen modulo a prime, then every row checked exactly)."""
    pick = [rows[i] for i in independent_rows(flint.fmpz_mat(rows))]
    if pick and all(_in_span(rows, pick)):
        return pick
    R, rank = _fmpq([[Fraction(x) for x in r] for r in rows]).rref()  # the prime divided a minor: exact rref
    return [_integer_row([Fraction(int(x.p), int(x.q)) for x in r]) for r in R.tolist()[:rank]]


def _write_affine(A: list[list[Fraction]], normals: list[list[int]]):
    """``A = sum_{j in S} g_j v_j^T + sum_l h_l w_l^T``: ({j: g_j}, [(w_l, h_l)], rank A)."""
    nonzero = [_integer_row(r) for r in A if any(r)]
    if not nonzero:
        return {}, [], 0
    Y = _row_basis(nonzero)
    r, chosen = len(Y), []
    inside = _in_span(normals, Y) if normals else []
    for j, ok in enumerate(inside):
        if ok and len(chosen) < r and \
                exact_rank(flint.fmpz_mat([normals[i] for i in chosen] + [normals[j]])) == len(chosen) + 1:
            chosen.append(j)
    basis = [normals[j] for j in chosen]
    for y in Y:  # complete with A's own rows to a basis of its row space
        if len(basis) < r and exact_rank(flint.fmpz_mat(basis + [y])) == len(basis) + 1:
            basis.append(y)
    M = flint.fmpq_mat(flint.fmpz_mat(basis))
    C = (_fmpq(A) * M.transpose() * (M * M.transpose()).inv()).tolist()  # A = C M: A's rows lie in span(M)
    coef = [[Fraction(int(x.p), int(x.q)) for x in row] for row in C]
    col = lambda i: [coef[row][i] for row in range(len(A))]  # noqa: E731
    return {j: col(i) for i, j in enumerate(chosen)}, [(basis[i], col(i)) for i in range(len(chosen), r)], r


def _relu_candidate(form: CanonicalForm, negative: set) -> tuple[list[Unit], list[Fraction]]:
    """Hyperplanes in ``negative`` as one unit on -p_j, the rest positive; A written by :func:`_write_affine`."""
    d, m = form.d, form.m
    A = [list(r) for r in form.linear]
    offset = list(form.offset)
    N = {}
    for j, (p, beta) in enumerate(form.hyperplanes):
        if p in negative:  # N_j = beta_j: the unit adds -beta_j (p . x~) to what is left of A
            N[j] = list(beta)
            for r in range(m):
                A[r] = [a + beta[r] * v for a, v in zip(A[r], p[:d])]
    seconds, pairs, _ = _write_affine(A, [list(p[:d]) for p, _ in form.hyperplanes])
    units: list[Unit] = []
    for j, (p, beta) in enumerate(form.hyperplanes):
        n = [a - g for a, g in zip(N.get(j, [Fraction(0)] * m), seconds.get(j, [Fraction(0)] * m))]
        units += [(p, [x - y for x, y in zip(beta, n)]), (tuple(-x for x in p), n)]
        offset = [o + nr * p[d] for o, nr in zip(offset, n)]  # -N_j (p . x~) has the constant -N_j b_j
    for w, h in pairs:
        units += [(tuple(w) + (0,), h), (tuple(-x for x in w) + (0,), [-x for x in h])]
    return units, offset


def _power_candidate(form: CanonicalForm) -> tuple[list[Unit], list[Fraction]]:
    """t^c: the hyperplane units, and each power term ``g (q . x~)^c = g f(q . x~) + (-1)^c g f(-q . x~)``."""
    table = {p: list(beta) for p, beta in form.hyperplanes}
    sign = 1 if form.degree % 2 == 0 else -1
    for q, g in form.powers:
        acc = table.setdefault(q, [Fraction(0)] * form.m)
        table[q] = [a + x for a, x in zip(acc, g)]
        neg = tuple(-x for x in q)
        table[neg] = [a + sign * x for a, x in zip(table.get(neg, [Fraction(0)] * form.m), g)]
    return sorted(table.items()), list(form.offset)


def _independent_coordinates(form: CanonicalForm):
    """For linearly independent normals v_j: (mu, rho) with A = sum_j mu_j v_j^T + E, E of rank rho orthogonal to
    every v_j (mu is unique); None when the normals are dependent. In integers: with N the K x d normals and
    A = A_num / a, mu = (A_num N^T) (N N^T)^-1 / a (one square FLINT solve), and E a = A_num - a mu N."""
    normals = [list(p[:-1]) for p, _ in form.hyperplanes]
    if normals and len(independent_rows(flint.fmpz_mat(normals))) < len(normals):
        return None  # independent modulo a prime implies independent over Q; otherwise no claim is made
    den = math.lcm(*(x.denominator for row in form.linear for x in row))
    A = flint.fmpz_mat([[x.numerator * (den // x.denominator) for x in row] for row in form.linear])
    if not normals:
        return [], exact_rank(A)
    N = flint.fmpz_mat(normals)
    G, B = N * N.transpose(), A * N.transpose()  # K x K (non-singular: N has independent rows), m x K
    muT = G.solve(B.transpose())  # G mu^T = B^T (G is symmetric)
    num, mden = muT.numer_denom()
    E = A * int(mden) - num.transpose() * N  # = (A - mu N) a mden, integers
    mu = [[Fraction(int(x), int(mden) * den) for x in row] for row in num.transpose().tolist()]
    return mu, exact_rank(E)


def _relu_bound_and_candidates(form: CanonicalForm, merged_keys: set):
    """(lower bound on the units, {name: candidate}) for the ReLU (module docstring). When A's coordinates in
    independent normals already meet the bound, the other candidates are not built (they cost products of
    K x d rational matrices)."""
    neg = lambda p: tuple(-x for x in p)  # noqa: E731
    K, coords = form.units, _independent_coordinates(form)
    candidates, bound = {}, K
    if coords is not None:
        mu, rho = coords
        bound = K + 2 * rho  # every pair removes at most one from the rank of A outside span(v_j)
        if not rho:
            m = form.m
            col = lambda j: [mu[r][j] for r in range(m)]  # noqa: E731
            bad = [j for j, (_, beta) in enumerate(form.hyperplanes) if any(col(j)) and col(j) != [-x for x in beta]]
            units = []
            for j, (p, beta) in enumerate(form.hyperplanes):  # N_j = -mu_j, P_j = beta_j + mu_j: A = sum mu_j v_j^T
                units += [(p, [x + y for x, y in zip(beta, col(j))]), (neg(p), [-x for x in col(j)])]
            offset = [o - sum(mu[r][j] * p[-1] for j, (p, _) in enumerate(form.hyperplanes))
                      for r, o in enumerate(form.offset)]
            candidates["coordinates"] = (units, offset)
            bound = K + min(len(bad), 2)
            if _size(units) <= bound:
                return bound, candidates
            candidates["coordinates, pairs"] = _relu_candidate(
                form, {p for j, (p, beta) in enumerate(form.hyperplanes) if any(col(j)) and j not in bad})
    candidates["all positive"] = _relu_candidate(form, set())
    negative_only = {p for p, _ in form.hyperplanes if p not in merged_keys and neg(p) in merged_keys}
    if negative_only:
        candidates["input orientations"] = _relu_candidate(form, negative_only)
    return bound, candidates


def _size(units: list[Unit]) -> int:
    return sum(1 for _, col in units if any(col))


def minimize(net: Network, *, check: bool = True, **prov) -> Minimized:
    """The smallest network of the same form (units ``U f(V x + b) + c``) found that computes the same function.

    A network of another depth loses its dead, constant, duplicate and silent neurons
    (:func:`exactrelu.equiv.deep.minimize.reduced_network`), with no claim of being smallest.

    Parameters
    ----------
    net : the network to shrink.
    check : run the independent checker on the ``equivalent`` certificate (default True).
    **prov : extra provenance for the certificate.

    Returns
    -------
    Minimized
        The network, how many units it removed, a lower bound on the units and the certificate of equivalence.

    Examples
    --------
    >>> from exactrelu.network import Network
    >>> net = Network.from_rows(U=[[1, -1]], V=[[1, 0], [-1, 0]])       # relu(x) - relu(-x) = x: two units
    >>> res = minimize(net)
    >>> res.network.k, res.lower_bound, res.optimal, res.equivalence.status
    (2, 2, True, 'equivalent')
    """
    if not isinstance(net, Network):
        raise InvalidInput("minimize takes a Network (exactrelu.io.weights.read_weights reads files)")
    if net.depth != 2:  # the cheap reductions of any depth (exactrelu.equiv.deep.minimize), proved equivalent
        from .deep.minimize import reduced_network

        out = reduced_network(net)
        units = sum(net.widths[1:-1]) - sum(out.widths[1:-1])
        return Minimized(out, units, None, False, functionally_equal(net, out, check=check, **prov),
                         {"widths": [list(net.widths), list(out.widths)]})
    form = canonical_form(net)
    out, bound, sizes, best = _smallest(form, _merged_input(net))
    result = functionally_equal(net, out, check=check, **prov)
    return Minimized(out, net.k - out.k, bound, sizes[best] <= bound, result,
                     {"hyperplanes": form.units, "candidates": sizes, "chosen": best})


def _smallest(form: CanonicalForm, merged=None):
    """(network, lower bound, candidate sizes, chosen candidate) for ``form``; ``merged``: the input's own units."""
    if form.degree == 1:
        bound, candidates = _relu_bound_and_candidates(form, set() if merged is None else {p for p, _ in merged[0]})
    else:
        bound, candidates = form.units, {"powers written back": _power_candidate(form)}
    if merged is not None:
        candidates["input merged"] = merged
    sizes = {name: _size(units) for name, (units, _) in candidates.items()}
    best = min(candidates, key=lambda name: sizes[name])
    act = Activation.relu() if form.degree == 1 else Activation.power(form.degree)
    out = _network(*candidates[best], form.d, form.m, act)
    if canonical_form(out) != form:  # every candidate is the form's function by construction
        raise RuntimeError(f"bug: the minimization candidate {best!r} is not the form's function")
    return out, bound, sizes, best


def network_from_form(form: CanonicalForm) -> tuple[Network, int, bool]:
    """The smallest network found that computes the function of ``form``: (network, lower bound, proved smallest).

    >>> from exactrelu.equiv.canonical import canonical_form
    >>> form = canonical_form(Network.from_rows(U=[[2, 1]], V=[[1, 0], [-1, 0]], c=[1]))    # 2 relu(x) + relu(-x) + 1
    >>> net, bound, optimal = network_from_form(form)
    >>> net.k, bound, optimal, canonical_form(net) == form
    (2, 2, True, True)
    """
    out, bound, sizes, best = _smallest(form)
    return out, bound, sizes[best] <= bound
