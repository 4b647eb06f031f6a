"""Claim: Sign identifiability: orders >= 2 are blind to unit flips; a flip set S matches f_0 and f_1 iff
sum_S a_i (w_i, b_i) = 0 iff same function; in full rank exactly one sign choice survives.

Source: Awasthi-Tang-Vijayaraghavan, NeurIPS 2021, Thm 3.4 / Thm 4.1 (shared/seeds/002).

The derivation and the checks are in exactrelu/theorems/sign_identifiability.py (installed with the package, so
`exactrelu prove sign_identifiability` runs the same proof). Run alone:

    python proofs/sign_identifiability.py [--out DIR] [--no-write]

which prints the outcome and writes the record to proofs/results/sign_identifiability.json (exit 0 if proved).
"""

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.theorems.sign_identifiability import CLAIM, SOURCE, prove  # noqa: E402

__all__ = ["CLAIM", "SOURCE", "prove"]

if __name__ == "__main__":
    from exactrelu.theorems.registry import script_main

    sys.exit(script_main(__file__, prove, CLAIM, SOURCE))
