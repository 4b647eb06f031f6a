"""The NAE-3SAT -> two-unit ReLU reduction is correct (k = 2, m = 1), by exact case analysis.

Claim. Gadget lemma: relu(a) + relu(b) = 1 = relu(-a) + relu(-b) forces {a, b} = {1, -1}; with
the output weights unknown (u in {1, 0, -1}^2 after positive rescaling, units permuted) every u
but (1, 1) is refuted. Clause lemma: the realizations of a single-clause instance are exactly
V = [s, -s] with s a not-all-equal solution of the clause. CNF -> NAE: the clause translation
preserves satisfiability (truth tables).

Source: Bakshi, Jayaram, Woodruff (COLT 2019), NP-hardness of exact learning when rank(A) < k;
the lemmas and their case trees are :mod:`exactrelu.hardness.lemmas`.

Proof. Every case is an exact LP: closed cases carry Farkas vectors checked by the independent
checker's rule, open cases have equations of full column rank (a unique exact solution). The
code lives in the package so that ``exactrelu prove --all`` runs the same claims from an
installed wheel as from a checkout; ``proofs/hardness_gadget.py`` is the script that prints
each lemma and writes the record.

>>> rec = prove()
>>> rec["passed"], [part["lemma"] for part in rec["parts"]][:2]
(True, ['gadget', 'gadget-unknown-u'])
"""

from __future__ import annotations

from ..hardness.lemmas import prove_all

__all__ = ["CLAIM", "SOURCE", "prove"]

CLAIM = ("NAE-3SAT <-> two-unit ReLU reduction (k = 2, m = 1): gadget lemma with U given and unknown, "
         "clause lemma, CNF -> NAE translation")
SOURCE = "Bakshi, Jayaram, Woodruff, COLT 2019 (NP-hardness when rank(A) < k); exactrelu/hardness/lemmas.py"


def prove(all_clauses: bool = False) -> dict:
    """Every lemma, by exact case analysis; ``passed`` is True when all hold.

    Parameters
    ----------
    all_clauses : check the clause lemma on all 216 clauses over 3 variables, not only the 5 shapes.
    """
    record = prove_all(all_clauses)
    record["passed"] = record["proved"]
    return record
