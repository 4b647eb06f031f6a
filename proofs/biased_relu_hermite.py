"""Claim: Biased ReLU: E[relu(z+b) He_t(z)] = phi(b) He_{t-2}(-b) for t >= 2 (t=0: phi(b)+b Phi(b),
t=1: Phi(b)); the 4th-order term vanishes exactly at b = +-1.

Source: Awasthi-Tang-Vijayaraghavan, NeurIPS 2021, Lemma 3.5.

The derivation and the checks are in exactrelu/theorems/biased_relu_hermite.py (installed with the package, so
`exactrelu prove biased_relu_hermite` runs the same proof). Run alone:

    python proofs/biased_relu_hermite.py [--out DIR] [--no-write]

which prints the outcome and writes the record to proofs/results/biased_relu_hermite.json (exit 0 if proved).
"""

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.theorems.biased_relu_hermite import CLAIM, SOURCE, prove  # noqa: E402

__all__ = ["CLAIM", "SOURCE", "prove"]

if __name__ == "__main__":
    from exactrelu.theorems.registry import script_main

    sys.exit(script_main(__file__, prove, CLAIM, SOURCE))
