"""The relaxed-leaf rule of trusted/phases.py, row by row: a tight valid certificate and zero-sum forgeries.

The search's relaxed leaf in the corpus (``deep-epsilon-relaxed-box``) cites no ``lo``, ``hi`` or ``ymax`` row and
no line of a neuron with a constant, so a checker that wrote those rows wrong could pass it. Here the same two
networks (|x| against relu(x + 1/8) + relu(-x + 1/8), the reduced difference's neurons z_0 = x, z_1 = 2 y_0 - x,
z_2 = x + 1/8, z_3 = -x + 1/8) are checked on the one-point box x = -1, where every bound of the chain is exact
(l = U = z_u(-1)) and every line touches relu there:

* a valid certificate whose every proof is tight (each bound of the chain, and the lower bound of the leaf, holds
  with equality): a mutant that *weakens* a row (a smaller constant, another coefficient) refuses it;
* for each row, a Farkas leaf that sums to exactly ``0 <= 0``: the checker refuses it (a Farkas leaf needs
  ``0 <= negative``), and a mutant that *strengthens* the row by any amount accepts it, proving the false claim
  that the two networks are equal (they differ by 1/8 at x = -1).

Each test names the mutants of ``benchmarks/mutate_checker.py`` it kills. Mutants left alive, each equivalent:
``max(l, 0)`` -> ``max(0, l)`` (twice) and ``max(U, 0)`` -> ``max(0, U)`` (max commutes), and the three caches made
to recompute (``(kind, u) not in red.chain_rows``, ``cache is None or key not in cache`` and ``cache is None`` ->
True): a chain row reads only ``red.chain[u]``, fixed until its leaf ends, and a static row nothing that changes, so
a row computed again is the row cached.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from exactrelu.certificates import checker

CORPUS = Path(__file__).resolve().parents[1] / "corpus"

#: the corpus's tight certificate on the point x = -1 (tests/corpus/make_corpus.py, ``_relaxed_point``): z = (-1, 1,
#: -7/8, 9/8) there, its chain of exact bounds citing lo and hi rows, and its leaf: f - g = y_1 - y_2 - y_3 <= -1/8
#: (within epsilon 1/8), -(f - g) - 1/8 <= 0 with equality by ymax rows
POINT = json.loads((CORPUS / "valid" / "deep-relaxed-point-tight.json").read_text())
CHAIN = POINT["tree"][0]["relaxed"]["chain"]
UPPER, LOWER_YMAX = POINT["tree"][0]["relaxed"]["leaf"]["bounds"][0]
#: the same lower bound by the line of neuron 3 instead of its ymax row
LOWER_LINE = {"ymax": [[2, "1"]], "line": [[3, "1"]], "lower": [[0, "1/2"]], "relu": [[1, "1"]], "pos": [[0, "2"]],
              "hi": [[0, "1"]]}
#: combinations summing to exactly 0 (no variable, constant 0) at the point, one per chain row (and sign of U)
ZERO_SUMS = {
    "lo of a neuron with a constant": {"lo": [[2, "1"]], "hi": [[0, "1"]]},
    "hi of a neuron with a constant": {"hi": [[2, "1"]], "lo": [[0, "1"]]},
    "lo and hi": {"lo": [[0, "1"]], "hi": [[0, "1"]]},
    "line of a neuron with a constant": {"line": [[3, "1"]], "relu": [[3, "1"]], "hi": [[0, "1/2"]]},
    "line": {"line": [[0, "1"]], "pos": [[0, "1"]], "hi": [[0, "1/2"]]},
    "ymax, U > 1": {"ymax": [[3, "1"]], "relu": [[3, "1"]], "hi": [[0, "1"]]},
    "ymax, U = 1": {"ymax": [[1, "1"]], "relu": [[1, "1"]], "pos": [[0, "2"]], "hi": [[0, "1"]]},
    "ymax, U < 0": {"ymax": [[2, "1"]], "pos": [[2, "1"]]},
}


def _cert(leaf: dict, epsilon: str | None = "1/8", chain: list | None = None) -> dict:
    cert = copy.deepcopy(POINT)
    cert["property"] = {"kind": "equal"} if epsilon is None else {"kind": "epsilon", "epsilon": epsilon, "norm": "max"}
    cert["domain"] = {"kind": "box", "lower": ["-1"], "upper": ["-1"]}
    cert["tree"] = [{"relaxed": {"chain": copy.deepcopy(CHAIN if chain is None else chain), "leaf": leaf}}]
    return cert


@pytest.mark.parametrize("lower", [LOWER_YMAX, LOWER_LINE], ids=["ymax", "line"])
def test_a_relaxed_leaf_with_every_bound_tight_is_valid(lower):
    """Mutants that weaken a chain row (lo/hi/line/ymax), refuse l = U or a line that touches relu (``lo > hi`` ->
    ``>=``, ``<`` -> ``<=``), or drop a row of the chain."""
    verdict = checker.check(_cert({"bounds": [[UPPER, lower]]}), None)
    assert verdict.startswith("epsilon-equivalent: ") and "within 1/8 of each other" in verdict


@pytest.mark.parametrize("lower", [LOWER_YMAX, LOWER_LINE], ids=["ymax", "line"])
def test_the_tight_lower_bound_is_exact(lower):
    """The leaf's lower bound is tight: the same certificate for any smaller epsilon is refused."""
    with pytest.raises(checker.CheckFailed, match="does not prove output 0's difference >= -1/9"):
        checker.check(_cert({"bounds": [[UPPER, lower]]}, "1/9"), None)


@pytest.mark.parametrize("name", list(ZERO_SUMS))
def test_a_zero_sum_farkas_leaf_is_refused(name):
    """Mutants that strengthen a chain row: ``lo - k`` -> ``lo + k``, ``k - hi`` -> ``k + hi``, ``-s k - t`` ->
    ``-s k + t``, ``max(U, 0)`` -> ``max(U, -1)`` / ``max(U, 1)``, ... turn this into ``0 <= positive``: the false
    claim f = g at x = -1 accepted."""
    cert = _cert({"farkas": ZERO_SUMS[name]}, None)
    with pytest.raises(checker.CheckFailed, match="a Farkas leaf does not sum to 0 <= negative"):
        checker.check(cert, None)


@pytest.mark.parametrize("kind, farkas", [
    ("lo", {"lo": [[0, "-1"]], "lower": [[0, "1"]]}),
    ("hi", {"hi": [[0, "-1"]], "upper": [[0, "1"]]}),
    ("ymax", {"ymax": [[0, "-1"]], "line": [[0, "1"]], "upper": [[0, "1/2"]]}),
])
def test_a_chain_row_with_a_negative_multiplier_is_refused(kind, farkas):
    """_INEQUALITY marks lo, hi and ymax as inequalities (mutant: True -> False, any sign accepted). Negated, each
    row of a loose chain on [-1, 1] (z_0 in [-2, 2], its chord) gives 0 <= positive: the false f = g accepted."""
    chain = [[0, "-2", "2", "1/2", "1", {"lower": [[0, "1"]]}, {"upper": [[0, "1"]]}]]
    cert = _cert({"farkas": farkas}, None, chain)
    cert["domain"] = {"kind": "box", "lower": ["-1"], "upper": ["1"]}
    with pytest.raises(checker.CheckFailed, match=f"the {kind} row of neuron 0 has a negative multiplier"):
        checker.check(cert, None)


def _neg(q: str) -> str:
    return q[1:] if q.startswith("-") else "-" + q


def test_equations_take_multipliers_of_either_sign():
    """_INEQUALITY marks post and lemma rows as equations (mutants: False -> True refuse a valid negative multiplier):
    the corpus's lemma certificate with its first lemma's form negated (its equal leaves' post multipliers negated in
    step) and cited with multiplier -1 is as valid."""
    cert = json.loads((CORPUS / "valid" / "deep-equivalent-lemmas.json").read_text())
    lemma = cert["lemmas"][0]
    form = lemma["forms"][0]
    form["terms"] = [[v, _neg(q)] for v, q in form["terms"]]
    for node in lemma["tree"]:
        for comb in node.get("equal", []):
            comb["post"] = [[u, _neg(q)] for u, q in comb["post"]]
    cert["tree"][0]["equal"][0]["lemma"][0][1] = "-1"
    assert checker.check(cert, None).startswith("equivalent: ")


@pytest.mark.parametrize("kind, row", [("relu", 3), ("pos", 2), ("upper", 0)])
def test_the_static_rows_are_inequalities(kind, row):
    """_INEQUALITY marks relu, pos and the box's upper rows as inequalities (mutants: True -> False): a negative
    multiplier on one of them is refused, in a chain's proof and in a leaf."""
    chain = copy.deepcopy(CHAIN)
    chain[0][5] = {"lower": [[0, "1"]], kind: [[row, "-1"]]}
    with pytest.raises(checker.CheckFailed, match=f"the {kind} row of neuron {row} has a negative multiplier"):
        checker.check(_cert({"bounds": [[UPPER, LOWER_YMAX]]}, chain=chain), None)
    upper = copy.deepcopy(UPPER)
    upper.setdefault(kind, []).append([row, "-1/3"])
    with pytest.raises(checker.CheckFailed, match=f"the {kind} row of neuron {row} has a negative multiplier"):
        checker.check(_cert({"bounds": [[upper, LOWER_YMAX]]}), None)


def test_the_rows_of_the_leaves_are_limited_to_the_term(monkeypatch):
    """The limit ``terms`` is reached, not passed (mutant: ``red.terms > limit`` -> ``>=``): the certificate is
    accepted at exactly its count of terms (the reduction's, then each row cited: its variables and constant),
    counted here from the rows' definitions, and refused one below."""
    from exactrelu.certificates.trusted import common
    from exactrelu.certificates.trusted.deep import read_network, reduced_difference

    cert = _cert({"bounds": [[UPPER, LOWER_YMAX]]})
    red = reduced_difference(read_network(cert["networks"][0], 1), read_network(cert["networks"][1], 2))
    size = [len(form) for form, _ in red.forms]  # the variables of each z_u
    variables = {"lower": lambda u: 1, "upper": lambda u: 1, "pos": lambda u: 1, "ymax": lambda u: 1,
                 "lo": lambda u: size[u], "hi": lambda u: size[u], "relu": lambda u: size[u] + 1,
                 "line": lambda u: size[u] + 1}
    cited = [comb for entry in CHAIN for comb in entry[5:]] + [UPPER, LOWER_YMAX]
    terms = red.terms + sum(variables[kind](u) + 1 for comb in cited for kind, rows in comb.items() for u, _ in rows)
    monkeypatch.setitem(common._limits, "terms", terms)
    assert checker.check(cert, None).startswith("epsilon-equivalent")
    monkeypatch.setitem(common._limits, "terms", terms - 1)
    with pytest.raises(checker.UnreadableInput, match="the rows of the case tree's leaves"):
        checker.check(cert, None)
