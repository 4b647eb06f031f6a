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
import ctypes
import multiprocessing
from fractions import Fraction

import numpy as np

from ..trusted.common import CheckFailed, UnreadableInput
from ..trusted.deep import read_network
from ..trusted.realizes import RANGE_CLAIMS, _listed, _stated, certificate_sha256, parse_network
from ..trusted.schedule import _quiet_worker, check_rows, combine_rows, cuts, stopped_on_error
from . import deep, limbs, network, sources
from .limbs import FastDomain

__all__ = ["Judge", "block_result", "blocks", "check_blocks", "ENTRIES"]

#: numbers (rows times d + m) in one block: the unit of work, of hashing order, and of a worker's task
ENTRIES = 1 << 18


class Judge:
    """The certificate's side of a check, parsed once by the reference's parser and kept for every block.

    :meth:`differences` gives a block's differences from the labels after the reference's bounds on the check's
    integers, which are per sample (``trusted/realizes_bounds.py``): a block goes to the reference, which refuses it,
    exactly when one of its samples is over one of them. Each sample's sizes are computed here; a sample's common
    denominator and the hidden layers' bound are monotone in one size each, so the block's largest decides them;
    the last two layers' bound (:meth:`_within`) reads two sizes per sample, and is applied to the block's pairs of
    sizes that no other pair of the block dominates (docs/design.md, "The fast checker").
    """

    def __init__(self, cert: dict, shape: tuple, activation) -> None:
        self.cert, self.shape, self.activation = cert, shape, activation
        self.claim = cert.get("claim")
        self.passed: list[tuple] = []  # pairs (x, y) of sizes within the last two layers' bound
        self.net = self.refused = self.refused_later = self.hidden = None

    def differences(self, X, Y) -> tuple:
        """(R, den) of a block (:func:`.network.differences`); FastDomain or UnreadableInput: the reference's rows."""
        if self.refused is not None:  # the network itself is malformed: refused before any bound, in every block
            raise self.refused
        if self.net is None:
            self._parse()  # the reference's parse (UnreadableInput, a network over the limit: not kept)
        den_x = np.maximum(X.t, 0).reshape(X.shape).max(axis=1) + 1  # bits(Dx_j) = s_j + 1 (Dx_j = 2^s_j)
        x = den_x + X.bits().reshape(X.shape).max(axis=1)
        y = (Y.bits() + np.maximum(Y.t, 0) + 1).reshape(Y.shape).max(axis=1)  # bits(|p|) + bits(q), per sample
        if int(den_x.max()) > self.bound.cap or (self.hidden is not None and self.hidden[0].over(int(x.max()))):
            raise UnreadableInput("a sample over the reference's bound")  # the reference refuses it
        if self.hidden is None:
            self._within(x, y)
            return self._later(network.differences(self.net, X, Y))
        Xn, sx = network.scaled(X)
        H, G = deep.forward(self.hidden[1], Xn, sx)
        self._within(deep.reference_sizes(self.hidden[1], H, den_x - 1, sx), y)
        return self._later(network.outputs(self.net, H, G, Y))

    def _later(self, result):
        if self.refused_later is not None:  # the claim's own fields, read after the bounds (as the reference does)
            raise self.refused_later
        return result

    def _within(self, x: np.ndarray, y: np.ndarray) -> None:
        """Refuse (UnreadableInput) when a sample of sizes (x_j, y_j) is over the last two layers' bound: the pairs of
        the block that no other dominates, unless a pair at least as large in both already passed (monotone)."""
        high = int(x.max()), int(y.max())
        if any(high[0] <= p and high[1] <= q for p, q in self.passed):
            return  # every pair of the block is dominated by one that passed
        pairs = np.unique(np.stack([x, y], axis=1), axis=0)[::-1]  # x descending, then y descending
        top = np.maximum.accumulate(pairs[:, 1])
        for a, b in pairs[np.r_[True, pairs[1:, 1] > top[:-1]]].tolist():
            if not any(a <= p and b <= q for p, q in self.passed):
                if self.bound.total(a, b) > self.bound.cap:
                    raise UnreadableInput("a sample over the reference's bound")  # the reference refuses it
                self.passed.append((a, b))

    def _parse(self) -> None:
        n, d, m = self.shape
        try:
            U, V, b, offset, c, hidden, self.bound, self.text = parse_network(self.cert, d, m, self.activation,
                                                                              RANGE_CLAIMS[self.claim])
        except CheckFailed as exc:
            self.refused = exc
            raise
        self.net = network.integers(U, V, b, offset, c)
        if hidden is not None:
            layers = read_network({"activation": self.cert["activation"], "layers": self.cert["layers"]}, 1)[1]
            self.hidden = hidden, deep.hidden(layers[:-2], c)
        self.sha = certificate_sha256(self.cert)
        try:
            if self.claim == "realizes-except":
                self.listed = _listed(self.cert, n, m)[0]
            elif self.claim == "residual":
                _stated(self.cert)
        except CheckFailed as exc:
            self.refused_later = exc


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

#: glibc's mallopt parameters M_TRIM_THRESHOLD and M_MMAP_THRESHOLD (malloc.h), and the values a worker sets
_KEEP = ((-1, 1 << 28), (-3, 1 << 26))


def _worker() -> None:
    """A forked worker's start: Ctrl-C is left to the parent (as the reference's workers do), and the memory a block
    frees is kept for the next block (glibc's allocator; elsewhere nothing changes). A block's arrays are megabytes,
    which glibc takes from and returns to the system each time: about a quarter of a worker's time went to the
    page faults (benchmarks/README.md). The worker ends with the check, so the setting does not outlive it."""
    _quiet_worker()
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (or no C library to load): its allocator as it is
        return
    for parameter, value in _KEEP:
        mallopt(parameter, value)


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
        pool = multiprocessing.get_context("fork").Pool(min(workers, len(ranges)), initializer=_worker)
        return stopped_on_error(pool, lambda: combine_rows(cert, pool.imap(_shared_block, ranges)))  # hashed in order
    finally:
        _SHARED = ()
