"""Claim: Uniqueness lemma, exact form: for Z inactive for unit i, {y in rowspan(A) : y_Z = 0} =
span(W_i) iff rank W_{-i,Z} = k-1 (rank U = k); k-1 inactive samples do not always suffice.

Source: Bakshi-Jayaram-Woodruff, COLT 2019 (exact recovery for rank(A) = k).

The derivation and the checks are in exactrelu/theorems/uniqueness_lemma.py (installed with the package, so
`exactrelu prove uniqueness_lemma` runs the same proof). Run alone:

    python proofs/uniqueness_lemma.py [--out DIR] [--no-write]

which prints the outcome and writes the record to proofs/results/uniqueness_lemma.json (exit 0 if proved).
"""

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.theorems.uniqueness_lemma import CLAIM, SOURCE, prove  # noqa: E402

__all__ = ["CLAIM", "SOURCE", "prove"]

if __name__ == "__main__":
    from exactrelu.theorems.registry import script_main

    sys.exit(script_main(__file__, prove, CLAIM, SOURCE))
