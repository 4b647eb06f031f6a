"""Activations, networks, inputs and planted instances.

A planted instance is built directly on :meth:`~exactrelu.network.Network.evaluate_exact`:
weights from :func:`~exactrelu.testing.rationals` (shrinking towards small denominators), inputs
from a chosen distribution, labels computed exactly. With ``identifiable=True`` (the default for
instances) the network satisfies the assumptions of exact recovery: U (m x k) has full column
rank k and the rows of V are non-zero and pairwise non-parallel.

>>> from hypothesis import given
>>> @given(planted_instances(k=2, d=3, n=12))
... def check(inst):
...     assert (inst.n, inst.d, inst.planted.k) == (12, 3, 2)
...     assert inst.planted.evaluate_exact(inst.inputs) == inst.labels
>>> check()
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

from ..errors import InvalidInput
from ..exact.matrix import QMatrix
from ..exact.rationals import to_fraction
from ..instances import INPUT_DISTRIBUTIONS, Instance
from ..network import Activation, Network
from ._util import positive_int, resolve
from .matrices import matrices
from .numbers import rationals

__all__ = ["activations", "networks", "inputs", "planted_instances", "INPUT_KINDS"]

#: Input distributions of :func:`inputs`: ``"rational"`` (hypothesis fractions: shrinks well,
#: may be degenerate), ``"small-integer"`` (integers in [-3, 3]: often degenerate), and the
#: float distributions of :func:`exactrelu.instances.planted` (drawn by NumPy from a drawn seed,
#: then taken exactly as dyadic rationals; Gaussian data are in general position almost surely).
INPUT_KINDS = ("rational", "small-integer") + INPUT_DISTRIBUTIONS


def activations(*, degrees: tuple[int, ...] | st.SearchStrategy = (1, 2, 3)) -> st.SearchStrategy[Activation]:
    """Activations: degree 1 is the ReLU, degree c > 1 the rectified power t^c.

    >>> from hypothesis import given
    >>> @given(activations(degrees=(2,)))
    ... def check(f):
    ...     assert f == Activation.power(2)
    >>> check()
    """
    if isinstance(degrees, st.SearchStrategy):
        return degrees.map(lambda c: Activation.relu() if c == 1 else Activation.power(c))
    if not degrees:
        raise InvalidInput("degrees must name at least one degree")
    return st.sampled_from([Activation.relu() if c == 1 else Activation.power(c) for c in degrees])


def _nonparallel(rows: list[list[Fraction]], row: list[Fraction]) -> bool:
    if all(x == 0 for x in row):
        return False
    for r in rows:
        if QMatrix.from_fractions(r + row, 2, len(row)).num.rank() < 2:
            return False
    return True


@st.composite
def _networks(draw, k, m, d, activation, weights, identifiable, bias=False, output_bias=False):
    k = positive_int(resolve(draw, k), "k")
    lo = k if identifiable else 1
    m = positive_int(resolve(draw, m) if m is not None else draw(st.integers(lo, lo + 2)), "m")
    d = positive_int(resolve(draw, d) if d is not None else draw(st.integers(2 if (identifiable and k > 1) else 1, 5)),
                     "d")
    act = resolve(draw, activation)
    if not isinstance(act, Activation):
        raise InvalidInput(f"activation must be an Activation or a strategy of them, got {act!r}")
    if weights is None:
        weights = rationals(min_value=-3, max_value=3, max_denominator=4)
    elems = weights.map(to_fraction)
    if identifiable:
        if m < k:
            raise InvalidInput(f"an identifiable network needs m >= k (U of full column rank), got m={m}, k={k}")
        if d == 1 and k > 1:
            raise InvalidInput("an identifiable network with k > 1 needs d >= 2 (rows of V pairwise non-parallel)")
        V: list[list[Fraction]] = []
        for _ in range(k):
            V.append(draw(st.lists(elems, min_size=d, max_size=d).filter(lambda r: _nonparallel(V, r))))
        Vq = QMatrix.from_fractions([x for r in V for x in r], k, d)
        Uq = draw(matrices(rows=m, cols=k, elements=elems).filter(lambda U: U.num.rank() == k))
    else:
        Vq = draw(matrices(rows=k, cols=d, elements=elems))
        Uq = draw(matrices(rows=m, cols=k, elements=elems))
    b = None
    if bias is True or isinstance(bias, st.SearchStrategy):
        belems = bias.map(to_fraction) if isinstance(bias, st.SearchStrategy) else elems
        b = draw(matrices(rows=k, cols=1, elements=belems))
    elif bias is not False:
        raise InvalidInput(f"bias must be True, False or a strategy of rationals, got {bias!r}")
    c = None
    if output_bias is True or isinstance(output_bias, st.SearchStrategy):
        celems = output_bias.map(to_fraction) if isinstance(output_bias, st.SearchStrategy) else elems
        c = draw(matrices(rows=m, cols=1, elements=celems))
    elif output_bias is not False:
        raise InvalidInput(f"output_bias must be True, False or a strategy of rationals, got {output_bias!r}")
    return Network(Uq, Vq, act, b, c)


def networks(
    *,
    k: int | st.SearchStrategy[int] = st.integers(1, 3),
    m: int | st.SearchStrategy[int] | None = None,
    d: int | st.SearchStrategy[int] | None = None,
    activation: Activation | st.SearchStrategy[Activation] = activations(),
    weights: st.SearchStrategy | None = None,
    identifiable: bool = False,
    bias: bool | st.SearchStrategy = False,
    output_bias: bool | st.SearchStrategy = False,
) -> st.SearchStrategy[Network]:
    """Two-layer networks ``U f(V x + b) + c`` with exact rational weights.

    Parameters
    ----------
    k, m, d : hidden units, outputs, input dimension (ints or strategies). By default m is drawn
        in [k, k + 2] when ``identifiable`` else in [1, 3], and d in [2, 5] (or [1, 5]).
    activation : an :class:`~exactrelu.network.Activation` or a strategy (default
        :func:`activations`: ReLU, t^2, t^3).
    weights : strategy of rational entries (default rationals in [-3, 3], denominators <= 4).
    identifiable : U of full column rank and rows of V non-zero, pairwise non-parallel
        (raises InvalidInput when m < k, or d = 1 < k).
    bias : False (no hidden biases, ``b = None``), True (biases drawn like the weights) or a
        strategy of rational entries for b.
    output_bias : the same for the output bias c (m entries; False: ``c = None``).

    >>> from hypothesis import given
    >>> @given(networks(k=2, m=3, d=2, identifiable=True))
    ... def check(net):
    ...     assert (net.m, net.k, net.d) == (3, 2, 2) and net.U.num.rank() == 2
    >>> check()
    """
    return _networks(k, m, d, activation, weights, identifiable, bias, output_bias)


@st.composite
def _inputs(draw, n, d, distribution):
    n = positive_int(resolve(draw, n), "n")
    d = positive_int(resolve(draw, d), "d")
    kind = resolve(draw, distribution)
    if kind == "rational":
        return draw(matrices(rows=n, cols=d, elements=rationals(min_value=-3, max_value=3, max_denominator=16)))
    if kind == "small-integer":
        return draw(matrices(rows=n, cols=d, elements=st.integers(-3, 3)))
    if kind not in INPUT_DISTRIBUTIONS:
        raise InvalidInput(f"unknown input distribution {kind!r}; choose from {INPUT_KINDS}")
    from ..instances.planted import draw_inputs

    seed = draw(st.integers(0, 2**32 - 1))
    X = draw_inputs(np.random.default_rng(seed), n, d, kind, None)
    return QMatrix.from_numpy(X, name="inputs")


def inputs(
    *,
    n: int | st.SearchStrategy[int] = st.integers(1, 20),
    d: int | st.SearchStrategy[int] = st.integers(1, 5),
    distribution: str | st.SearchStrategy[str] = "gaussian",
) -> st.SearchStrategy[QMatrix]:
    """Exact ``n x d`` input matrices (one sample per row) from one of :data:`INPUT_KINDS`.

    Float distributions are drawn by NumPy from a seed that hypothesis draws (so they do not
    shrink entry by entry); ``"rational"`` and ``"small-integer"`` shrink entry by entry.

    >>> from hypothesis import given
    >>> @given(inputs(n=5, d=2, distribution="small-integer"))
    ... def check(X):
    ...     assert X.shape == (5, 2) and X.den == 1
    >>> check()
    """
    return _inputs(n, d, distribution)


@st.composite
def _planted(draw, k, m, d, n, activation, distribution, weights, identifiable, bias=False, output_bias=False):
    net = draw(networks(k=k, m=m, d=d, activation=activation, weights=weights, identifiable=identifiable, bias=bias,
                        output_bias=output_bias))
    if n is None:
        n = draw(st.integers(net.d + net.k, 4 * (net.d + net.k)))
    X = draw(inputs(n=n, d=net.d, distribution=distribution))
    return Instance(X, net.evaluate_exact(X), net.activation, net, None, None,
                    {"generator": "exactrelu.testing.planted_instances"})


def planted_instances(
    *,
    k: int | st.SearchStrategy[int] = st.integers(1, 3),
    m: int | st.SearchStrategy[int] | None = None,
    d: int | st.SearchStrategy[int] | None = None,
    n: int | st.SearchStrategy[int] | None = None,
    activation: Activation | st.SearchStrategy[Activation] = activations(),
    inputs: str | st.SearchStrategy[str] = "gaussian",
    weights: st.SearchStrategy | None = None,
    identifiable: bool = True,
    bias: bool | st.SearchStrategy = False,
    output_bias: bool | st.SearchStrategy = False,
) -> st.SearchStrategy[Instance]:
    """Planted instances: a network from :func:`networks`, inputs, and exact labels.

    Parameters
    ----------
    k, m, d, activation, weights, identifiable, bias, output_bias : as in :func:`networks` (identifiable by default).
    n : samples (default drawn in [d + k, 4 (d + k)]).
    inputs : input distribution, one of :data:`INPUT_KINDS` (default ``"gaussian"``), or a strategy.

    The result is an :class:`~exactrelu.instances.Instance` whose ``planted`` network reproduces
    ``labels`` exactly.

    >>> from hypothesis import given
    >>> @given(planted_instances(k=1, d=2, n=6, inputs="rational"))
    ... def check(inst):
    ...     assert inst.labels.shape == (6, inst.m)
    >>> check()
    """
    return _planted(k, m, d, n, activation, inputs, weights, identifiable, bias, output_bias)
