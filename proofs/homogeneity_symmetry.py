"""Claim: Positive homogeneity and permutation symmetry: U f(V x) = (U D^-c P^T) f(P D V x) for D > 0
diagonal, P a permutation; equal canonical forms; sign flips are not symmetries.

Source: docs/design.md (canonical form); Bakshi-Jayaram-Woodruff, COLT 2019.

The derivation and the checks are in exactrelu/theorems/homogeneity_symmetry.py (installed with the package, so
`exactrelu prove homogeneity_symmetry` runs the same proof). Run alone:

    python proofs/homogeneity_symmetry.py [--out DIR] [--no-write]

which prints the outcome and writes the record to proofs/results/homogeneity_symmetry.json (exit 0 if proved).
"""

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.theorems.homogeneity_symmetry import CLAIM, SOURCE, prove  # noqa: E402

__all__ = ["CLAIM", "SOURCE", "prove"]

if __name__ == "__main__":
    from exactrelu.theorems.registry import script_main

    sys.exit(script_main(__file__, prove, CLAIM, SOURCE))
