"""The bound on the integers of a ``realizes``, ``realizes-except`` or ``residual`` check, per sample. Stdlib only.

Every integer the check of sample j computes (its common denominator ``Dx_j``, the hidden layers' values, the
pre-activations t, t^c, the output sums and their differences from the labels) is bounded from the certificate and
the sizes of sample j alone. So the limit ``intermediate`` is applied to each sample on its own: a check of rows
is refused exactly when one of them is over, the refusal names the first such sample (with its own sizes), and no
verdict depends on how the rows are grouped into blocks, workers or checkers (docs/design.md, "The reference's
limits"). Each sample's checks come in one order: its common denominator, the hidden layers' bound
(:meth:`.deep.HiddenLayers.over`), then :class:`OutputBound` on the last two layers.
"""

from __future__ import annotations

from itertools import repeat
from operator import add, mod, mul

from .common import UnreadableInput, cap_bits, digits_of, lcm_within, over


def sample_bits(X, Y, first: int = 0) -> tuple[list, list, UnreadableInput | None]:
    """Per sample j of X (and of Y, when given): ``bits(Dx_j) + bits(max |Nx_j|)``, and the most bits
    ``bits(|p|) + bits(q)`` of its labels; with the refusal of the first sample whose common denominator is over the
    limit (the lists then stop before it)."""
    xs: list = []
    ys: list = []
    cap = cap_bits()
    bits = int.bit_length
    for j, (nums, dens) in enumerate(X):
        Dx = max(dens)  # their lcm when every q divides it (floats: always), and then no partial lcm is over the cap
        if bits(Dx) > cap or any(map(mod, repeat(Dx), dens)):
            try:
                Dx = lcm_within(dens, cap, f"sample {first + j}")
            except UnreadableInput as exc:  # the refusal, kept for its place in the order of checks
                return xs, ys[:j], exc
        xs.append(bits(Dx) + bits(max(max(nums), -min(nums))))  # = max bits |p| (bit_length is monotone), in C
        if Y is not None:
            ynum, yden = Y[j]
            ys.append(max(map(add, map(bits, map(abs, ynum)), map(bits, yden))))
    return xs, ys, None


class OutputBound:
    """The last two layers' bound: a sample whose rows entering V have ``x`` bits (:func:`sample_bits`) and whose
    labels have ``y`` makes integers of at most :meth:`total` bits.

    Built from the network alone (each unit's common denominator and its power c, each output row's denominator Du
    and the output bias's, refused over the limit), so that the bound of a sample is one sum.
    """

    def __init__(self, U, V, b, offset, c: int) -> None:
        cap = self.cap = cap_bits()
        DV = [lcm_within([f.denominator for f in (*row, bi)], cap, f"unit {i}")
              for i, (row, bi) in enumerate(zip(V, b))]
        if max(c * D.bit_length() for D in DV) > cap:
            raise over("intermediate", f"the power {c} of a unit's denominator ({digits_of(c * max(DV).bit_length())} "
                                       "digits)")
        v_bits = max(abs(f.numerator).bit_length() - f.denominator.bit_length() + 1 + D.bit_length()
                     for row, bi, D in zip(V, b, DV) for f in (*row, bi))
        powers = [D**c for D in DV]
        du_bits = max(lcm_within([(u / P).denominator for u, P in zip(row, powers)], cap, f"output {r}").bit_length()
                      for r, row in enumerate(U)) + max(abs(u.numerator).bit_length() for row in U for u in row)
        dc_bits = 2 * lcm_within([f.denominator for f in offset], cap, "the output bias").bit_length() + max(
            abs(f.numerator).bit_length() for f in offset)
        self.c, self.t0 = c, v_bits + (len(V[0]) + 1).bit_length()  # |Nv . Nx + Nb Dx| has t0 + x bits
        self.fixed = du_bits + dc_bits + (len(V) + 1).bit_length()

    def total(self, x_bits: int, y_bits: int) -> int:
        """The most bits of an integer of the check of a sample of sizes ``x_bits``, ``y_bits``."""
        return self.fixed + self.c * (self.t0 + x_bits) + y_bits

    def refuse(self, xs: list, ys: list, first: int = 0) -> None:
        """Refuse the first sample (of numbers first, first + 1, ...) whose integers would be over the limit."""
        if not xs or self.total(0, max(map(add, map(mul, repeat(self.c), xs), ys))) <= self.cap:
            return  # the largest c x + y is within: every sample is (one loop in C)
        for j, (x, y) in enumerate(zip(xs, ys)):
            if self.total(x, y) > self.cap:
                raise over("intermediate", f"the exact check of this network at sample {first + j} (integers of up to "
                                           f"about {digits_of(self.total(x, y))} digits: activation degree {self.c} "
                                           f"times pre-activations of up to {digits_of(self.t0 + x)} digits)")


def bounded_rows(hidden, bound: OutputBound, X: list, Y: list, first: int = 0) -> list:
    """The rows that enter the last two layers (X itself, or its values through ``hidden``, a
    :class:`.deep.HiddenLayers`), every sample bounded first: the first sample over the limit is refused, by its
    first bound over it."""
    xs, ys, late = sample_bits(X, Y, first)
    if hidden is None:
        bound.refuse(xs, ys, first)
    else:
        stop = hidden.first_over(xs)  # the hidden values of the samples before it only
        H = hidden.rows(X[:stop])
        # every Dh_j has at most the bits hidden.over allowed, within the limit: sample_bits refuses none of them
        bound.refuse(sample_bits(H, None, first)[0], ys, first)
        if stop < len(xs):
            raise hidden.refusal(xs[stop], first + stop)
        X = H
    if late is not None:
        raise late
    return X
