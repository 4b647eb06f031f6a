"""Top-1 equivalence (docs/equivalence.md, "Top-1 on a box"): at every x of the domain some class is a largest
output of both networks. Theorems (hypothesis) and adversarial cases: ties, one output, identical and permuted nets.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates import checker
from exactrelu.cli import main
from exactrelu.equiv import functionally_equal
from exactrelu.equiv.deep import deep_equivalence
from exactrelu.equiv.deep.top1 import argmax_set
from exactrelu.errors import InvalidInput
from exactrelu.network import Network


def _values(net: Network, x) -> list[Fraction]:
    return net.evaluate_exact([list(x)]).to_fractions()[0]


def _meet(a: Network, b: Network, x) -> bool:
    return bool(argmax_set(_values(a, x)) & argmax_set(_values(b, x)))


def _layers(net: Network) -> list:
    return [(layer.W.to_fractions(), layer.b_fractions()) for layer in net.layers]


def _net(layers) -> Network:
    return Network.from_layers([([[str(v) for v in row] for row in W], [str(v) for v in b]) for W, b in layers])


def _random_net(rng: random.Random, widths: list[int]) -> Network:
    def q():
        return Fraction(rng.randint(-4, 4), rng.randint(1, 3))

    return _net([([[q() for _ in range(widths[i])] for _ in range(widths[i + 1])], [q() for _ in range(widths[i + 1])])
                 for i in range(len(widths) - 1)])


def _variant(rng: random.Random, f: Network, kind: int) -> Network:
    """0: 2 f + 1 (the same argmax sets everywhere); 1: one output bias moved by 1/8; 2: another random net."""
    layers = _layers(f)
    W, b = layers[-1]
    if kind == 0:
        layers[-1] = ([[2 * v for v in row] for row in W], [2 * v + 1 for v in b])
    elif kind == 1:
        b = list(b)
        b[rng.randrange(len(b))] += Fraction(1, 8)
        layers[-1] = (W, b)
    else:
        return _random_net(rng, [f.d] + [len(W) for W, _ in layers[:-1]] + [f.m])
    return _net(layers)


@settings(max_examples=12)
@given(st.integers(0, 10**6), st.integers(2, 3), st.integers(2, 4), st.integers(0, 2))
def test_a_top1_answer_is_never_contradicted(seed, hidden, m, kind):
    """Proved: the argmax sets meet at random rational points of the box (exact); disproved: the checker accepts the
    witness, which lies in the box, with argmax sets that do not meet; unknown only with its reason."""
    rng = random.Random(seed)
    f = _random_net(rng, [2] + [3] * hidden + [m])
    g = _variant(rng, f, kind)
    lower = [Fraction(rng.randint(-3, 0), 2), Fraction(rng.randint(-3, 0), 2)]
    upper = [lo + Fraction(rng.randint(0, 4), 2) for lo in lower]
    res = functionally_equal(f, g, lower=lower, upper=upper, top1=True, max_nodes=400)
    if res.status == "equivalent":
        assert checker.check(res.certificate, None).startswith("top1-equivalent")
        for _ in range(20):
            x = [lo + (hi - lo) * Fraction(rng.randint(0, 64), 64) for lo, hi in zip(lower, upper)]
            assert _meet(f, g, x), x
    elif res.status == "not-equivalent":
        assert checker.check(res.certificate, None).startswith("not-top1-equivalent")
        assert all(lo <= t <= hi for lo, t, hi in zip(lower, res.witness, upper)) and not _meet(f, g, res.witness)
    else:
        assert res.evidence["reason"]
    if kind == 0:
        assert res.status != "not-equivalent"


ID = Network.from_layers([([[1, 0], [0, 1]], None), ([[1, 0], [0, 1]], None), ([[1, 0], [0, 1]], None)])  # relu(x)
BOX = {"lower": [-1, -1], "upper": [1, 1]}


def test_a_tie_at_a_point_against_a_network_that_breaks_it():
    """f ties on the diagonal x1 = x2; g = f + (1/4, 0) breaks every tie toward 0, but prefers 0 also where f prefers
    1 by less than 1/4: not top1, at an exact point; g = f + (0, 0) with one more output that never wins: top1."""
    g = Network.from_layers([([[1, 0], [0, 1]], None), ([[1, 0], [0, 1]], ["1/4", "0"])])
    res = functionally_equal(ID, g, top1=True, **BOX)
    assert res.status == "not-equivalent" and not _meet(ID, g, res.witness)
    at_tie = Network.from_layers([([[1, 0], [0, 1]], None), ([[1, 0], [0, 1]], None), ([[1, 0], [0, 1]], ["0", "0"])])
    assert functionally_equal(ID, at_tie, top1=True, **BOX).status == "equivalent"


def test_ties_everywhere_against_a_strict_preference_are_top1():
    """f = (relu(x), relu(x)) ties everywhere; g prefers class 0: the sets meet, proved by g's regions (net 1)."""
    tie = Network.from_layers([([[1]], None), ([[1], [1]], None)])
    lead = Network.from_layers([([[1]], None), ([[1], [1]], [1, 0])])
    res = functionally_equal(tie, lead, top1=True, lower=[-2], upper=[2])
    assert res.status == "equivalent"
    assert [n["top1"]["net"] for n in res.certificate["tree"] if "top1" in n] == [1] * sum(
        "top1" in n for n in res.certificate["tree"])
    other = Network.from_layers([([[1]], None), ([[1], [1]], [0, 1])])  # prefers class 1: still meets {0, 1}
    assert functionally_equal(lead, other, top1=True, lower=[-2], upper=[2]).status == "not-equivalent"


def test_both_tie_on_one_leaf_in_different_classes_is_unknown_not_a_guess():
    """f = (r, r, 0) ties classes 0 and 1, g = (0, r, r) ties 1 and 2 (r = relu(x) > 0): the sets meet in class 1
    everywhere, yet neither network's argmax regions prove it on the leaf: "unknown" with the reason, no claim."""
    f = Network.from_layers([([[1]], None), ([[1], [1], [0]], None)])    # (r, r, 0), r = relu(x)
    g = Network.from_layers([([[1]], None), ([[0], [1], [1]], None)])    # (0, r, r)
    res = functionally_equal(f, g, top1=True, lower=[0], upper=[1])
    assert res.status == "unknown" and "tie" in res.evidence["reason"] and res.certificate == {}
    for x in (0, Fraction(1, 2), 1):
        assert _meet(f, g, [x])


def test_one_output_is_top1_at_once_and_identical_nets_by_one_equal_leaf():
    one = Network.from_layers([([[1, -1]], None), ([[1]], None), ([[2]], None)])
    other = Network.from_layers([([[3, 1]], [1]), ([[-1]], None)])
    res = functionally_equal(one, other, top1=True, **BOX)
    assert res.status == "equivalent" and res.certificate["tree"] == [{"top1": {"net": 0, "classes": [{"beats": []}]}}]
    same = functionally_equal(ID, ID, top1=True, **BOX)
    assert same.status == "equivalent" and same.certificate["tree"] == [{"equal": [{}, {}]}]


def test_a_net_against_itself_with_its_outputs_permuted():
    rng = random.Random(5)
    f = _random_net(rng, [2, 3, 3, 3])
    W, b = _layers(f)[-1]
    g = _net(_layers(f)[:-1] + [([W[1], W[2], W[0]], [b[1], b[2], b[0]])])
    res = functionally_equal(f, g, top1=True, **BOX)
    assert res.status == "not-equivalent" and not _meet(f, g, res.witness)
    swapped = Network.from_layers([([[1, 0], [0, 1]], None), ([[0, 1], [1, 0]], None), ([[0, 1], [1, 0]], None)])
    assert functionally_equal(ID, swapped, top1=True, **BOX).status == "equivalent"


def test_top1_on_all_of_r_d():
    g = Network.from_layers([([[2, 0], [0, 2]], None), ([[1, 0], [0, 1]], [1, 1])])   # 2 relu(x) + 1
    res = functionally_equal(ID, g, top1=True)
    assert res.status == "equivalent" and res.certificate["domain"] == {"kind": "R^d"}
    h = Network.from_layers([([[1, 0], [0, 1]], None), ([[1, 0], [0, 1]], ["1/4", "0"])])
    assert functionally_equal(ID, h, top1=True).status == "not-equivalent"


def test_epsilon_and_top1_together_are_refused():
    with pytest.raises(InvalidInput, match="--epsilon or --top1, not both"):
        deep_equivalence(ID, ID, epsilon="1", top1=True)


def test_a_spent_budget_is_unknown():
    rng = random.Random(3)
    f = _random_net(rng, [2, 4, 4, 3])
    g = _variant(rng, f, 0)
    res = functionally_equal(f, g, top1=True, max_nodes=1, **BOX)
    assert res.status == "unknown" and "node budget" in res.evidence["reason"]


def _write(tmp_path, name: str, net: Network) -> str:
    path = tmp_path / name
    layers = [{"W": [[str(v) for v in row] for row in W], "b": [str(v) for v in b]} for W, b in _layers(net)]
    path.write_text(json.dumps({"format": "exactrelu.weights", "version": 1, "layers": layers}))
    return str(path)


def test_the_command_line_exit_codes_and_json(tmp_path, capsys):
    f = _write(tmp_path, "f.json", ID)
    g = _write(tmp_path, "g.json", Network.from_layers([([[2, 0], [0, 2]], None), ([[1, 0], [0, 1]], [1, 1])]))
    h = _write(tmp_path, "h.json", Network.from_layers([([[1, 0], [0, 1]], None), ([[1, 0], [0, 1]], ["1/4", 0])]))
    box = ["--lower=-1,-1", "--upper", "1,1", "--top1"]
    assert main(["equiv", f, g, *box, "-o", str(tmp_path / "c.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("TOP1-EQUIVALENT") and "ties:" in out
    assert main(["check", str(tmp_path / "c.json")]) == 0
    assert capsys.readouterr().out.startswith("VALID: top1-equivalent")
    assert main(["equiv", f, h, *box, "--json"]) == 1
    rec = json.loads(capsys.readouterr().out)
    assert rec["status"] == "not-equivalent" and rec["property"].startswith("top1") and len(rec["witness"]) == 2
    assert main(["equiv", f, h, *box]) == 1
    assert "NOT TOP1-EQUIVALENT" in capsys.readouterr().out
    deep = _write(tmp_path, "d.json", _random_net(random.Random(3), [2, 4, 4, 3]))
    deep2 = _write(tmp_path, "d2.json", _variant(random.Random(3), _random_net(random.Random(3), [2, 4, 4, 3]), 0))
    assert main(["equiv", deep, deep2, *box, "--max-nodes", "1"]) == 3
    assert "UNKNOWN" in capsys.readouterr().out
    assert main(["equiv", f, g, *box, "--epsilon", "1"]) == 2
    assert "not both" in capsys.readouterr().err
