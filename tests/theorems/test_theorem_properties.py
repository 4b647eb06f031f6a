"""The theorems of exactrelu.theorems as hypothesis properties over exactrelu.testing strategies.

The proofs check fixed seeded examples; these properties let hypothesis search (and shrink)
counterexamples. Examples per property come from the profile (ci: 25, thorough: 500).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from exactrelu.exact.linalg import exact_rank, primitive_kernel
from exactrelu.exact.matrix import QMatrix
from exactrelu.testing import inputs, matrices, networks, planted_instances, rationals
from exactrelu.instances import planted
from exactrelu.theorems import augmented_position, homogeneity_symmetry, sign_ambiguity, uniqueness_lemma


@st.composite
def scalings(draw, k):
    D = draw(st.lists(rationals(min_value="1/8", max_value=8, nonzero=True).map(abs), min_size=k, max_size=k))
    return D, draw(st.permutations(range(k)))


@given(data=st.data(), net=networks(identifiable=True))
def test_positive_rescaling_and_permutation_keep_function_and_canonical_form(data, net):
    D, perm = data.draw(scalings(net.k))
    X = data.draw(inputs(n=8, d=net.d, distribution="rational"))
    other = homogeneity_symmetry.transformed(net, D, list(perm))
    assert other.evaluate_exact(X) == net.evaluate_exact(X)
    assert other.equivalent(net)


@given(data=st.data(), net=networks())
def test_canonical_form_is_idempotent_and_computes_the_same_function(data, net):
    X = data.draw(inputs(n=8, d=net.d, distribution="small-integer"))
    can = net.canonical()
    assert can.evaluate_exact(X) == net.evaluate_exact(X)
    again = can.canonical()
    assert again.U == can.U and again.V == can.V


@given(inst=planted_instances(k=st.integers(1, 4), d=st.integers(4, 6), n=st.integers(30, 50)), seed=st.integers(0, 2**16))
def test_inactive_samples_pin_down_a_unit_iff_the_other_units_have_full_rank_there(inst, seed):
    bad, _, _ = uniqueness_lemma.check_instance(inst, np.random.default_rng(seed))
    assert bad == []


@given(d=st.integers(1, 3), data=st.data())
def test_flipping_a_dependent_set_of_biased_units_keeps_the_function(d, data):
    M = data.draw(matrices(rows=d + 2, cols=d + 1, elements=rationals(min_value=-3, max_value=3, max_denominator=3)))
    a = [Fraction(x) for x in primitive_kernel(M.num.transpose())[0]]
    rows = M.to_fractions()
    W, b = [r[:d] for r in rows], [r[d] for r in rows]
    S = {i for i, x in enumerate(a) if x != 0}
    X = sign_ambiguity.with_ones(data.draw(inputs(n=10, d=d, distribution="rational")))
    f, g = sign_ambiguity.biased(a, W, b), sign_ambiguity.flipped(a, W, b, S)
    assert f.evaluate_exact(X) == g.evaluate_exact(X)
    lin, const = sign_ambiguity.affine_difference(a, W, b, S)
    assert all(x == 0 for x in lin) and const == 0


@given(t=rationals(min_value=-100, max_value=100, max_denominator=50))
def test_relu_odd_part(t):
    relu = lambda x: max(x, Fraction(0))  # noqa: E731
    assert relu(t) - relu(-t) == t


@given(k=st.integers(1, 3), d=st.integers(2, 5), scale=st.sampled_from([0.25, 1.0, 3.0]), seed=st.integers(0, 2**16))
@example(k=1, d=2, scale=3.0, seed=4222)  # the unit is dead on every sample: all-zero labels (issue 23)
@example(k=2, d=2, scale=3.0, seed=390)  # unit 0 (b = -3) is dead on all 72 samples: rank(labels) = 1
def test_biased_units_are_isolated_on_augmented_inputs_iff_the_others_have_full_rank_there(k, d, scale, seed):
    """The uniqueness lemma on [x; 1] with [V b] (augmented general position, exactrelu.theorems.augmented_position).

    A large bias can leave a unit inactive on every sample (then W = relu([V b] X') has rank < k): the lemma's
    hypothesis fails, and the check must say exactly that rather than pass or blame the lemma.
    """
    inst = augmented_position.augmented_instance(planted(d, k, k + 1, 12 * k * (d + 1), seed=seed, bias=scale))
    bad, _, _ = uniqueness_lemma.check_instance(inst, np.random.default_rng(seed))
    rank = exact_rank(inst.labels.num)
    if rank < k:
        assert bad == [f"rank(A) = {rank} modulo p, expected k = {k}"]
    else:
        assert bad == []
