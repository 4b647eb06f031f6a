"""Every "no" the library writes names the class it excludes; ``solve_decision(..., bias=True)`` (issue 23, items 1-2).

Theorems: (1) every ``not-realizable`` certificate the library writes states ``"model"``, the widest class its proof
supports, and the checker prints exactly that class (no "no model field" note); (2) a network with hidden biases
on x is one without on (x, 1), so ``bias=True`` finds every biased network the solver can certify and refutes
biased networks only with a certificate about the inputs with the constant column.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from exactrelu.certificates.claims.model import BOTH_BIASES, HIDDEN_BIASES, NO_BIASES, phrase
from exactrelu.certificates.envelope import verify
from exactrelu.decide import decide, solve_decision
from exactrelu.decide.enumeration.refusal import biased_diagnosis
from exactrelu.exact.linalg import exact_rank
from exactrelu.errors import CertificateInvalid, NotRealizable
from exactrelu.instances import Instance
from exactrelu.network import Network
from exactrelu.recover import recover

GRID = [(x, y) for x in range(-4, 4) for y in range(-2, 3)]  # the issue's 40 grid samples


def _relu(t):
    return max(t, 0)


@pytest.fixture(scope="module")
def biased_grid():
    """Issue 23: 40 grid samples labeled by 2 units *with* hidden biases."""
    return Instance.from_arrays(GRID, [[_relu(x + y - 1) + 2 * _relu(-x + 2 * y + 1)] for x, y in GRID])


def _states(cert, inst, model, k, samples, weights="any output weights"):
    assert cert["model"] == model
    line = verify(cert, inst)
    assert line.startswith(f"not-realizable: {phrase(model, k)} reproduces the labels ({samples} samples, {weights})")
    assert "no model field" not in line
    return line


def test_solve_without_bias_says_without_hidden_biases_and_diagnoses(biased_grid):
    res = solve_decision(biased_grid, 2)
    assert res.status == "not-realizable" and res.model == NO_BIASES
    line = _states(res.certificate, biased_grid, NO_BIASES, 2, 40)
    assert res.summary == line
    assert res.evidence["reason"].startswith("no 2-unit ReLU network without hidden biases and without output bias")
    assert res.evidence["diagnosis"].startswith("a 2-unit ReLU network with hidden biases and without output bias "
                                                "reproduces the labels exactly (certified: realizes: 40 samples")
    assert "exactrelu solve --bias hidden" in res.evidence["diagnosis"]


def test_solve_with_bias_certifies_the_issue_reproduction(biased_grid):
    res = solve_decision(biased_grid, 2, bias=True)
    assert res.realizable and res.instance is None and res.model is None
    assert res.network.b is not None and res.network.d == 2
    assert res.network.evaluate_exact(biased_grid.inputs) == biased_grid.labels
    assert res.certificate["b"] and verify(res.certificate, biased_grid) == res.summary
    assert res.summary.endswith("hidden biases)") and res.evidence["bias"] is True


def test_a_biased_refutation_is_about_the_inputs_with_a_constant_column():
    labels = [[_relu(x + y - 1) + 2 * _relu(-x + 2 * y + 1) - _relu(x - 2)] for x, y in GRID]
    inst = Instance.from_arrays(GRID, labels)
    res = solve_decision(inst, 1, bias="hidden")
    assert res.status == "not-realizable" and res.model == HIDDEN_BIASES
    aug = res.instance
    assert aug.d == 3 and all(row[:2] == list(p) and row[2] == 1 for row, p in zip(aug.inputs.to_fractions(), GRID))
    assert aug.labels == inst.labels
    assert res.summary == _states(res.certificate, aug, HIDDEN_BIASES, 1, 40)
    with pytest.raises(CertificateInvalid, match="instance"):  # about (x, 1), not x
        verify(res.certificate, inst)
    assert "diagnosis" not in res.evidence  # nothing left open


def test_a_rank_witness_under_bias_is_about_the_instance_given():
    inst = Instance.from_arrays([[1, 0], [0, 1], [1, 1]], [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    res = solve_decision(inst, 2, bias="hidden")
    assert res.instance is None and res.evidence["route"] == "rank"
    _states(res.certificate, inst, HIDDEN_BIASES, 2, 3)
    res1 = solve_decision(inst, 1)  # a (k + 2) x (k + 2) minor: an output bias is excluded too
    _states(res1.certificate, inst, BOTH_BIASES, 1, 3)
    assert res1.evidence["reason"].startswith("no 1-unit ReLU network with hidden biases and with output bias")


def test_the_decision_engines_state_their_class():
    inst = Instance.from_arrays([[1, 0], [0, 1], [1, 1], [-1, 0], [0, -1], [-1, -1]], [[1], [1], [3], [1], [1], [0]])
    for engine in ("tree", "lazy"):
        _states(decide(inst, U=[[1, 1]], engine=engine).certificate, inst, NO_BIASES, 2, 6, "the given output weights")
        _states(decide(inst, k=2, engine=engine).certificate, inst, NO_BIASES, 2, 6)
    ones = Instance.from_arrays([row + [3] for row in inst.inputs.to_fractions()], inst.labels.to_fractions())
    res = decide(ones, k=1)  # a constant non-zero column: the refutation excludes hidden biases too
    if res.status == "not-realizable":
        _states(res.certificate, ones, HIDDEN_BIASES, 1, 6)


def test_recover_states_the_class_of_its_rank_refusal():
    inst = Instance.from_arrays([[1, 0], [0, 1], [1, 1], [2, 1]], [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
    with pytest.raises(NotRealizable) as exc:
        recover(inst, k=2)
    _states(exc.value.certificate, inst, HIDDEN_BIASES, 2, 4)
    assert "certified: not-realizable: no 2-unit ReLU network with hidden biases" in str(exc.value)


def test_the_diagnosis_says_nothing_when_no_biased_network_fits():
    inst = Instance.from_arrays([[0], [1], [2], [3]], [[1], [0], [1], [0]])  # a zigzag: no single unit, biased or not
    assert biased_diagnosis(inst, 1) is None
    res = solve_decision(inst, 1)
    assert res.status == "not-realizable" and "diagnosis" not in res.evidence


@settings(max_examples=10)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=2, max_size=2),
       st.lists(st.integers(-2, 2), min_size=2, max_size=2),
       st.lists(st.tuples(st.integers(-2, 2), st.integers(-2, 2)), min_size=2, max_size=2))
def test_bias_true_finds_planted_biased_networks(V, b, U):
    """Labels of 2 biased units (2 outputs) on 20 grid points: whenever rank(labels) = 2 the solver is complete
    there, so bias=True must certify a network, and it reproduces every label exactly."""
    pts = GRID[::2]
    net = Network.from_rows([list(r) for r in U], [list(v) for v in V], b=b)
    inst = Instance.from_arrays(pts, net.evaluate_exact(pts).to_fractions())
    assume(exact_rank(inst.labels.num) == 2)
    res = solve_decision(inst, 2, bias=True)
    assert res.realizable, res.summary
    assert res.network.evaluate_exact(inst.inputs) == inst.labels
    assert verify(res.certificate, inst) == res.summary
