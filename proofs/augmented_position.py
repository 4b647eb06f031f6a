"""Claim: augmented general position: f(Vx+b) = f([V b][x;1]); for inputs with a density every d+1 augmented
inputs are independent almost surely, so the uniqueness lemma and the row-span route apply to [V b]; linear
general position does not suffice.

Source: Bakshi-Jayaram-Woodruff, COLT 2019 (shared/seeds/000); shared/notes/exact-recovery-math.md; issue 10.

The derivation and the checks are in exactrelu/theorems/augmented_position.py (installed with the package, so
`exactrelu prove augmented_position` runs the same proof). Run alone:

    python proofs/augmented_position.py [--out DIR] [--no-write]

which prints the outcome and writes the record to proofs/results/augmented_position.json (exit 0 if proved).
"""

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.theorems.augmented_position import CLAIM, SOURCE, prove  # noqa: E402

__all__ = ["CLAIM", "SOURCE", "prove"]

if __name__ == "__main__":
    from exactrelu.theorems.registry import script_main

    sys.exit(script_main(__file__, prove, CLAIM, SOURCE))
