"""The fast checker's verdicts: a block of rows at a time, in one process or in forked workers, bound and combined by
the reference's own rules.

Each block of rows gives exactly what the reference's ``trusted/schedule.check_rows`` gives: ``(shape, text, verdict,
error)``, the verdict in the reference's format (``trusted/realizes.part_of_rows``). The blocks go, in sample order,
through the reference's ``combine_rows``, which hashes their text in order, compares it with ``instance_sha256``, keeps
the first refutation and checks that the blocks tile the samples. A block the fast checker does not read (see
:func:`block_result`) is read and judged by the reference's ``check_rows``.
"""

from __future__ import annotations

import bisect
import multiprocessing
from fractions import Fraction

import numpy as np

from ..trusted.common import CheckFailed, UnreadableInput, cap_bits
from ..trusted.deep import hidden_rows, read_network
from ..trusted.realizes import (RANGE_CLAIMS, _listed, _network, _sample_bits, _stated, bound_integers,
                                certificate_sha256)
from ..trusted.schedule import _quiet_worker, check_rows, combine_rows, cuts
from . import deep, limbs, network, sources
from .limbs import FastDomain

__all__ = ["Judge", "block_result", "blocks", "check_blocks", "ENTRIES"]

#: numbers (rows times d + m) in one block: the unit of work, of hashing order, and of a worker's task
ENTRIES = 1 << 18


class Judge:
    """The certificate's side of a check, parsed once by the reference's parsers and kept for every block.

    :meth:`differences` gives a block's differences from the labels after the reference's bounds on the check's
    integers, applied to the block's own sizes. For a two-layer network (:meth:`network`) the first block runs the
    reference's ``_network`` on one synthetic sample of the block's largest sizes, so that a malformed certificate is
    refused with the reference's message; every block applies ``bound_integers`` (monotone in both sizes) to its
    sizes, unless sizes at least as large already passed. A network given by its layers (:meth:`deep`) is parsed on
    the smallest sample and each block is bounded as the reference bounds it: the hidden layers from the inputs'
    size, the last two layers from the size of the block's largest hidden row (docs/design.md, "The fast checker").
    """

    def __init__(self, cert: dict, shape: tuple, activation) -> None:
        self.cert, self.shape, self.activation = cert, shape, activation
        self.claim = cert.get("claim")
        self.passed: list[tuple] = []  # sizes already within the reference's bounds
        self.parts = self.net = self.refused = self.refused_later = self.hidden = None

    def differences(self, X, Y) -> tuple:
        """(R, den) of a block (:func:`.network.differences`); FastDomain or UnreadableInput: the reference's rows."""
        x_row, y_bits = _sizes(X, Y)
        if "layers" in self.cert:
            return self.deep(X, Y, x_row, y_bits)
        return network.differences(self.network(x_row, y_bits), X, Y)

    def network(self, x_row: tuple, y_bits: int):
        if self.refused is not None:  # the network itself is malformed: refused before any bound, in every block
            raise self.refused
        x_bits = x_row[0] + x_row[1]
        if not self._within(x_bits, y_bits):
            _, d, m = self.shape
            X, Y = [_sample(d, *x_row)], [_sample(m, 1, y_bits - 1)]
            if self.parts is None:
                self._parse(X, Y)  # the reference's parse and bound (UnreadableInput over the bound: not kept)
            else:
                bound_integers(X, Y, *self.parts)
            self.passed.append((x_bits, y_bits))
        if self.refused_later is not None:  # the claim's own fields, read after the bound (as the reference does)
            raise self.refused_later
        return self.net

    def deep(self, X, Y, x_row: tuple, y_bits: int) -> tuple:
        """:meth:`differences` of a network given by its layers: the hidden layers (:mod:`.deep`), then the last two
        as a two-layer network on the last hidden values, each bound of ``_deep_network`` applied on the way."""
        if self.refused is not None:
            raise self.refused
        _, d, m = self.shape
        if self.parts is None:  # every refusal of a malformed network, on the smallest sample (none of them reads it)
            self._parse([_sample(d, 1, 0)], [_sample(m, 1, 0)])
            layers = read_network({"activation": self.cert["activation"], "layers": self.cert["layers"]}, 1)[1]
            self.hidden = layers[:-2], deep.hidden(layers[:-2], self.parts[4])
        x_bits, Ys = sum(x_row), [_sample(m, 1, y_bits - 1)]
        if not self._within(x_bits, 0, 0):
            _sample_bits([_sample(d, *x_row)], Ys, cap_bits())  # a sample's denominator over the limit
            hidden_rows(self.hidden[0], self.parts[4], [], x_bits)  # the hidden layers' bound, before any sample
            self.passed.append((x_bits, 0, 0))
        Xn, sx = network.scaled(X)
        H, G = deep.forward(self.hidden[1], Xn, sx)
        h_row = deep.reference_sizes(self.hidden[1], H, np.maximum(X.t, 0).reshape(X.shape).max(axis=1), sx)
        if not self._within(0, sum(h_row), y_bits):
            bound_integers([_sample(H.shape[2], *h_row)], Ys, *self.parts)
            self.passed.append((0, sum(h_row), y_bits))
        if self.refused_later is not None:
            raise self.refused_later
        return network.outputs(self.net, H, G, Y)

    def _within(self, *sizes) -> bool:
        """Whether sizes at least as large (each) already passed the reference's bounds (all monotone in them)."""
        return any(len(p) == len(sizes) and all(a <= b for a, b in zip(sizes, p)) for p in self.passed)

    def _parse(self, X: list, Y: list) -> None:
        try:
            U, V, b, offset, c, _, text = _network(self.cert, X, Y, self.activation, RANGE_CLAIMS[self.claim])
        except CheckFailed as exc:
            self.refused = exc
            raise
        self.parts = U, V, b, offset, c
        self.net = network.integers(U, V, b, offset, c)
        self.sha, self.text = certificate_sha256(self.cert), text
        try:
            if self.claim == "realizes-except":
                self.listed = _listed(self.cert, self.shape[0], self.shape[2])[0]
            elif self.claim == "residual":
                _stated(self.cert)
        except CheckFailed as exc:
            self.refused_later = exc


def _sample(width: int, den_bits: int, num_bits: int) -> tuple:
    """One parsed row (numerators, denominators) of ``width`` entries whose common denominator has ``den_bits`` bits
    and whose largest |numerator| has ``num_bits`` bits (all that the reference's bounds read of a sample)."""
    return [(1 << num_bits) >> 1] + [0] * (width - 1), [1 << (den_bits - 1)] + [1] * (width - 1)


def _sizes(X, Y) -> tuple[tuple, int]:
    """The reference's sizes of a block: (bits of Dx_j, bits of max |p|) of its largest sample, and the most bits
    ``bits(|p|) + bits(q)`` of a label (``trusted/realizes._sample_bits``; for 2^t, t >= 0, bits(q) = t + 1)."""
    den_x = np.maximum(X.t, 0).reshape(X.shape).max(axis=1) + 1
    num_x = X.bits().reshape(X.shape).max(axis=1)
    j = int(np.argmax(den_x + num_x))
    return (int(den_x[j]), int(num_x[j])), int((Y.bits() + np.maximum(Y.t, 0) + 1).max())


def block_result(judge: Judge, instance: dict, a: int, b: int, where: str) -> tuple:
    """``check_rows`` of rows a..b-1: computed here when the rows are read by the fast checker and their numbers are
    within its domain, else by the reference (same shape, text, verdict and error either way)."""
    x, y = sources.block(instance["inputs"], a, b), sources.block(instance["labels"], a, b)
    if x is not None and y is not None:
        text = b"".join(b"%s | %s\n" % pair for pair in zip(x[1], y[1]))
        try:
            return judge.shape, text, _verdict(judge, x[0], y[0], a, b), None
        except CheckFailed as exc:
            return judge.shape, text, None, ("failed", str(exc))
        except (FastDomain, UnreadableInput):  # over the reference's bound, or beyond this arithmetic
            pass
    return check_rows(judge.cert, sources.reference_view(instance), a, b, where)


def _verdict(judge: Judge, X, Y, a: int, b: int) -> dict:
    R, den = judge.differences(X, Y)
    n, _, m = judge.shape
    verdict = {"claim": judge.claim, "certificate_sha256": judge.sha, "instance_sha256": judge.cert["instance_sha256"],
               "n": n, "m": m, "samples": [a, b], "shape": judge.text}
    differ = R.any(axis=0)
    if judge.claim == "realizes":
        if differ.any():
            j, r = divmod(int(np.argmax(differ)), m)
            raise CheckFailed(f"sample {a + j}, output {r}: the network's value differs from the label")
    elif judge.claim == "realizes-except":
        _except(judge.listed, differ, a, b)
    else:
        verdict.update(_residual(R, den))
    return verdict


def _except(entries: list, differ: np.ndarray, a: int, b: int) -> None:
    """The differing entries of rows a..b-1 are exactly the listed ones (the first that is not, as the reference)."""
    listed = np.zeros(differ.shape, dtype=bool)
    for j, r in entries[bisect.bisect_left(entries, (a, -1)):bisect.bisect_left(entries, (b, -1))]:
        listed[j - a, r] = True
    wrong = differ != listed
    if wrong.any():
        j, r = divmod(int(np.argmax(wrong)), differ.shape[1])
        if listed[j, r]:
            raise CheckFailed(f"sample {a + j}, output {r} is listed as corrupted but the network reproduces it")
        raise CheckFailed(f"sample {a + j}, output {r}: the network's value differs from the label and is not listed")


def _residual(R: np.ndarray, den: list[int]) -> dict:
    """The block's exact sum of squared differences and largest |difference| (Fractions, as the reference's)."""
    squares = limbs.column_squares(R)
    A = limbs.absolute(R)
    top = limbs.column_argmax(A)
    largest = limbs.to_ints(A[:, top, np.arange(A.shape[2])])
    return {"squared_error": sum((Fraction(s, q * q) for s, q in zip(squares, den)), Fraction(0)),
            "max_abs_error": max(Fraction(p, q) for p, q in zip(largest, den))}


def blocks(n: int, d: int, m: int, pieces: int = 1) -> list[tuple[int, int]]:
    """The ranges of rows checked one at a time: about :data:`ENTRIES` numbers each, at least ``pieces`` of them."""
    return cuts(n, max(pieces, -(-n * (d + m) // ENTRIES)))


_SHARED: tuple = ()  # (judge, instance, where) of a check on forked workers, inherited by them


def _shared_block(span: tuple) -> tuple:
    return block_result(_SHARED[0], _SHARED[1], *span, _SHARED[2])


def check_blocks(cert: dict, instance: dict, shape: tuple, workers: int, where: str) -> str:
    """The verdict on a claim checked by ranges, its blocks judged here (``workers`` = 1) or by forked workers."""
    global _SHARED
    judge = Judge(cert, shape, instance.get("activation"))
    ranges = blocks(*shape, pieces=workers)
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return combine_rows(cert, (block_result(judge, instance, a, b, where) for a, b in ranges))
    _SHARED = (judge, instance, where)
    try:
        # the workers leave Ctrl-C to this process, which stops the pool (the reference's workers do the same)
        with multiprocessing.get_context("fork").Pool(min(workers, len(ranges)), initializer=_quiet_worker) as pool:
            return combine_rows(cert, pool.imap(_shared_block, ranges))  # in order: the text is hashed in order
    finally:
        _SHARED = ()
