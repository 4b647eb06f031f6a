"""Claim: Sign ambiguity with biases: relu(t) - relu(-t) = t, so flipping units S of a biased network
keeps the function iff sum_S a_i (w_i, b_i) = 0; two different networks compute the same function.

Source: Awasthi-Tang-Vijayaraghavan, NeurIPS 2021, Thm 3.4 / Claim 4.8.

The derivation and the checks are in exactrelu/theorems/sign_ambiguity.py (installed with the package, so
`exactrelu prove sign_ambiguity` runs the same proof). Run alone:

    python proofs/sign_ambiguity.py [--out DIR] [--no-write]

which prints the outcome and writes the record to proofs/results/sign_ambiguity.json (exit 0 if proved).
"""

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.theorems.sign_ambiguity import CLAIM, SOURCE, prove  # noqa: E402

__all__ = ["CLAIM", "SOURCE", "prove"]

if __name__ == "__main__":
    from exactrelu.theorems.registry import script_main

    sys.exit(script_main(__file__, prove, CLAIM, SOURCE))
