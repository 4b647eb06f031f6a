"""The canonical form of the *function* a two-layer network computes (docs/equivalence.md).

With ``z_i = V_i . x + b_i``, a unit ``u_i relu(z_i)`` depends on (V_i, b_i) only through the ray it spans
(``relu(s z) = s relu(z)`` for s > 0), and ``relu(-z) = relu(z) - z`` moves a unit to the opposite
orientation at the price of an affine term. So every ReLU network ``U relu(V x + b) + c`` is, as a
function, exactly

    sum_j  beta_j relu(p_j . (x, 1))  +  A x  +  offset

with the p_j the *oriented hyperplanes* of its units: (V_i, b_i) divided by the gcd of its integer
numerators (a primitive integer vector), negated if needed so that the first non-zero entry of its
V-part is positive. Units on the same oriented hyperplane add their output coefficients; hyperplanes
whose coefficients cancel are dropped; constant units (V_i = 0) go into the offset. Two networks are
the same function on all of R^d if and only if these forms are equal (the relus of distinct
hyperplanes are linearly independent modulo affine functions: docs/equivalence.md proves it).

For the rectified power ``t^c`` (c >= 2) the same holds with ``z_+^c = z^c - (-1)^c (-z)_+^c``: the
flip leaves a polynomial term ``(p . (x, 1))^c`` instead of an affine one. Those terms are kept grouped
by their hyperplane (:attr:`CanonicalForm.powers`); equal forms still mean equal functions, but
different groupings of powers can be the same polynomial (``(x+y)^2 + (x-y)^2 = 2x^2 + 2y^2``), so
for c >= 2 unequal forms need a witness (:mod:`exactrelu.equiv.witness`).

Everything is computed in integers: U, V, b and c are QMatrix (numerators over one denominator
each), so each unit's row is an integer vector, its gcd is exact, and the output coefficients of all
units share one denominator ``D = den(U) (den(V) den(b))^c``, divided out only at the end.

>>> from exactrelu.network import Network
>>> net = Network.from_rows(U=[[1, -1, 2]], V=[[1, 0], [-1, 0], [0, 0]], b=[0, 0, 3])
>>> form = canonical_form(net)      # relu(x) - relu(-x) + 2 relu(3) = x + 6
>>> form.hyperplanes, form.linear, form.offset
((), ((Fraction(1, 1), Fraction(0, 1)),), (Fraction(6, 1),))
>>> canonical_form(Network.from_rows(U=[[1]], V=[[1, 0]], c=[6])) == form
False
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from ..exact.matrix import QMatrix
from ..exact.rationals import format_rational
from ..limits import limit, over
from ..network import Network

__all__ = ["CanonicalForm", "canonical_form", "int_rows"]

Normal = tuple[int, ...]
Coefficient = tuple[Fraction, ...]


@dataclass(frozen=True)
class CanonicalForm:
    """``sum_j coef_j f(p_j . (x, 1)) + A x + offset`` (ReLU), or ``... + sum_l g_l (q_l . (x, 1))^c + offset``.

    Attributes
    ----------
    degree : the activation degree c (1 for the ReLU).
    d, m : input and output dimensions.
    hyperplanes : ``((p_j, coef_j), ...)`` sorted by p_j: p_j a primitive integer vector of d + 1 entries
        (the normal, then the bias) whose first non-zero normal entry is positive; coef_j (m rationals) is
        non-zero.
    linear : A (m rows of d rationals) for the ReLU; None for c >= 2.
    powers : for c >= 2, ``((q_l, g_l), ...)`` sorted, the polynomial terms ``g_l (q_l . (x, 1))^c`` left by
        flipped units (g_l non-zero); empty for the ReLU.
    offset : the constant (m rationals): output bias plus constant units (and, for the ReLU, the flipped
        units' constant terms).
    """

    degree: int
    d: int
    m: int
    hyperplanes: tuple[tuple[Normal, Coefficient], ...]
    linear: tuple[Coefficient, ...] | None
    powers: tuple[tuple[Normal, Coefficient], ...]
    offset: Coefficient

    @property
    def units(self) -> int:
        """The number of hyperplanes with a non-zero coefficient (every equivalent network has at least these)."""
        return len(self.hyperplanes)

    def to_json(self) -> dict:
        """The form as written in an ``equivalent`` certificate (canonical rational strings; docs/certificates.md)."""

        def terms(items):
            return {"normals": [[str(x) for x in p] for p, _ in items],
                    "coefficients": [[format_rational(x) for x in g] for _, g in items]}

        out = {"hyperplanes": terms(self.hyperplanes), "offset": [format_rational(x) for x in self.offset]}
        if self.degree == 1:
            out["linear"] = [[format_rational(x) for x in row] for row in self.linear]
        else:
            out["powers"] = terms(self.powers)
        return out


def int_rows(M: flint.fmpz_mat) -> list[list[int]]:
    """The entries of an integer matrix as rows of Python ints.

    >>> int_rows(flint.fmpz_mat([[1, -2], [3, 4]]))
    [[1, -2], [3, 4]]
    """
    return [[int(x) for x in row] for row in M.tolist()]


def _int64(Q: QMatrix, bound: int) -> np.ndarray | None:
    """The numerators of Q as an int64 array when every one is below ``bound`` in absolute value, else None.
    From the float64 array itself when Q was made from one (no FLINT entries are read)."""
    src = Q.float_source
    if src is not None:
        if src[2] > 62:
            return None  # some numerator is at least 2^62
        a = np.ldexp(src[0], src[1]).astype(np.int64)  # exact: integers below 2^62
    else:
        M = Q.num
        r, c = M.nrows(), M.ncols()
        try:
            a = np.fromiter(M.entries(), dtype=np.int64, count=r * c).reshape(r, c)
        except OverflowError:
            return None
    return a if not a.size or int(np.abs(a).max()) < bound else None


def _numerators(Q: QMatrix) -> list[list[int]]:
    """The numerators of Q as Python ints; from the float64 array when Q was made from one (a float64 holding an
    integer converts exactly, 3x faster than reading FLINT's entries)."""
    src = Q.float_source
    if src is not None and src[1] <= 1074 and src[2] <= 1023:
        return [list(map(int, row)) for row in np.ldexp(src[0], src[1]).tolist()]
    return int_rows(Q.num)


def _primitive_int64(V: QMatrix, b: QMatrix | None, sv: int, sb: int):
    """``_primitive`` in NumPy int64 when the scaled entries stay below 2^62 (no overflow possible), else None."""
    V = _int64(V, 2**62 // sv)
    if V is None:
        return None
    b = np.zeros((V.shape[0], 1), dtype=np.int64) if b is None else _int64(b, 2**62 // sb)
    if b is None:
        return None
    W = np.hstack([V * sv, b * sb])
    g = np.gcd.reduce(W, axis=1)
    P = W // np.where(g == 0, 1, g)[:, None]
    head = P[:, :-1]
    lead = head[np.arange(len(head)), np.argmax(head != 0, axis=1)] if head.shape[1] else np.zeros(len(head), np.int64)
    return P.tolist(), g.tolist(), lead.tolist()


def row_denominator(net: Network) -> int:
    """L = lcm(den V, den b): every (V_i, b_i) is an integer row over L."""
    return math.lcm(int(net.V.den), 1 if net.b is None else int(net.b.den))


def _primitive(net: Network) -> tuple[list[list[int]], list[int], list[int]]:
    """Each unit's (V_i, b_i) as ``g_i / L * p_i`` (L = :func:`row_denominator`): (primitive integer rows p_i of
    d + 1 entries, g_i, the first non-zero of p_i's first d entries or 0), g_i = 0 for V_i = 0, b_i = 0."""
    L = row_denominator(net)
    sv = L // int(net.V.den)
    bnum, sb = (None, 1) if net.b is None else (net.b.num, L // int(net.b.den))
    fast = _primitive_int64(net.V, net.b, sv, sb)
    if fast is not None:
        return fast
    b = [0] * net.k if bnum is None else [r[0] for r in _numerators(net.b)]
    rows = [([x * sv for x in v] if sv != 1 else v) + [bi * sb] for v, bi in zip(_numerators(net.V), b)]
    gs = [math.gcd(*w) for w in rows]
    rows = [[x // g for x in w] if g else w for w, g in zip(rows, gs)]
    return rows, gs, [next((x for x in p[:-1] if x), 0) for p in rows]


def check_size(net: Network, gs: list[int]) -> None:
    """Refuse, before any power is taken, a canonical form whose integers would be over the limit ``intermediate``:
    the common row denominator L and each unit's scale g_i are raised to the power c (as the checker bounds each
    unit's scale: ``trusted/common.py``, check_power). Power-100 networks with 4,000-digit denominators ran 23.8 s
    before a time limit of 5 s stopped them; the checker refuses the same pair by size at once.

    >>> from exactrelu.network import Activation
    >>> net = Network.from_rows([[1]], [["1/" + "7" * 4000]], Activation.power(100))
    >>> canonical_form(net)
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: the canonical form (a row denominator of about 4,001 digits, to the power 100) is ...
    """
    c, cap = net.activation.degree, limit("intermediate") * 3322 // 1000 + 1
    bits = max([row_denominator(net).bit_length(), *(g.bit_length() for g in gs)])
    if c * bits > cap:
        what = "a row denominator" if bits == row_denominator(net).bit_length() else "a unit's scale"
        raise over("intermediate", f"the canonical form ({what} of about {(bits * 30103 + 99999) // 100000:,} digits, "
                                   f"to the power {c})")


def _add(table: dict, key, vec: list[int], sign: int) -> None:
    acc = table.get(key)
    if acc is None:
        table[key] = [sign * x for x in vec]
    else:
        for r, x in enumerate(vec):
            acc[r] += sign * x


def _groups(net: Network):
    """Integer coefficients over the denominator D = den(U) L^c: (hyperplanes, powers, flipped units, constant, D),
    with ``u_i f(V_i x + b_i) = (cols_i g_i^c / D) f(p_i . (x, 1))``."""
    rows, gs, leads = _primitive(net)
    c, d, m = net.activation.degree, net.d, net.m
    check_size(net, gs)
    D = int(net.U.den) * row_denominator(net) ** c
    hyper: dict[Normal, list[int]] = {}
    powers: dict[Normal, list[int]] = {}
    flipped: list[int] = []  # units whose affine term u_i (V_i x + b_i) the ReLU's flip leaves
    constant = [0] * m
    for i, (p, g, lead, u) in enumerate(zip(rows, gs, leads, int_rows(net.U.num.transpose()))):
        if g == 0 or not any(u):
            continue  # f(0) = 0, or a zero column of U: the unit computes nothing
        alpha = [x * g**c for x in u] if g != 1 else u
        if lead == 0:  # a constant unit u_i f(b_i)
            if p[d] > 0:
                for r in range(m):
                    constant[r] += alpha[r]
            continue
        if lead > 0:
            _add(hyper, tuple(p), alpha, 1)
            continue
        # lead < 0: f(q . x~) = (-1)^(c+1) f(-q . x~) + (q . x~)^c with q = p (so -q is oriented)
        key = tuple(-x for x in p)
        _add(hyper, key, alpha, -1 if c % 2 == 0 else 1)
        if c == 1:
            flipped.append(i)
        else:
            _add(powers, key, alpha, 1 if c % 2 == 0 else -1)  # (q . x~)^c = (-1)^c (-q . x~)^c
    return hyper, powers, flipped, constant, D


def _affine(net: Network, flipped: list[int]) -> list[list[int]]:
    """``sum over flipped units of u_i (V_i, b_i)`` (m x (d + 1) integers over D = den(U) L): U with the other
    columns zeroed times V and b, FLINT products on the numerators (no Python loop over the entries)."""
    m, d = net.m, net.d
    if not flipped:
        return [[0] * (d + 1) for _ in range(m)]
    keep = set(flipped)
    mask = flint.fmpz_mat(m, net.k, [x if i in keep else 0 for row in net.U.num.tolist() for i, x in enumerate(row)])
    L = row_denominator(net)
    lin = int_rows(mask * net.V.num * (L // int(net.V.den)))
    if net.b is None:
        return [row + [0] for row in lin]
    bias = int_rows(mask * net.b.num * (L // int(net.b.den)))
    return [row + b for row, b in zip(lin, bias)]


def _terms(table: dict, D: int) -> tuple[tuple[Normal, Coefficient], ...]:
    return tuple((p, tuple(Fraction(x, D) for x in vec)) for p, vec in sorted(table.items()) if any(vec))


def canonical_form(net: Network) -> CanonicalForm:
    """The canonical form of the function ``net`` computes (exact; see the module docstring).

    Parameters
    ----------
    net : a network with the ReLU or a rectified power t^c.

    Returns
    -------
    CanonicalForm
        Equal for two ReLU networks if and only if they are the same function on R^d; for c >= 2 equal forms
        imply equal functions.

    Examples
    --------
    >>> from exactrelu.network import Network
    >>> a = Network.from_rows(U=[[2]], V=[[3, -6]], b=[3])
    >>> b = Network.from_rows(U=[[6, 1]], V=[[1, -2], [0, 0]], b=[1, -1])
    >>> canonical_form(a) == canonical_form(b)
    True
    >>> canonical_form(a).hyperplanes
    (((1, -2, 1), (Fraction(6, 1),)),)
    """
    hyper, powers, flipped, constant, D = _groups(net)
    d, m = net.d, net.m
    out_bias = net.c_fractions()
    if net.activation.degree == 1:
        A = _affine(net, flipped)
        linear = tuple(tuple(Fraction(x, D) for x in row[:d]) for row in A)
        offset = tuple(Fraction(A[r][d] + constant[r], D) + out_bias[r] for r in range(m))
    else:
        linear = None
        offset = tuple(Fraction(constant[r], D) + out_bias[r] for r in range(m))
    return CanonicalForm(net.activation.degree, d, m, _terms(hyper, D), linear, _terms(powers, D), offset)
