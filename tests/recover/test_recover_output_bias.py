"""The output bias c (issue 33): PyTorch's default model ``f(inputs @ V.T + b) @ U.T + c`` learned and certified,
and every "no" covering exactly the class asked. Properties state the lemmas of docs/recovery.md, "The output bias"."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates.claims.model import BOTH_BIASES, OUTPUT_BIAS, bias_class
from exactrelu.certificates.claims.span import not_realizable_certificate
from exactrelu.certificates.envelope import verify
from exactrelu.cli import main
from exactrelu.decide import decide, solve_decision
from exactrelu.errors import AssumptionViolated, CertificateInvalid, InvalidInput, NotRealizable
from exactrelu.exact.linalg import exact_rank, nonsingular_minor
from exactrelu.fit import fit
from exactrelu.instances import Instance, planted, write_instance
from exactrelu.network import Network
from exactrelu.recover import recover
from exactrelu.recover.diagnosis import with_constant_input
from exactrelu.recover.views import with_ones
from exactrelu.theorems import offset_uniqueness


def _pytorch(d, k, m, n, seed, **kw):
    """A planted instance of PyTorch's default model: hidden biases and an output bias, exact labels."""
    return planted(d, k, m, n, seed=seed, bias=1.0, output_bias=2.0, **kw)


@settings(deadline=None, max_examples=6)
@given(shape=st.sampled_from([(5, 3, 1), (5, 3, 2), (5, 3, 3), (5, 3, 5), (4, 2, 4)]), seed=st.integers(0, 10**6))
def test_recovery_certifies_pytorch_default_networks(shape, seed):
    """m < k, m = k, m > k and m = 1: the network with b and c, certified and equal to the planted one."""
    d, k, m = shape
    inst = _pytorch(d, k, m, 1500 if m < k else 600, seed)
    try:
        res = recover(inst, k=k, bias=True, random_state=seed)
    except AssumptionViolated as exc:  # a planted unit not determined by these data (said which, never certified)
        assert "every sample" in str(exc) or "not determined" in str(exc) or "fewer than" in str(exc)
        return
    except NotRealizable as exc:  # a proposal that missed: no certificate, and the message says what failed
        assert exc.certificate is None
        return
    assert res.network.equivalent(inst.planted)
    assert res.network.evaluate_exact(inst.inputs) == inst.labels
    assert verify(res.certificate, inst).endswith("hidden biases, output bias)")


def test_the_issue_reproduction_every_shape():
    """Issue 33: exact labels of a 3-unit teacher with b and c, ``recover -k 3 --bias``, m < k, m = k, m > k, m = 1."""
    for m in (1, 2, 3, 5):
        inst = _pytorch(6, 3, m, 3000, seed=m)
        res = recover(inst, k=3, bias=True)
        assert res.network.equivalent(inst.planted) and res.certificate["c"] == inst.planted.to_json()["c"], m


@settings(deadline=None, max_examples=8)
@given(seed=st.integers(0, 10**6), k=st.integers(1, 3))
def test_offset_uniqueness_lemma(seed, k):
    """Theorem offset_uniqueness on random planted networks with both biases: the lemma's two sides agree."""
    rng = np.random.default_rng(seed)
    inst = _pytorch(k + 2, k, k + 1, 12 * k + 20, seed)
    bad, _ = offset_uniqueness.check_instance(inst, rng)
    assert bad == []


def test_k_minus_1_zeros_do_not_cut_a_unit_out_with_the_constant():
    """Without c, k - 1 zeros suffice generically; with the constant in the span, k - 1 leave a 2-dimensional kernel."""
    from exactrelu.exact.linalg import primitive_kernel
    from exactrelu.recover.views import ones_row

    inst = _pytorch(4, 2, 3, 200, seed=5)
    W = inst.planted.hidden_exact(inst.inputs).num
    B = ones_row(inst.labels.transpose().num, int(inst.labels.den))
    zero = next(j for j in range(inst.n) if W[0, j] == 0 and W[1, j] != 0)
    sub = [[int(B[r, zero])] for r in range(B.nrows())]
    import flint

    assert len(primitive_kernel(flint.fmpz_mat(sub).transpose())) == B.nrows() - 1 > 1  # 1 zero, k + 1 = 3 rows


@settings(deadline=None, max_examples=10)
@given(seed=st.integers(0, 10**6), k=st.integers(1, 3))
def test_rank_of_labels_with_the_constant_column_is_at_most_k_plus_1(seed, k):
    """rank([labels | 1]) <= k + 1 for every U (any rank), b and c: the bound behind the certified "no"."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 6))
    base = planted(3, k, m, 30, seed=seed, bias=1.0, allow_degenerate=True)
    U = rng.integers(-1, 2, (m, k)).tolist()
    c = [Fraction(int(x), 4) for x in rng.integers(-8, 9, m)]
    net = Network.from_rows(U, base.planted.V, b=base.planted.b, c=c)
    Y = net.evaluate_exact(base.inputs)
    assert exact_rank(with_ones(Y).num) <= k + 1


def test_a_rank_witness_with_the_constant_column_covers_the_output_bias():
    """rank(labels) = k + 1 refutes no network with c; rank([labels | 1]) = k + 2 does, and the checker agrees."""
    inst = Instance.from_arrays([[1], [2], [3]], [[1, 0], [0, 1], [0, 0]])
    with pytest.raises(NotRealizable) as exc:
        recover(inst, k=1, bias=True)
    cert = exc.value.certificate
    assert cert["model"] == BOTH_BIASES and inst.m in cert["rank"]["outputs"]
    assert "rank([labels | 1]) >= 3 > k + 1 = 2" in verify(cert, inst)
    with pytest.raises(NotRealizable) as exc:
        recover(inst, k=1, bias="hidden")  # the narrower class: a 2 x 2 minor of the labels
    assert exc.value.certificate["model"] == {"biases": True, "output_bias": False}
    alone = not_realizable_certificate(inst, 2, *nonsingular_minor(with_ones(inst.labels), 3))
    with pytest.raises(CertificateInvalid, match="rank witness has k \\+ 1 or k \\+ 2 rows"):
        verify(alone, inst)  # k + 1 rows with the constant column exclude nothing on their own


def test_solve_decides_small_grids_either_way_in_the_full_class():
    """The worst-case solver with b and c: a 'yes' (certified) and a 'no' (certified, stating the class)."""
    xs = list(range(-4, 5))
    relu = lambda t: max(t, 0)  # noqa: E731
    yes = Instance.from_arrays([[x] for x in xs], [[relu(x - 1) + 2 * relu(-x - 2) + 3] for x in xs])
    res = solve_decision(yes, 2, bias=True)
    assert res.realizable and res.network.has_output_bias and verify(res.certificate, yes) == res.summary
    hidden = solve_decision(yes, 2, bias="hidden")  # c = 3 cannot be made by two units here
    assert not hidden.realizable and hidden.model == {"biases": True, "output_bias": False}
    assert "with hidden biases and with output bias reproduces the labels exactly" in hidden.evidence["diagnosis"]
    no = solve_decision(yes, 1, bias=True)
    assert not no.realizable and no.model == BOTH_BIASES
    assert no.summary.startswith("not-realizable: no 1-unit ReLU network with hidden biases and with output bias")
    out = solve_decision(Instance.from_arrays([[-1], [0], [2]], [[3], [3], [5]]), 1, bias="output")
    assert out.realizable and out.network.c_fractions() == [3]
    span = solve_decision(Instance.from_arrays([[0], [1], [2]], [[3], [3], [5]]), 1, bias="output")
    assert not span.realizable and span.model == OUTPUT_BIAS and "span" in span.certificate


@settings(deadline=None, max_examples=5)
@given(seed=st.integers(0, 10**6))
def test_decide_with_c_is_monotone(seed):
    """A network without c is one with c = 0: whatever decide certifies without c, it certifies with c free; and each
    answer's certificate states its class."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, (6, 2)).tolist()
    y = [[int(v)] for v in rng.integers(-2, 3, 6)]
    inst = Instance.from_arrays(X, y)
    plain = decide(inst, k=1)
    offset = decide(inst, k=1, output_bias=True)
    if plain.realizable:
        assert offset.realizable
    if not offset.realizable:
        assert offset.certificate["model"]["output_bias"] and not plain.realizable
    if offset.realizable:
        assert offset.network.evaluate_exact(inst.inputs) == inst.labels


def test_decide_refuses_the_tree_engine_with_an_output_bias():
    inst = Instance.from_arrays([[1], [2]], [[1], [3]])
    with pytest.raises(InvalidInput, match="tree engine"):
        decide(inst, k=1, engine="tree", output_bias=True)
    with pytest.raises(InvalidInput, match="output_bias must be"):
        decide(inst, k=1, output_bias="yes")


def test_fit_with_c_certifies_exact_labels_and_fits_noisy_ones():
    exact = _pytorch(5, 2, 3, 2000, seed=7)
    res = fit(exact, 2, bias=True)
    assert res.realizable and res.network.equivalent(exact.planted)
    noisy = planted(5, 2, 3, 4000, seed=8, bias=1.0, output_bias=2.0, noise="gaussian:0.05")
    out = fit(noisy, 2, bias=True)  # auto: the tensor start, refined with c
    assert out.network.has_output_bias and out.residual.relative() < 0.05
    assert np.allclose([float(x) for x in out.network.c_fractions()], [float(x) for x in noisy.planted.c_fractions()],
                       atol=0.1)


def test_bias_words_and_their_refusals():
    assert bias_class(True) == BOTH_BIASES and bias_class("output") == OUTPUT_BIAS
    inst = planted(3, 1, 1, 30, seed=0)
    for bad in ("yes", 1, [True]):
        with pytest.raises(InvalidInput, match="bias must be"):
            recover(inst, k=1, bias=bad)
    with pytest.raises(InvalidInput, match="bias must be"):
        fit(inst, 1, bias="both ways")


def test_cli_bias_flag(tmp_path, capsys):
    path = write_instance(_pytorch(5, 3, 2, 1500, seed=3), tmp_path / "pt.json")
    assert main(["recover", str(path), "-k", "3", "--bias", "-o", str(tmp_path / "c.json")]) == 0
    assert "hidden biases, output bias)" in capsys.readouterr().out
    assert main(["recover", str(path), "-k", "3", "--bias", "hidden", "-o", str(tmp_path / "h.json")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Diagnosis (certified: the labels are exact)" in err and "--bias)" in err
    with pytest.raises(SystemExit) as exc:
        main(["recover", "--bias", str(path), "-k", "3"])
    assert exc.value.code == 2 and "expected both, hidden or output" in capsys.readouterr().err


def test_streaming_recovers_c(tmp_path):
    from exactrelu.recover.streaming import recover_streaming

    inst = _pytorch(4, 2, 3, 3000, seed=2, input_bits=12)
    path = tmp_path / "i.npz"
    np.savez(path, inputs=inst.float_inputs(), labels=inst.float_labels())
    res = recover_streaming(path, k=2, subset=500, block=1000, bias=True)
    assert res.network.equivalent(inst.planted) and res.entries_verified == 9000


def test_hidden_bias_class_is_the_constant_input_column():
    """solve --bias hidden refutes on (x, 1); the same data with c free (both) may be realizable."""
    inst = Instance.from_arrays([[0], [1], [2], [3]], [[1], [1], [2], [4]])
    aug = with_constant_input(inst)
    assert aug.d == 2 and solve_decision(inst, 1, bias=True).realizable


@pytest.mark.parametrize("m", [1, 2, 3, 5])
def test_float32_weights_of_pytorchs_model_are_recovered_and_certified(m):
    """Issue 33, done when: exact labels of PyTorch-default networks with float32 weights, m < k, m = k, m > k, m = 1."""
    from exactrelu.exact.matrix import QMatrix
    from exactrelu.recover.given_weights import certify_weights

    rng = np.random.default_rng(m)
    f32 = lambda *shape: rng.standard_normal(shape).astype(np.float32).astype(np.float64)  # noqa: E731
    net = Network.from_rows(f32(m, 3), f32(3, 6), b=f32(3), c=f32(m))
    X = rng.standard_normal((2000, 6))
    Xq = QMatrix.from_numpy(X, lazy=True)
    inst = Instance(Xq, net.evaluate_exact(Xq), None, net, X)
    assert recover(inst, k=3, bias=True).network.equivalent(net)
    trained = Network.from_rows(net.U.to_float() * 1.001, net.V.to_float(), b=net.b.to_float()[:, 0],
                                c=net.c.to_float()[:, 0])  # a float model near the labels, as PyTorch leaves it
    res = certify_weights(inst, trained)
    assert res.how == "recovered from the labels" and res.network.equivalent(net)
    if m == 1:
        assert fit(inst, 3, bias=True).realizable
