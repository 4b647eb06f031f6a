"""Claim: ReLU Hermite coefficients (orthonormal basis): sigma_0 = 1/sqrt(2 pi), sigma_1 = 1/2, sigma_k
= (-1)^((k-2)/2) (k-3)!!/sqrt(2 pi k!) for even k >= 2, 0 for odd k >= 3.

Source: Awasthi-Tang-Vijayaraghavan, NeurIPS 2021, sec. 2.

The derivation and the checks are in exactrelu/theorems/relu_hermite.py (installed with the package, so
`exactrelu prove relu_hermite` runs the same proof). Run alone:

    python proofs/relu_hermite.py [--out DIR] [--no-write]

which prints the outcome and writes the record to proofs/results/relu_hermite.json (exit 0 if proved).
"""

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.theorems.relu_hermite import CLAIM, SOURCE, prove  # noqa: E402

__all__ = ["CLAIM", "SOURCE", "prove"]

if __name__ == "__main__":
    from exactrelu.theorems.registry import script_main

    sys.exit(script_main(__file__, prove, CLAIM, SOURCE))
