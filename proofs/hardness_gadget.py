"""Claim: the NAE-3SAT -> two-unit ReLU reduction of exactrelu.hardness is correct (k = 2, m = 1).

Gadget lemma: relu(a) + relu(b) = 1 = relu(-a) + relu(-b) forces {a, b} = {1, -1}; with the output
weights unknown (u in {1, 0, -1}^2 after positive rescaling, units permuted) every u but (1, 1)
is refuted. Clause lemma: the realisations of a single-clause instance are exactly V = [s, -s]
with s an NAE solution. CNF -> NAE: truth tables of the clause translation.

Source: Bakshi, Jayaram, Woodruff (COLT 2019), NP-hardness when rank(A) < k.

Every case is an exact LP: closed cases carry Farkas vectors checked by the independent
checker's rule, open cases have equations of full column rank (a unique exact solution).
The code is exactrelu/hardness/lemmas.py; the claim is exactrelu/theorems/hardness_gadget.py
(installed with the package, so `exactrelu prove hardness_gadget` runs the same proof). Run:

    python proofs/hardness_gadget.py [--all-clauses] [--out DIR] [--no-write]

It prints one line per lemma and writes the record to proofs/results/hardness_gadget.json
(exit 0 if every lemma is proved).
"""

import argparse
import json
import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.theorems.hardness_gadget import CLAIM, SOURCE, prove  # noqa: E402

__all__ = ["CLAIM", "SOURCE", "prove"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--all-clauses", action="store_true", help="all 216 clauses on 3 variables, not only the 5 shapes")
    p.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"))
    p.add_argument("--no-write", action="store_true")
    args = p.parse_args(argv)
    record = prove(args.all_clauses)
    for part in record["parts"]:
        extra = {k: v for k, v in part.items() if k in ("solutions", "closed_leaves", "refuted")}
        if "cases" in part:
            extra = {"cases": len(part["cases"]), "all proved": all(c["proved"] for c in part["cases"])}
        print(f"{part['lemma']:<18} {'PROVED' if part['proved'] else 'FAILED'}  {json.dumps(extra)}")
    if not args.no_write:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for part in record["parts"]:
            part.pop("tree", None) if part["lemma"] != "gadget" else None
        (out / "hardness_gadget.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        print(f"record written to {out / 'hardness_gadget.json'}")
    return 0 if record["proved"] else 1


if __name__ == "__main__":
    sys.exit(main())
