"""Claim: Uniqueness lemma with an output bias: rank([A; 1]) <= k + 1; for U of full column rank, rowspan([A; 1]) =
rowspan([W; 1]) and, for Z inactive for unit i, {y : y_Z = 0} = span(W_i) iff rank [W_{-i,Z}; 1_Z] = k.

Source: exactrelu (issue 33), extending Bakshi-Jayaram-Woodruff, COLT 2019.

The derivation and the checks are in exactrelu/theorems/offset_uniqueness.py (installed with the package, so
`exactrelu prove offset_uniqueness` runs the same proof). Run alone:

    python proofs/offset_uniqueness.py [--out DIR] [--no-write]

which prints the outcome and writes the record to proofs/results/offset_uniqueness.json (exit 0 if proved).
"""

import sys
from pathlib import Path

if __name__ == "__main__":  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.theorems.offset_uniqueness import CLAIM, SOURCE, prove  # noqa: E402

__all__ = ["CLAIM", "SOURCE", "prove"]

if __name__ == "__main__":
    from exactrelu.theorems.registry import script_main

    sys.exit(script_main(__file__, prove, CLAIM, SOURCE))
