"""Claim: Moment-tensor constants E[f(z) He_t(z)], t = 0..4, for f = relu, t^2, t^3 (relu: 1/sqrt(2pi),
1/2, 1/sqrt(2pi), 0, -1/sqrt(2pi); t^2 has c_4 = 0).

Source: Hermite facts of the moment-tensor proposer (docs/proposers.md); Awasthi-Tang-Vijayaraghavan 2021
(seeds/002).

The derivation and the checks are in exactrelu/theorems/moment_constants.py (installed with the package, so
`exactrelu prove moment_constants` runs the same proof). Run alone:

    python proofs/moment_constants.py [--out DIR] [--no-write]

which prints the outcome and writes the record to proofs/results/moment_constants.json (exit 0 if proved).
"""

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.theorems.moment_constants import CLAIM, SOURCE, prove  # noqa: E402

__all__ = ["CLAIM", "SOURCE", "prove"]

if __name__ == "__main__":
    from exactrelu.theorems.registry import script_main

    sys.exit(script_main(__file__, prove, CLAIM, SOURCE))
