"""Regenerate the certificate corpus: valid and tampered certificates of every claim the checker knows.

    python tests/corpus/make_corpus.py            # rewrite tests/corpus/{instances,valid,invalid}, MANIFEST.json, README.md
    python tests/corpus/make_corpus.py --check    # regenerate into a temporary folder and compare (exit 1 if different)

Everything is built from fixed seeds and small hand-made instances with the library (untrusted), then
written as files, so that any checker can be held to the same files (as drat-trim's ``examples/`` and
VeriPB's ``correct``/``incorrect`` folders are). The expected verdict of each file is stated here, by
construction, never computed by the checker under test: a valid certificate is a true claim the library
built; an invalid one is a valid one with one named change (or a hand-made false claim), and its ``expect``
is the part of the checker's one-line answer that names the reason. ``MANIFEST.json`` lists every file with
its instance, expected exit code (0 valid, 1 invalid, 2 unreadable), reason and expected text;
``tests/corpus/test_corpus.py`` runs the checker over all of them.
"""

from __future__ import annotations

import argparse
import copy
import filecmp
import json
import shutil
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

from corpus_forgeries import forged_drup_certificate, old_drup_certificate  # noqa: E402
from corpus_instances import INSTANCES, build_instances  # noqa: E402

from exactrelu.certificates.claims.lp import lp_certificate  # noqa: E402
from exactrelu.certificates.claims.realizes import (realizes_certificate, realizes_except_certificate,  # noqa: E402
                                                    residual_certificate)
from exactrelu.certificates.claims.span import not_realizable_certificate  # noqa: E402
from exactrelu.decide import decide, solve, solve_decision  # noqa: E402
from exactrelu.equiv import functionally_equal  # noqa: E402
from exactrelu.errors import NotRealizable  # noqa: E402
from exactrelu.exact.linalg import nonsingular_minor  # noqa: E402
from exactrelu.exact.lp import feasible  # noqa: E402
from exactrelu.instances import write_instance  # noqa: E402
from exactrelu.network import Activation, Network  # noqa: E402
from exactrelu.recover.views import with_ones  # noqa: E402


class Corpus:
    """Files under ``root`` and the manifest rows that describe them."""

    def __init__(self, root: Path):
        self.root, self.rows = root, []
        for sub in ("instances", "valid", "invalid"):
            (root / sub).mkdir(parents=True, exist_ok=True)

    def instance(self, name: str, inst) -> str:
        path = self.root / "instances" / f"{name}.json"
        write_instance(inst, path, include_planted=False)
        return f"instances/{name}.json"

    def raw_instance(self, name: str, data: bytes) -> str:
        (self.root / "instances" / name).write_bytes(data)
        return f"instances/{name}"

    def add(self, folder: str, name: str, cert, instance: str | None, code: int, expect: str, reason: str) -> None:
        data = cert if isinstance(cert, bytes) else (json.dumps(_plain(cert)) + "\n").encode()
        (self.root / folder / f"{name}.json").write_bytes(data)
        self.rows.append({"certificate": f"{folder}/{name}.json", "instance": instance, "exit": code,
                          "expect": expect, "reason": reason})

    def valid(self, name, cert, instance, expect, reason):
        self.add("valid", name, cert, instance, 0, expect, reason)

    def invalid(self, name, cert, instance, expect, reason, code=1):
        self.add("invalid", name, cert, instance, code, expect, reason)

    def finish(self) -> None:
        (self.root / "MANIFEST.json").write_text(json.dumps(self.rows, indent=1) + "\n")
        lines = ["| certificate | instance | exit | reason |", "|---|---|---|---|"]
        lines += [f"| `{r['certificate']}` | {'`' + r['instance'] + '`' if r['instance'] else '-'} | {r['exit']} | "
                  f"{r['reason']} |" for r in self.rows]
        text = (HERE / "README.in.md").read_text().replace("{{TABLE}}", "\n".join(lines))
        (self.root / "README.md").write_text(text)


def _plain(cert):
    """The certificate as the corpus stores it: a fixed provenance (no library version, no command line)."""
    out = copy.deepcopy(cert)
    if "provenance" in out:
        out["provenance"] = {"corpus": "tests/corpus/make_corpus.py"}
    return out


def old(cert):
    """The certificate as the library wrote it before model classes (issue 23): without ``model``."""
    return {key: v for key, v in cert.items() if key != "model"}


def tampered(cert, change):
    out = copy.deepcopy(cert)
    change(out)
    return out


def _network_claims(c: Corpus, insts: dict) -> None:
    """realizes (without and with b and c, a power activation, an .npz instance), realizes-except, residual."""
    plain, biased, both, power, corrupted, noisy = (insts[k] for k in ("plain", "biased", "both", "power", "corrupted", "noisy"))
    ip, ib, ibc, ipow = (c.instance(k, insts[k]) for k in ("plain", "biased", "both", "power"))
    npz = c.raw_instance("plain.npz", _npz(plain))
    r = realizes_certificate(plain, plain.planted)
    c.valid("realizes", r, ip, "VALID: realizes: 12 samples x 2 outputs", "a planted network, no biases")
    c.valid("realizes-npz", r, npz, "VALID: realizes: 12 samples x 2 outputs", "the same claim on the same instance as .npz")
    c.valid("realizes-b", realizes_certificate(biased, biased.planted), ib, "hidden biases", "hidden biases b")
    rbc = realizes_certificate(both, both.planted)
    c.valid("realizes-bc", rbc, ibc, "hidden biases, output bias", "hidden biases b and an output bias c")
    c.valid("realizes-power", realizes_certificate(power, power.planted), ipow, "activation degree 2", "activation t^2")
    c.invalid("realizes-V-changed", tampered(r, lambda x: x["V"][1].__setitem__(0, _bump(x["V"][1][0]))), ip,
              "differs from the label", "one weight of V changed")
    c.invalid("realizes-c-dropped", tampered(rbc, lambda x: x.pop("c")), ibc, "differs from the label",
              "the output bias dropped")
    c.invalid("realizes-hash", tampered(r, lambda x: x.__setitem__("instance_sha256", "0" * 64)), ip,
              "instance_sha256 does not match", "another instance's hash")
    c.invalid("realizes-activation", tampered(r, lambda x: x.__setitem__("activation", {"name": "power", "degree": 2})),
              ip, "INVALID", "another activation than the network's")
    c.invalid("realizes-unknown-field", tampered(r, lambda x: x.__setitem__("bais", ["1"])), ip, "unknown fields",
              "a misspelt field")
    c.invalid("unknown-claim", tampered(r, lambda x: x.__setitem__("claim", "realises")), ip, "unknown claim",
              "a claim the checker does not know")
    c.invalid("claim-list", tampered(r, lambda x: x.__setitem__("claim", [])), ip, "unknown claim [];",
              "a claim that is a list, not a name (issue 34: a traceback)")
    c.invalid("claim-object", tampered(r, lambda x: x.__setitem__("claim", {})), ip, "unknown claim {};",
              "a claim that is an object (issue 34: a traceback)")
    c.invalid("realizes-no-hash", tampered(r, lambda x: x.pop("instance_sha256")), ip, "has no instance_sha256",
              "no instance_sha256 (issue 34: a KeyError)")
    c.invalid("realizes-without-instance", r, None, "give the instance whose SHA-256 is",
              "a claim about an instance, checked without it: a usage error", code=2)
    c.invalid("version-true", tampered(r, lambda x: x.__setitem__("version", True)), ip, "unsupported certificate version",
              "version true (a boolean is not the integer 1)")
    c.invalid("version-float", tampered(r, lambda x: x.__setitem__("version", 1.0)), ip, "unsupported certificate version",
              "version 1.0 (a float is not the integer 1)")
    ic = c.instance("corrupted", corrupted)
    ex = realizes_except_certificate(corrupted, corrupted.planted, insts["corrupted_entries"])
    c.valid("realizes-except", dict(ex, max_except="1/4"), ic, "all 24 entries (12 samples x 2 outputs) except 3 (12.5%",
            "three corrupted label entries, listed; max_except 1/4")
    c.invalid("realizes-except-max", dict(ex, max_except="1/10"), ic, "more than max_except = 1/10", "more entries listed than max_except allows")
    c.invalid("realizes-except-missing", tampered(ex, lambda x: x["except"].pop()), ic, "is not listed",
              "a corrupted entry left out of the list")
    c.invalid("realizes-except-extra", tampered(ex, lambda x: x["except"].insert(0, [0, 0])), ic, "reproduces it",
              "an entry the network reproduces, listed")
    c.invalid("realizes-except-unsorted", tampered(ex, lambda x: x["except"].reverse()), ic, "sorted",
              "the list out of order")
    inoisy = c.instance("noisy", noisy)
    res = residual_certificate(noisy, noisy.planted)
    c.valid("residual", res, inoisy, "VALID: residual", "exact squared and largest errors of a planted network on noisy labels")
    c.invalid("residual-squared", tampered(res, lambda x: x.__setitem__("squared_error", _bump(x["squared_error"]))),
              inoisy, "squared_error is", "the squared error changed")
    c.invalid("residual-max", tampered(res, lambda x: x.__setitem__("max_abs_error", "0")), inoisy, "max_abs_error is",
              "the largest error changed")


def _lp_claims(c: Corpus) -> None:
    ok = lp_certificate(feasible(A_eq=[[1, 1, 0]], b_eq=[2], A_ub=[[-1, 0, 0], [0, -1, 1]], b_ub=[0, "1/2"]))
    no = lp_certificate(feasible(A_eq=[[1, 1]], b_eq=[1], A_ub=[[-1, 0], [0, -1], [1, 1]], b_ub=[0, 0, "-1/3"]))
    c.valid("lp-feasible", ok, None, "VALID: lp-feasible: 1 equations, 2 inequalities in 3 variables", "a point of a small system")
    c.valid("lp-infeasible", no, None, "VALID: lp-infeasible", "a Farkas vector of an empty system")
    c.invalid("lp-feasible-point", tampered(ok, lambda x: x["point"].__setitem__(0, _bump(x["point"][0]))), None,
              "fails at the point", "the point moved off the equation")
    c.invalid("lp-infeasible-negative", tampered(no, lambda x: x["y_ub"].__setitem__(0, "-1")), None,
              "negative entry", "a negative multiplier on an inequality")
    c.invalid("lp-infeasible-scaled", tampered(no, lambda x: x["y_eq"].__setitem__(0, _bump(x["y_eq"][0]))), None,
              "not zero", "one multiplier changed: the combination no longer cancels")


def _case_claims(c: Corpus, insts: dict) -> None:
    """Case trees (given and unknown U), hinted refutations with templates and symmetry, model classes, DRUP."""
    small, nae, tiny = insts["unrealisable"], insts["nae"], insts["tiny"]
    ism, inae, itiny = c.instance("unrealisable", small), c.instance("nae", nae), c.instance("tiny", tiny)
    tree = decide(small, U=[[1, 1]], engine="tree").certificate
    c.valid("tree-given", old(tree), ism, "VALID: not-realizable: no 2-unit ReLU network without hidden biases and without "
            "output bias reproduces the labels (6 samples, the given output weights) [no model field",
            "a case tree over activation patterns, U given; no model field (old meaning)")
    tree_unknown = decide(small, engine="tree").certificate
    c.valid("tree-unknown", tree_unknown, ism, "without hidden biases and without output bias reproduces the labels "
            "(6 samples, any output weights); 6", "case trees for the 6 sign cases of unknown U, model stated (as the "
            "library writes it)")
    leaf = _first_leaf(tree)
    c.invalid("tree-multiplier", tampered(tree, lambda x: _first_leaf(x)["farkas"][-1].__setitem__(3, "1000")), ism,
              "not 0 <= negative", f"one Farkas multiplier changed (a leaf of {len(leaf['farkas'])} rows)")
    c.invalid("tree-leaf-dropped", tampered(tree, lambda x: x["cases"][0]["tree"].pop()), ism, "incomplete",
              "the last leaf of the case tree dropped")
    c.invalid("tree-lemma-misplaced", tampered(tree, lambda x: x["cases"][0]["tree"].__setitem__(-1, {"lemma": 0})), ism,
              "its assumptions do not hold here", "a lemma cited where its assumptions do not hold")
    c.invalid("tree-model-biases", dict(tree, model={"biases": True, "output_bias": False}), ism,
              "wider than its proof", "a case tree stated to exclude hidden biases (no constant input column)")
    hinted = decide(nae, U=[[1, 1]]).certificate
    assert hinted["model"] == {"biases": False, "output_bias": False}, "the library states the class it refutes"
    c.valid("lrat-given", hinted, inae,
            "VALID: not-realizable: no 2-unit ReLU network without hidden biases and without output bias",
            "lemmas, templates, symmetry and a hinted (LRAT) refutation, model stated")
    unknown = decide(nae).certificate
    c.valid("lrat-unknown", unknown, inae, "hinted steps checked", "hinted refutations of the 6 sign cases")
    c.invalid("lrat-hint-dropped", tampered(hinted, lambda x: _drop_hint(x["cases"][0]["lrat"])), inae,
              "INVALID", "one hint dropped from a hinted step")
    c.invalid("lrat-separator-false", tampered(hinted, lambda x: _false_separator(x["cases"][0]["lrat"])), inae,
              "has no 0 between its literals and its hints", "false (== 0 in Python) as the separator of a step")
    c.invalid("lrat-template-data", tampered(hinted, lambda x: _swap_template_instance(x["cases"][0])), inae,
              "INVALID", "a template instance moved onto other samples")
    c.invalid("lrat-model-output-bias", dict(hinted, model={"biases": False, "output_bias": True}), inae,
              "not 0 <= negative", "a hinted refutation stated to exclude an output bias: checked with c free, its "
              "equations leave c")
    c.invalid("drup-retired", old_drup_certificate(hinted, nae), inae, "carries a DRUP proof ('rup')",
              "an honest DRUP certificate (before issue 26): refused, convert with exactrelu check --upgrade")
    c.invalid("drup-forged-issue-26", forged_drup_certificate(tiny), itiny, "carries a DRUP proof ('rup')",
              "issue 26: valid lemmas and DRUP steps (tautologies, supersets, the unit [7]) on a realisable instance")
    half = decide(small, U=[[1, 1, -1]]).certificate
    c.valid("lrat-half-rows", half, ism, "hinted steps checked",
            "output weights of both signs: lemmas on half rows (eq+: the positive units alone >= the label)")
    c.invalid("lrat-half-row-sign", tampered(half, lambda x: _first_half_row(x).__setitem__(0, "eq-")), ism,
              "INVALID", "a half row read as the other sign's (eq+ -> eq-)")
    c.invalid("lrat-half-row-negative", tampered(half, lambda x: _first_half_row(x).__setitem__(3, "-1")), ism,
              "negative multiplier", "a half row with a negative multiplier")
    biased = decide(insts["constant_column"], k=1).certificate
    icc = c.instance("constant_column", insts["constant_column"])
    assert biased["model"] == {"biases": True, "output_bias": False}, "the widest class the refutation supports"
    c.valid("tree-constant-column-biases", biased, icc,
            "no 1-unit ReLU network with hidden biases and without output bias",
            "a refutation on inputs with a constant column excludes hidden biases too")


def _rank_claims(c: Corpus, insts: dict) -> None:
    """Rank witnesses of k + 1 and k + 2 rows, and a span refutation."""
    ident = insts["identity"]
    iid = c.instance("identity", ident)
    k1 = not_realizable_certificate(ident, 2, *nonsingular_minor(ident.labels, 3))
    c.valid("rank-k+1", old(k1), iid, "no 2-unit ReLU network with hidden biases and without output bias",
            "a non-zero 3 x 3 minor, k = 2; no model field (old meaning: hidden biases, no output bias)")
    k2 = not_realizable_certificate(ident, 1, *nonsingular_minor(ident.labels, 3))
    assert k2["model"] == {"biases": True, "output_bias": True}, "a (k+2)-minor excludes both"
    c.valid("rank-k+2-output-bias", k2, iid, "with hidden biases and with output bias", "a non-zero 3 x 3 minor, k = 1")
    c.invalid("rank-k+1-output-bias", dict(k1, model={"biases": True, "output_bias": True}), iid, "add one to the rank",
              "a (k+1)-minor stated to exclude an output bias")
    c.invalid("rank-singular", tampered(k1, lambda x: x["rank"]["samples"].__setitem__(2, x["rank"]["samples"][1])), iid,
              "distinct indices", "a repeated sample in the minor")
    span_inst = insts["span"]
    isp = c.instance("span", span_inst)
    try:
        solve(span_inst, k=2)
        raise AssertionError("the span instance is realisable")
    except NotRealizable as exc:
        span = exc.certificate
    assert "span" in span, "the solver answered without a span refutation"
    c.valid("span", span, isp, "rank(labels) = 2 (a non-zero 2 x 2 minor) and no realizable hidden row",
            "rank k and a span refutation")
    biased = solve_decision(insts["constant_column_free"], 1, bias="hidden")
    assert "span" in biased.certificate and biased.instance is not None, "solve --bias answered without a span"
    c.valid("span-bias", biased.certificate, c.instance("grid_with_ones", biased.instance),
            "no 1-unit ReLU network with hidden biases and without output bias reproduces the labels (40 samples",
            "solve --bias: a span refutation on the inputs with a constant 1 column appended")
    c.invalid("span-bias-wrong-instance", biased.certificate, c.instance("grid", insts["constant_column_free"]),
              "instance_sha256", "the same certificate with the instance before the constant column was appended")
    c.invalid("span-zero-functional", tampered(span, lambda x: x["span"].__setitem__("functional", ["0", "0"])), isp,
              "non-zero", "the functional zeroed")
    c.invalid("span-sign-true", tampered(span, lambda x: x["span"]["cases"][0].__setitem__("sign", True)), isp,
              "span is", "true (== 1 in Python) as the sign of a case")


# 3 relu(x + 2y + 1) - relu(y) + relu(-x) + 1/2: one flipped unit, so the canonical form has an affine part -x
_BASE = Network.from_rows(U=[[3, -1, 1]], V=[[1, 2], [0, 1], [-1, 0]], b=[1, 0, 0], c=["1/2"])
# the same function: a rescaled unit, relu(-x) written as relu(x) - relu(x) + relu(-x), and the block
# relu(x - y) - relu(y - x) - relu(x - y + 3) + relu(y - x - 3) = -3 compensated by c
_SAME = Network.from_rows(U=[["3/2", -1, "1/2", -1, 1, 1, -1, -1, 1]],
                          V=[[2, 4], [0, 1], [2, 0], [1, 0], [-1, 0], [1, -1], [-1, 1], [1, -1], [-1, 1]],
                          b=[2, 0, 0, 0, 0, 0, 0, 3, -3], c=["7/2"])


def _output_bias_claims(c: Corpus, insts: dict) -> None:
    """Issue 33: refutations that cover an output bias c (the constant column of [labels | 1], c free in the LPs)."""
    off = insts["offset"]
    ioff = c.instance("offset", off)
    wit = not_realizable_certificate(off, 1, *nonsingular_minor(with_ones(off.labels), 3))
    assert wit["model"] == {"biases": True, "output_bias": True} and off.m in wit["rank"]["outputs"]
    c.valid("rank-ones-column", wit, ioff, "with hidden biases and with output bias reproduces the labels",
            "a non-zero 3 x 3 minor of [labels | 1] (its constant column m), k = 1: rank(labels) = 2 alone would not")
    alone = not_realizable_certificate(off, 2, *nonsingular_minor(with_ones(off.labels), 3))
    c.invalid("rank-ones-column-alone", alone, ioff, "rank witness has k + 1 or k + 2 rows",
              "a (k+1) x (k+1) minor with the constant column and no span refutation (it excludes nothing)")
    span = solve_decision(insts["offset_span"], 1, bias="output").certificate
    isp = c.instance("offset_span", insts["offset_span"])
    assert "span" in span and span["model"] == {"biases": False, "output_bias": True}
    c.valid("span-output-bias", span, isp, "no 1-unit ReLU network without hidden biases and with output bias",
            "a span refutation on [labels | 1]: the functional vanishes on the constant column")
    where = span["rank"]["outputs"].index(insts["offset_span"].m)
    c.invalid("span-output-bias-functional", tampered(span, lambda x: x["span"]["functional"].__setitem__(where, "1")),
              isp, "must vanish on the constant column", "the functional made non-zero on the constant column")
    unreal = decide(insts["unrealisable"], k=2, output_bias=True).certificate
    assert unreal["model"] == {"biases": False, "output_bias": True}
    iun = c.instance("unrealisable", insts["unrealisable"])
    c.valid("lrat-output-bias", unreal, iun, "no 2-unit ReLU network without hidden biases and with output bias",
            "the lazy engine with c free in every exact LP; the checker refutes with c")
    c.invalid("lrat-output-bias-multiplier", tampered(unreal, lambda x: _first_eq_row(x).__setitem__(3, "1000")), iun,
              "INVALID", "one multiplier of an equation (which carries c) changed")


def _first_eq_row(cert):
    """The first equation row of a lemma of the first case (hinted refutations)."""
    for lemma in cert["cases"][0]["lemmas"]:
        for node in lemma["tree"]:
            for row in node.get("farkas", []):
                if row[0] == "eq":
                    return row
    raise AssertionError("no equation row")  # pragma: no cover


def _equivalence_claims(c: Corpus) -> None:
    """equivalent and not-equivalent: the networks are inline, no instance file."""
    same = functionally_equal(_BASE, _SAME).certificate
    c.valid("equivalent-folded-block", same, None, "VALID: equivalent",
            "a rescaled unit, a flipped unit and a block that sums to a constant: the same function")
    power = Network.from_rows(U=[[1, -2]], V=[[1, 1], [2, -1]], b=[0, 1], activation=Activation.power(2))
    rescaled = Network.from_rows(U=[["-1/2", 1]], V=[[4, -2], [1, 1]], b=[2, 0], activation=Activation.power(2))
    c.valid("equivalent-power2-rescaled", functionally_equal(power, rescaled).certificate, None, "VALID: equivalent",
            "t^2 units, one rescaled by 2 (its output weight by 1/4) and the units permuted")
    moved = Network.from_rows(U=[[3, -1, 1]], V=[[1, 2], [0, 1], [-1, 0]], b=[1, 1, 0], c=["1/2"])
    kink = functionally_equal(_BASE, moved).certificate
    c.valid("not-equivalent-moved-kink", kink, None, "VALID: not-equivalent", "relu(y) against relu(y + 1): an exact witness")
    shifted = Network.from_rows(U=[[3, -1, 1]], V=[[1, 2], [0, 1], [-1, 0]], b=[1, 0, 0], c=["1/3"])
    c.valid("not-equivalent-affine-part", functionally_equal(_BASE, shifted).certificate, None, "VALID: not-equivalent",
            "the same units, another output bias: only the affine part differs")

    def unit_moved(x):
        net = x["networks"][1]
        net["V"][0], net["b"][0] = list(net["V"][2]), net["b"][2]

    c.invalid("equivalent-unit-moved", tampered(same, unit_moved), None, "the canonical form of network 2 differs",
              "a unit of network 2 moved onto another unit's hyperplane")
    c.invalid("equivalent-coefficient-off-by-2-60", tampered(same, lambda x: x["canonical"]["hyperplanes"]["coefficients"][0]
                                                       .__setitem__(0, _bump_tiny(x["canonical"]["hyperplanes"]["coefficients"][0][0]))),
              None, "the canonical form of network 1 differs", "a stated canonical coefficient off by 2^-60")
    c.invalid("equivalent-affine-dropped", tampered(same, lambda x: x["canonical"].__setitem__("linear", [["0", "0"]])), None,
              "the canonical form of network 1 differs", "the affine part -x of the canonical form dropped")
    c.invalid("equivalent-activations-differ", tampered(same, lambda x: x["networks"][1].__setitem__(
        "activation", {"name": "power", "degree": 2})), None, "differ in activation", "network 2 made a t^2 network")
    c.invalid("not-equivalent-value-off-by-2-60", tampered(kink, lambda x: x["values"][0].__setitem__(0, _bump_tiny(x["values"][0][0]))),
              None, "network 1 at the witness is", "the first value at the witness off by 2^-60")
    at = ["0", "-5"]  # relu(y) = relu(y + 1) = 0 there: both networks agree
    agree = [[str(v) for v in net.evaluate_exact([at]).to_fractions()[0]] for net in (_BASE, moved)]
    c.invalid("not-equivalent-witness-agrees", tampered(kink, lambda x: (x.__setitem__("witness", at), x.__setitem__("values", agree))),
              None, "the two values at the witness are equal", "a witness where the two networks agree (values stated truly)")


def _deep_network_claims(c: Corpus) -> None:
    """realizes and residual about a network of depth 3 ("layers"), on an instance it made."""
    from exactrelu.exact.matrix import QMatrix
    from exactrelu.instances import Instance

    net = Network.from_layers([([[1, -1], [2, 1], [0, 3]], [0, 1, -1]), ([[1, 1, -1], [2, 0, 1]], [-1, 0]),
                               ([[3, -2]], ["1/2"])])
    X = QMatrix.from_rows([[i - 3, (5 * i) % 7 - 2] for i in range(10)] + [["1/3", "-1/2"], ["5/2", "7/4"]])
    inst = Instance(X, net.evaluate_exact(X))
    ideep = c.instance("deep", inst)
    r = realizes_certificate(inst, net)
    c.valid("realizes-deep", r, ideep, "VALID: realizes: 12 samples x 1 outputs equal exactly (layers 2-3-2-1",
            "a network of depth 3 written as layers")
    c.invalid("realizes-deep-weight-changed", tampered(r, lambda x: x["layers"][1]["W"][1].__setitem__(0, "3")), ideep,
              "differs from the label", "a weight of the second layer changed")
    c.invalid("realizes-deep-layer-dropped", tampered(r, lambda x: x["layers"].pop(1)), ideep, "INVALID",
              "the middle layer dropped (the widths no longer chain)")
    other = Network.from_layers([([[1, -1], [2, 1], [0, 3]], [0, 1, -1]), ([[1, 1, -1], [2, 0, 1]], [-1, 0]),
                                 ([[3, -2]], ["1/3"])])
    res = residual_certificate(inst, other)
    c.valid("residual-deep", res, ideep, "VALID: residual: 12 samples x 1 outputs, squared error 0.333333",
            "the output bias off by 1/6 at every sample: squared error 12/36")

    _deep_dyadic_claims(c)


def _deep_dyadic_claims(c: Corpus) -> None:
    """The bulk claims about a network with biases in every layer (PyTorch's default nn.Sequential), three hidden
    layers, dyadic weights and float inputs: rows the fast checker reads and decides itself, as JSON and as .npz."""
    from exactrelu.exact.matrix import QMatrix
    from exactrelu.instances import Instance

    layers = [([["1/2", "-3/4"], ["5/8", 1], [-1, "1/4"]], ["1/8", "-1/2", "3/4"]),
              ([["3/4", -1, "1/2"], [1, "1/4", "-5/8"]], ["-1/4", "1/2"]), ([[1, "-3/2"], ["1/2", 1]], ["1/16", 0]),
              ([[2, "-1/4"], [-1, "1/2"]], ["3/8", 0])]
    net = Network.from_layers(layers)
    X = QMatrix.from_rows([[Fraction(i % 5 - 2) + Fraction(i, 8), Fraction((3 * i) % 7, 4) - 1] for i in range(16)])
    inst = Instance(X, net.evaluate_exact(X))
    ij, inpz = c.instance("deep-dyadic", inst), c.raw_instance("deep-dyadic.npz", _npz(inst))
    r = realizes_certificate(inst, net)
    c.valid("realizes-deep-dyadic", r, ij, "VALID: realizes: 16 samples x 2 outputs equal exactly (layers 2-3-2-2-2",
            "biases in every layer, three hidden layers, dyadic rows")
    c.valid("realizes-deep-npz", r, inpz, "VALID: realizes: 16 samples x 2 outputs", "the same claim on the .npz")
    moved = str(Fraction(-1, 2) + Fraction(1, 2**40))
    c.invalid("realizes-deep-first-bias", tampered(r, lambda x: x["layers"][0]["b"].__setitem__(1, moved)), ij,
              "differs from the label", "the first hidden layer's bias moved by 2^-40")
    c.invalid("realizes-deep-rows-swapped", tampered(r, lambda x: x["layers"][1]["W"].reverse()), inpz,
              "differs from the label", "two units of the second hidden layer swapped in W only (not in b)")
    Y = inst.labels.to_fractions()
    for j, out in ((2, 0), (9, 1), (15, 1)):
        Y[j][out] += Fraction(1, 2**20)
    noisy = Instance(X, QMatrix.from_rows(Y))
    inoisy = c.instance("deep-dyadic-noisy", noisy)
    rx = realizes_except_certificate(noisy, net, [(2, 0), (9, 1), (15, 1)])
    c.valid("realizes-except-deep", rx, inoisy, "VALID: realizes-except: all 32 entries (16 samples x 2 outputs) "
            "except 3", "three labels moved by 2^-20, listed")
    c.invalid("realizes-except-deep-missing", tampered(rx, lambda x: x["except"].pop(1)), inoisy, "is not listed",
              "one of the three moved labels not listed")
    other = Network.from_layers([layers[0], layers[1], (layers[2][0], ["1/16", "1/64"]), layers[3]])
    res = residual_certificate(noisy, other)
    c.valid("residual-deep-dyadic", res, inoisy, "VALID: residual: 16 samples x 2 outputs",
            "a third hidden layer's bias moved by 1/64, on the moved labels")
    c.invalid("residual-deep-max-off", tampered(res, lambda x: x.__setitem__("max_abs_error", str(
        Fraction(x["max_abs_error"]) + Fraction(1, 2**60)))), inoisy, "max_abs_error is",
        "the largest error off by 2^-60")

def _box_claims(c: Corpus) -> None:
    """Deep equivalence on a box and within epsilon: the box's rows in the case tree, bounds leaves within epsilon."""
    a = Network.from_layers([([[1, 0], [0, 1]], None), ([[1, -1]], None), ([[1]], None)])  # relu(relu(x1) - relu(x2))
    b = Network.from_layers([([[1, -1]], None), ([[1]], None)])                              # relu(x1 - x2)
    near = Network.from_layers([([[1, -1], [1, 0]], None), ([[1, "1/4"]], None)])          # ... + relu(x1) / 4
    box = {"lower": ["0", "0"], "upper": ["1", "1"]}
    same = functionally_equal(a, b, **box).certificate
    c.valid("deep-equivalent-box", same, None, "VALID: equivalent", "equal on [0, 1]^2 (not on R^2): the box's rows fix "
            "the first layer's phases")
    c.invalid("deep-equivalent-box-widened", tampered(same, lambda x: x["domain"]["lower"].__setitem__(1, "-1")), None,
              "does not prove neuron", "the box widened below 0, where the networks differ: a fix no longer holds")
    c.invalid("deep-equivalent-box-rows-on-Rd", tampered(same, lambda x: x.__setitem__("domain", {"kind": "R^d"})),
              None, "needs a box domain", "the box's tree stated for all of R^2")
    eps = functionally_equal(a, near, epsilon="1/4", **box).certificate
    c.valid("deep-epsilon-equivalent-box", eps, None, "VALID: epsilon-equivalent", "|f - g| = x1 / 4 <= 1/4 on the box")
    c.invalid("deep-epsilon-equivalent-smaller", tampered(eps, lambda x: x["property"].__setitem__("epsilon", "1/5")),
              None, "does not prove output 0", "epsilon lowered to 1/5 < max |f - g| = 1/4")
    far = functionally_equal(a, near, epsilon="1/5", **box).certificate
    c.valid("deep-not-epsilon-equivalent-box", far, None, "VALID: not-epsilon-equivalent",
            "a point of the box where |f - g| > 1/5")
    c.invalid("deep-not-epsilon-equivalent-within", tampered(far, lambda x: x["property"].__setitem__("epsilon", "1/4")),
              None, "differ by at most", "epsilon raised to the difference at the witness")
    apart = functionally_equal(a, near, **box).certificate
    c.invalid("deep-not-equivalent-outside-box", tampered(apart, lambda x: x["domain"].__setitem__(
        "upper", ["0", "1"])), None, "not in the box", "the box shrunk so that the witness lies outside it")


def _relaxed_claims(c: Corpus) -> None:
    """A relaxed leaf (a bound over a whole subtree): the chain of bounds, lines above relu, then a bounds leaf."""
    f = Network.from_layers([([[1], [-1]], None), ([[1, 1]], None), ([[1]], None)])                  # |x|
    g = Network.from_layers([([[1], [-1]], ["1/8", "1/8"]), ([[1, 1]], None), ([[1]], None)])        # |x| + ...
    box = {"lower": ["-1"], "upper": ["1"]}
    cert = functionally_equal(f, g, epsilon="2", **box).certificate
    c.valid("deep-epsilon-relaxed-box", cert, None, "VALID: epsilon-equivalent", "|f - g| <= 1/4 <= 2 on [-1, 1]: "
            "one relaxed leaf, every neuron's phase left open (triangle lines on bounds the chain proves)")

    def chain(x):
        return x["tree"][0]["relaxed"]["chain"]

    tight = ["1/2", "1/3", "1/3"]
    c.invalid("deep-relaxed-bound-tightened", tampered(cert, lambda x: chain(x)[0].__setitem__(slice(2, 5), tight)),
              None, "does not prove neuron 0 <= 1/2", "U of the first neuron lowered to 1/2 (false: z = x reaches 1), "
              "its line kept above relu on the new [l, U]")
    low = ["1/4", "1/4"]
    c.invalid("deep-relaxed-line-below-relu", tampered(cert, lambda x: chain(x)[0].__setitem__(slice(3, 5), low)),
              None, "below relu at l or U", "a line under relu at U = 1 (1/2 < 1)")
    c.invalid("deep-relaxed-used-before-established", tampered(cert, lambda x: chain(x).reverse()), None,
              "has not established before it", "the chain reversed: a neuron's bounds cite a line proved after them")
    _relaxed_point(c, cert)


#: A relaxed leaf on the one-point box x = -1, written by hand (the search does not write lo, hi or ymax rows): every
#: bound of the chain exact (l = U = z_u(-1)), every line touching relu there, the leaf's lower bound tight.
_POINT_CHAIN = [[0, "-1", "-1", "1/2", "1/2", {"lower": [[0, "1"]]}, {"upper": [[0, "1"]]}],
                [2, "-7/8", "-7/8", "1/4", "7/32", {"lo": [[0, "1"]]}, {"hi": [[0, "1"]]}],
                [3, "9/8", "9/8", "1/2", "9/16", {"hi": [[2, "1"]]}, {"lo": [[2, "1"]]}],
                [1, "1", "1", "1", "0", {"pos": [[0, "2"]], "hi": [[0, "1"]]}, {"line": [[0, "2"]]}]]
_POINT_LEAF = {"bounds": [[{"line": [[1, "1"], [0, "2"]], "pos": [[2, "1"]], "relu": [[3, "1"]], "hi": [[0, "1"]]},
                           {"ymax": [[2, "1"], [3, "1"]], "relu": [[1, "1"]], "pos": [[0, "2"]], "hi": [[0, "1"]]}]]}


def _relaxed_point(c: Corpus, cert: dict) -> None:
    """The relaxed leaf's rows one by one (tests/certificates/test_mutants_relaxed.py): a tight valid certificate,
    and Farkas leaves that sum to exactly 0 <= 0, which a checker that wrote a row stronger than it is would accept
    (the false claim f = g at x = -1, where they differ by 1/8)."""
    def point(leaf, prop):
        return tampered(cert, lambda x: x.update(domain={"kind": "box", "lower": ["-1"], "upper": ["-1"]},
                                                 property=prop, tree=[{"relaxed": {"chain": _POINT_CHAIN,
                                                                                   "leaf": leaf}}]))

    c.valid("deep-relaxed-point-tight", point(_POINT_LEAF, {"kind": "epsilon", "epsilon": "1/8", "norm": "max"}),
            None, "VALID: epsilon-equivalent", "|f - g| = 1/8 at the one point x = -1: a chain of exact bounds "
            "citing lo, hi, line and ymax rows, each proof tight")
    equal = {"kind": "equal"}
    for name, farkas, reason in [
            ("lo", {"lo": [[2, "1"]], "hi": [[0, "1"]]}, "the lo row of z = x + 1/8 against the hi row of z = x"),
            ("line", {"line": [[3, "1"]], "relu": [[3, "1"]], "hi": [[0, "1/2"]]}, "the line of z = -x + 1/8 "
             "against its relu row"),
            ("ymax", {"ymax": [[2, "1"]], "pos": [[2, "1"]]}, "the ymax row of a neuron with U = -7/8 < 0 (y <= "
             "relu(U) = 0) against its pos row")]:
        c.invalid(f"deep-relaxed-zero-sum-{name}", point({"farkas": farkas}, equal), None,
                  "a Farkas leaf does not sum to 0 <= negative", f"a Farkas leaf summing to 0 <= 0: {reason}")
    loose = [[0, "-2", "2", "1/2", "1", {"lower": [[0, "1"]]}, {"upper": [[0, "1"]]}]]
    c.invalid("deep-relaxed-hi-negated", tampered(cert, lambda x: x.update(property=equal, tree=[{"relaxed": {
        "chain": loose, "leaf": {"farkas": {"hi": [[0, "-1"]], "upper": [[0, "1"]]}}}}])), None,
              "the hi row of neuron 0 has a negative multiplier", "a hi row (x <= 2) negated: 0 <= 1 from x >= 2 "
              "and x <= 1")


def _top1_claims(c: Corpus) -> None:
    """Top-1 equivalence on a box: top1 leaves (argmax rows, classes that beat or are empty), counterexamples."""
    f = Network.from_layers([([[1, 0], [0, 1]], None), ([[1, 0], [0, 1]], None), ([[1, 0], [0, 1]], None)])
    g = Network.from_layers([([[2, 0], [0, 2]], None), ([[1, 0], [0, 1]], [1, 1])])          # 2 f + 1
    h = Network.from_layers([([[1, 0], [0, 1]], None), ([[1, 0], [0, 1]], ["1/4", 0])])     # f + (1/4, 0)
    tie = Network.from_layers([([[1, 0]], None), ([[1], [1]], None)])                     # (relu(x1), relu(x1))
    lead = Network.from_layers([([[1, 0]], None), ([[1], [1]], [1, 0])])                  # ... + (1, 0)
    box = {"lower": ["0", "0"], "upper": ["1", "1"]}
    same = functionally_equal(f, g, top1=True, **box).certificate
    c.valid("deep-top1-equivalent-box", same, None, "VALID: top1-equivalent", "g = 2 f + 1 has f's argmax everywhere: "
            "each class of the leaf beats the other by the argmax rows")
    c.invalid("deep-top1-equivalent-argmax-halved", tampered(same, lambda x: x["tree"][-1]["top1"]["classes"][0][
        "beats"][0]["argmax"][0].__setitem__(1, "1")), None, "does not prove class 0 at least class 1",
              "an argmax row's multiplier halved: the combination no longer matches g_1 - g_0")
    c.invalid("deep-top1-equivalent-as-equal", tampered(same, lambda x: x.__setitem__("property", {"kind": "equal"})),
              None, "a leaf is", "the top1 tree stated for equality: top1 leaves prove nothing about f - g")
    c.invalid("deep-top1-argmax-outside-leaf", tampered(same, lambda x: x["tree"][0]["bound"].__setitem__(
        "argmax", [[0, "1"]])), None, "outside a class of a top1 leaf", "an argmax row in a fix, where no class is")
    ties = functionally_equal(tie, lead, top1=True, **box).certificate
    c.valid("deep-top1-equivalent-ties", ties, None, "VALID: top1-equivalent", "the first network ties its two "
            "outputs everywhere, the second prefers class 0: their argmax sets meet; proved by the second's regions")
    c.invalid("deep-top1-equivalent-ties-wrong-side", tampered(ties, lambda x: x["tree"][-1]["top1"].__setitem__(
        "net", 0)), None, "does not prove class 1", "the tying network's regions: on its class 1 the other prefers 0")
    high = functionally_equal(f, g, top1=True, lower=["0", "2"], upper=["1", "3"]).certificate
    c.valid("deep-top1-equivalent-empty-class", high, None, "VALID: top1-equivalent", "on [0, 1] x [2, 3] f's class "
            "0 region is empty: a Farkas entry")
    c.invalid("deep-top1-equivalent-empty-class-moved", tampered(high, lambda x: x["domain"].__setitem__(
        "upper", ["3", "3"])), None, "Farkas entry (class 0)", "the box widened to where class 0 is not empty")
    apart = functionally_equal(f, h, top1=True, **box).certificate
    c.valid("deep-not-top1-equivalent-box", apart, None, "VALID: not-top1-equivalent",
            "a point of the box where f prefers class 1 and f + (1/4, 0) class 0")
    agree = functionally_equal(f, h, epsilon="1/5", **box).certificate  # a witness where the argmax sets may meet
    agree["witness"], agree["property"] = ["1", "0"], {"kind": "top1"}
    agree["values"] = [["1", "0"], ["5/4", "0"]]
    c.invalid("deep-not-top1-equivalent-common-class", agree, None, "have a class in common",
              "both networks' largest output at the witness is class 0")


def _deep_equivalence_claims(c: Corpus) -> None:
    """equivalent and not-equivalent for networks of any depth: the domain R^d, a case tree over neuron phases."""
    base = Network.from_layers([([[1, -1], [2, 1], [0, 3]], [0, 1, -1]), ([[1, 1, -1], [2, 0, 1]], [-1, 0]),
                                ([[3, -2]], ["1/2"])])
    # the same function: hidden layers permuted and scaled, a neuron split in two, a dead one added
    same = Network.from_layers([([[0, 6], [2, -2], [2, 1], [2, 1], [0, 0]], [-2, 0, 1, 1, -1]),
                                ([[1, 2, 0, 0, 0], ["-1/2", "1/2", "1/2", "1/2", 9]], [0, -1]),
                                ([[-1, 3]], ["1/2"])])
    sym = functionally_equal(base, same).certificate
    c.valid("deep-equivalent-symmetric", sym, None, "VALID: equivalent",
            "3 layers; permuted, rescaled, split and dead neurons: the reduced difference is zero (one leaf)")
    first = ([[1, 0], [1, 0], [0, 1]], [0, 1, 0])  # relu(x1), relu(x1 + 1), relu(x2)
    a = Network.from_layers([first, ([[0, 1, 0], [1, 0, 0], [0, 0, 1]], None), ([[3, -3, 1]], [0])])
    b = Network.from_layers([first, ([[-1, 1, 0], [0, 0, 1]], None), ([[3, 1]], [0])])
    tree = functionally_equal(a, b).certificate
    c.valid("deep-equivalent-case-tree", tree, None, "VALID: equivalent",
            "relu(relu(x + 1) - relu(x)) = relu(x + 1) - relu(x): splits, a fix, a Farkas leaf and equal leaves")
    moved = Network.from_layers([([[1, -1], [2, 1], [0, 3]], [0, 1, -1]), ([[1, 1, -1], [2, 0, 1]], [-1, 1]),
                                 ([[3, -2]], ["1/2"])])
    witness = functionally_equal(base, moved).certificate
    c.valid("deep-not-equivalent-bias", witness, None, "VALID: not-equivalent", "one hidden bias of layer 2 changed")
    c.invalid("deep-equivalent-weight-changed", tampered(sym, lambda x: x["networks"][1]["layers"][2]["W"][0]
                                                         .__setitem__(0, "-3")), None, "do not sum",
              "an output weight of network 2 changed: its one equal leaf no longer sums to the difference")
    fix = next(i for i, node in enumerate(tree["tree"]) if "fix" in node)
    c.invalid("deep-equivalent-fix-flipped", tampered(tree, lambda x: x["tree"][fix]["fix"].__setitem__(1, True)), None,
              "does not prove neuron", "a fixed neuron's phase flipped")
    farkas = next(i for i, node in enumerate(tree["tree"]) if "farkas" in node)
    c.invalid("deep-equivalent-farkas-negative", tampered(tree, lambda x: x["tree"][farkas]["farkas"]["phase"][0]
                                                          .__setitem__(1, "-1")), None, "negative multiplier",
              "a Farkas multiplier of an inequality made negative")
    c.invalid("deep-equivalent-leaf-dropped", tampered(tree, lambda x: x["tree"].pop()), None, "incomplete",
              "the last leaf of the case tree dropped")
    c.invalid("deep-equivalent-box-domain", tampered(tree, lambda x: x.__setitem__(
        "domain", {"kind": "box", "lower": ["0", "1"], "upper": ["1", "0"]})), None, "the box is empty",
              "an empty box (a lower bound above its upper bound)")
    sys.path.insert(0, str(HERE.parents[1] / "benchmarks"))
    from bench_deep_equiv import gadgets

    lem = functionally_equal(*gadgets((3, 4, 4, 1), 2, seed=1)).certificate
    c.valid("deep-equivalent-lemmas", lem, None, "VALID: equivalent",
            "two independent parts of the difference, each proved by a lemma; the main tree adds them")
    c.invalid("deep-equivalent-lemma-form-changed", tampered(lem, lambda x: x["lemmas"][0]["forms"][0]["terms"][0]
                                                            .__setitem__(1, "7")), None, "INVALID",
              "a lemma's stated form changed: its tree no longer proves it")
    c.invalid("deep-equivalent-lemma-dropped", tampered(lem, lambda x: x["lemmas"].pop()), None, "0 <= index < 1",
              "a lemma dropped while the main tree still cites it")
    c.invalid("deep-not-equivalent-value-off-by-2-60", tampered(witness, lambda x: x["values"][1].__setitem__(
        0, _bump_tiny(x["values"][1][0]))), None, "network 2 at the witness is", "the second value off by 2^-60")
_HIDDEN = Network.from_rows(U=[[2, -1]], V=[[1, 1], [1, -2]], b=["1/2", 0], c=[3])


def _transcript_claims(c: Corpus) -> None:
    """transcript: an extraction's queries (a line, axis batches, fresh points) with its network and windows."""
    from exactrelu.errors import NotRealizable
    from exactrelu.extract import NetworkOracle, extract

    good = extract(NetworkOracle(_HIDDEN), fresh=4).certificate
    c.valid("transcript", good, None, "VALID: transcript",
            "every query of an extraction (line, axis batches, points), the network and 2 windows")
    try:
        extract(NetworkOracle(_HIDDEN), k=1)
    except NotRealizable as exc:
        c.valid("transcript-windows-only", exc.certificate, None, "has at least 2 units",
                "more kinks than k = 1: the windows alone, no network")
    axes = next(i for i, b in enumerate(good["queries"]) if "axes" in b)
    c.invalid("transcript-answer-off-by-2-60", tampered(good, lambda x: x["queries"][axes]["answers"][0].__setitem__(
        0, _bump_tiny(x["queries"][axes]["answers"][0][0]))), None, f"block {axes} (axes), axis 0, output 0",
        "one probe's answer off by 2^-60")
    c.invalid("transcript-weight-changed", tampered(good, lambda x: x["network"]["V"][0].__setitem__(
        1, _bump(x["network"]["V"][0][1]))), None, "the network's value differs from the answer", "one weight of V changed")
    c.invalid("transcript-window-repeated", tampered(good, lambda x: x["windows"]["points"].append(
        x["windows"]["points"][-1])), None, "overlaps the window before it", "a window counted twice (3 units claimed)")

    def collinear(x):  # the first three points of the line, all far left of the kinks: one affine piece
        ts = [Fraction(t) for t in x["queries"][0]["t"]]
        x["windows"]["points"][0] = sorted(range(3), key=ts.__getitem__)

    c.invalid("transcript-window-collinear", tampered(good, collinear), None, "the three answers are collinear",
              "a window inside one affine piece")
    c.invalid("transcript-step-zero", tampered(good, lambda x: x["queries"][axes]["axes"].__setitem__("step", "0")), None,
              "must be non-zero", "an axis batch with step 0")
    c.invalid("transcript-nothing-stated", tampered(good, lambda x: (x.pop("network"), x.pop("windows"))), None,
              "states a network, windows, or both", "neither a network nor windows")
    c.invalid("transcript-power", tampered(good, lambda x: x["network"].__setitem__(
        "activation", {"name": "power", "degree": 2})), None, "about ReLU networks", "the network made a t^2 network")


def _bump_tiny(text) -> str:
    """A rational string plus 2^-60."""
    from fractions import Fraction

    f = Fraction(text) + Fraction(1, 2**60)
    return f"{f.numerator}/{f.denominator}"


def _unreadable(c: Corpus, insts: dict) -> None:
    """Files the checker cannot read: exit 2, one line."""
    ip = "instances/plain.json"
    good = realizes_certificate(insts["plain"], insts["plain"].planted)
    text = json.dumps(_plain(good))
    c.invalid("truncated", text[: len(text) // 2].encode(), ip, "error: ", "the file cut in half", code=2)
    c.invalid("not-utf8", b"\xff\xfe" + text.encode("utf-16-le"), ip, "not valid JSON", "UTF-16, not UTF-8", code=2)
    c.invalid("duplicate-key", text.replace('"claim": "realizes"', '"claim": "lp-feasible", "claim": "realizes"').encode(),
              ip, "appears twice", "a key repeated: two readers could see two claims", code=2)
    c.invalid("huge-exponent", tampered(good, lambda x: x["V"][0].__setitem__(0, "1e999999999")), ip,
              "limit digits", "a 13-byte number with a billion digits", code=2)
    floats = c.raw_instance("floats.json", json.dumps({"format": "exactrelu.instance", "version": 1,
                                                       "inputs": [[0.1]], "labels": [[1]]}).encode())
    c.invalid("instance-json-floats", good, floats, "rational strings or JSON integers",
              "an instance with a JSON float (0.1 is not 1/10)", code=2)


def _npz(inst) -> bytes:
    import io

    buf = io.BytesIO()
    np.savez(buf, inputs=np.array(inst.inputs.to_fractions(), dtype=float),
             labels=np.array(inst.labels.to_fractions(), dtype=float))
    return buf.getvalue()


def _bump(text) -> str:
    """A rational string plus one (a different value of the same kind)."""
    from fractions import Fraction

    f = Fraction(text) + 1
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def _first_leaf(cert):
    case = cert["cases"][0]
    trees = [case.get("tree", [])] + [lem["tree"] for lem in case.get("lemmas", [])]
    return next(n for tree in trees for n in tree if "farkas" in n)


def _first_half_row(cert):
    """The first ``eq+`` / ``eq-`` Farkas row of a hinted certificate (plain lemmas, then templates)."""
    for case in cert["cases"]:
        lemmas = case.get("lemmas", []) + [t for tpl in case.get("templates", []) for t in tpl["lemmas"]]
        for lemma in lemmas:
            for row in lemma["tree"][0].get("farkas", []):
                if row[0] in ("eq+", "eq-"):
                    return row
    raise AssertionError("no half row in the certificate")


def _drop_hint(steps):
    step = next(s for s in steps if s[:1] != ["d"] and len(s) - s.index(0) > 2)
    step.pop()


def _false_separator(steps):
    step = next(s for s in steps if s[:1] != ["d"] and s[0] != 0)
    step[step.index(0)] = False


def _swap_template_instance(case):
    inst = case["templates"][0]["instances"][0]
    inst[0] = [j + 1 for j in inst[0]]


def build(root: Path) -> Corpus:
    c = Corpus(root)
    insts = build_instances()
    assert set(insts) >= set(INSTANCES)
    _network_claims(c, insts)
    _lp_claims(c)
    _case_claims(c, insts)
    _rank_claims(c, insts)
    _output_bias_claims(c, insts)
    _equivalence_claims(c)
    _deep_equivalence_claims(c)
    _box_claims(c)
    _relaxed_claims(c)
    _top1_claims(c)
    _deep_network_claims(c)
    _transcript_claims(c)
    _unreadable(c, insts)
    c.finish()
    return c


def _same(a: Path, b: Path) -> list[str]:
    cmp = filecmp.dircmp(a, b, ignore=["__pycache__"])
    out = [f"{p}: differs" for p in cmp.diff_files] + [f"{p}: only in one" for p in cmp.left_only + cmp.right_only]
    for sub, d in cmp.subdirs.items():
        out += [f"{sub}/{x}" for x in _same(a / sub, b / sub)]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="regenerate into a temporary folder and compare")
    args = ap.parse_args(argv)
    if not args.check:
        for sub in ("instances", "valid", "invalid"):
            shutil.rmtree(HERE / sub, ignore_errors=True)
        c = build(HERE)
        print(f"{len(c.rows)} certificates written under {HERE}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp))
        diff = [d for sub in ("instances", "valid", "invalid") for d in _same(HERE / sub, Path(tmp) / sub)]
        diff += [name for name in ("MANIFEST.json", "README.md") if (HERE / name).read_bytes() != (Path(tmp) / name).read_bytes()]
    print("\n".join(diff) if diff else "the corpus is up to date")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
