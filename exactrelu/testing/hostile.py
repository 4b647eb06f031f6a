"""The hostile certificates of issue 26, as files: small inputs whose cost once had nothing to do with their size.

Each builder writes its files into a directory and returns a :class:`Hostile` record: the files to give
the checker (``python -m exactrelu.certificates.checker CERT [INSTANCE]``), the exit code the checker must
give (2: refused by a limit, 1: a false claim rejected) and what the file did before. The tests run them
in-process (tests/certificates/test_hostile_work.py) and ``benchmarks/bench_hostile.py`` runs them in
child processes with a time and memory limit.

>>> import tempfile
>>> case = lemma_citations(tempfile.mkdtemp())
>>> case.expect, len(case.args)
(1, 2)
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Hostile", "residual_power", "distinct_denominators", "given_u_large_k", "lemma_citations",
           "lrat_long_clause", "residual_huge_mismatch", "equivalence_power", "BUILDERS"]


@dataclass(frozen=True)
class Hostile:
    """One hostile input: ``args`` for the checker (certificate, then instance if any), the exit code expected."""

    name: str
    args: list[str]
    expect: int
    before: str


def _sha(inputs: list[list[str]], labels: list[list[str]]) -> str:
    """The instance hash of DESIGN.md ("Certificates") for rows of canonical rational strings."""
    text = f"exactrelu.instance.v1\n{len(inputs)} {len(inputs[0])} {len(labels[0])}\n"
    text += "".join(" ".join(x) + " | " + " ".join(y) + "\n" for x, y in zip(inputs, labels))
    return hashlib.sha256(text.encode()).hexdigest()


def _write(directory, name: str, obj) -> str:
    from ..io.files import write_text_atomic

    return str(write_text_atomic(Path(directory) / name, json.dumps(obj, separators=(",", ":"))))


def _instance(directory, name: str, inputs, labels) -> tuple[str, str]:
    obj = {"format": "exactrelu.instance", "version": 1, "inputs": inputs, "labels": labels}
    return _write(directory, name, obj), _sha(inputs, labels)


def _cert(claim: str, sha: str, **fields) -> dict:
    return {"format": "exactrelu.certificate", "version": 1, "claim": claim, "instance_sha256": sha, **fields}


def residual_power(directory: str | os.PathLike, n: int = 1000) -> Hostile:
    """A ~300-byte ``residual`` with activation power:100 and V = "1e4299" on n samples: 430,000-digit powers."""
    inputs, labels = [[str(1 + j % 4)] for j in range(n)], [["1"]] * n
    inst, sha = _instance(directory, "power_inst.json", inputs, labels)
    cert = _cert("residual", sha, activation={"name": "power", "degree": 100}, U=[["1"]], V=[["1e4299"]],
                 squared_error="0")
    return Hostile("residual-power100-1e4299", [_write(directory, "power_cert.json", cert), inst], 2,
                   "202 s, then a traceback (1,000-sample .npz)")


def distinct_denominators(directory: str | os.PathLike, k: int = 30, n: int = 1000) -> Hostile:
    """A ``residual`` of k = 30 units whose V entries have distinct 4,300-digit denominators: an output row's common
    denominator (their lcm) has 129,000 digits, and every sample is computed over it."""
    inputs, labels = [[str(1 + j % 5)] for j in range(n)], [["1"]] * n
    inst, sha = _instance(directory, "dens_inst.json", inputs, labels)
    V = [[f"1/{10**4299 + 2 * i + 1}"] for i in range(k)]
    cert = _cert("residual", sha, activation={"name": "relu"}, U=[["1"] * k], V=V, squared_error="0")
    return Hostile("distinct-4300-digit-denominators", [_write(directory, "dens_cert.json", cert), inst], 2, "> 900 s")


def given_u_large_k(directory: str | os.PathLike, k: int = 100_000) -> Hostile:
    """A given-U refutation whose k (10^5) comes from the certificate alone: O(k) per Farkas row."""
    inputs, labels = [["0"], ["1"]], [["1"], ["2"]]
    inst, sha = _instance(directory, "k_inst.json", inputs, labels)
    rows = [["eq", j % 2, 0, "-1"] for j in range(2000)]
    cert = _cert("not-realizable", sha, activation={"name": "relu"}, k=k, output_weights="given",
                 cases=[{"U": [["0"] * k], "tree": [{"farkas": rows}]}])
    return Hostile("given-U-refutation-k-1e5", [_write(directory, "k_cert.json", cert), inst], 2, "> 150 s (690 KB)")


def _lemma_instance(directory, n: int, k: int):
    """n samples, d = m = 1; sample 0 is x = 0 with label 1, so "all units of sample 0 decided" is refuted."""
    inputs, labels = [[str(j)] for j in range(n)], [["1"]] + [["0"]] * (n - 1)
    return _instance(directory, "lemma_inst.json", inputs, labels)


def _assume(count: int, n: int, k: int) -> list:
    return [[p // k, p % k, True] for p in range(count)][: n * k]


def _tree(keys: list, leaves: int, leaf) -> list:
    """A preorder tree of exactly ``leaves`` leaves, splitting on keys[depth] at each depth (distinct on every path)."""
    if leaves == 1:
        return [leaf]
    left = leaves // 2
    return [{"split": keys[0]}] + _tree(keys[1:], left, leaf) + _tree(keys[1:], leaves - left, leaf)


def lemma_citations(directory: str | os.PathLike, cites: int = 19_601, assumptions: int = 20_001) -> Hostile:
    """Lemma 0 (20,001 assumptions, proved by one Farkas leaf), then lemma 1 with the same assumptions and a tree
    of 19,601 leaves each citing lemma 0; the case's tree cites lemma 1, whose assumptions do not hold at its root
    (a false claim, rejected after the lemmas). Each citation once compared all 20,001 assumptions."""
    k = 100
    n = assumptions // k + 2
    inst, sha = _lemma_instance(directory, n, k)
    assume = _assume(assumptions, n, k)
    free = [[p // k, p % k] for p in range(assumptions, n * k)]
    lemma0 = {"assume": assume, "tree": [{"farkas": [["eq", 0, 0, "-1"]]}]}
    lemma1 = {"assume": assume, "tree": _tree(free, cites, {"lemma": 0})}
    case = {"U": [["1"] * k], "lemmas": [lemma0, lemma1], "tree": [{"lemma": 1}]}
    cert = _cert("not-realizable", sha, activation={"name": "relu"}, k=k, output_weights="given", cases=[case])
    return Hostile("lemma-citations-19601x20001", [_write(directory, "lemma_cert.json", cert), inst], 1, "47 s")


def lrat_long_clause(directory: str | os.PathLike, hints: int = 3_000, assumptions: int = 20_001) -> Hostile:
    """A hinted case whose one lemma is a clause of 20,001 literals, then 3,000 hints naming it: 6 x 10^7 literal
    visits announced by a 20 KB proof (over the propagation budget, refused before replaying)."""
    k = 100
    n = assumptions // k + 2
    inst, sha = _lemma_instance(directory, n, k)
    lemma = {"assume": _assume(assumptions, n, k), "tree": [{"farkas": [["eq", 0, 0, "-1"]]}]}
    steps = [[0] + [1] * hints]
    case = {"U": [["1"] * k], "lemmas": [lemma], "lrat": steps}
    cert = _cert("not-realizable", sha, activation={"name": "relu"}, k=k, output_weights="given", cases=[case])
    return Hostile("lrat-3000-hints-of-a-20001-literal-clause", [_write(directory, "lrat_cert.json", cert), inst], 2,
                   "no bound on hints x clause length before")


def residual_huge_mismatch(directory: str | os.PathLike) -> Hostile:
    """A ``residual`` whose stated error is wrong and whose exact error has about 12,000 digits: the refusal
    once printed it with str() (a traceback past Python's 4,300-digit limit)."""
    inputs, labels = [["1"], ["2"]], [["0"], ["0"]]
    inst, sha = _instance(directory, "mismatch_inst.json", inputs, labels)
    cert = _cert("residual", sha, activation={"name": "power", "degree": 3}, U=[["1"]], V=[["1e2000"]],
                 squared_error="1", max_abs_error="1")
    return Hostile("residual-12000-digit-error", [_write(directory, "mismatch_cert.json", cert), inst], 1,
                   "a traceback (exit 1, as if INVALID)")


def equivalence_power(directory: str | os.PathLike, k: int = 200) -> Hostile:
    """An ``equivalent`` claim between two networks of k units with power:100 and V entries "1e4298" to "9e4298":
    the canonical forms scale each unit by about (10^4298)^100."""
    net = {"activation": {"name": "power", "degree": 100}, "U": [["1"] * k],
           "V": [[f"{i % 9 + 1}e4298"] for i in range(k)]}
    cert = {"format": "exactrelu.certificate", "version": 1, "claim": "equivalent", "networks": [net, net],
            "canonical": {}}
    return Hostile("equivalent-power100-1e4299", [_write(directory, "equiv_cert.json", cert)], 2,
                   "23 s for k = 200, linear in k")


BUILDERS = [residual_power, distinct_denominators, given_u_large_k, lemma_citations, lrat_long_clause,
            residual_huge_mismatch, equivalence_power]
