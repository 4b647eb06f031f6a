"""The large-|b| stage's trigger (issue 34): the red team's instance over many seeds, the paper's rule alone beside
the rule with the backward search over the decomposed units (exactrelu/propose/hermite/large_bias.py).

    python benchmarks/bench_hermite_large_bias.py [--seeds 16] [--n 200000]

Instance: ``instances.hermite.planted_biased(d=10, k=4, n, seed, special=(6, -6), bias=1)``: unit rows, biases +6, -6
and two in [-1, 1] (quarters), output weights in +-{1, 2, 3}, N(0, I) inputs. ``HermiteProposer(4, random_state=0)``
on each seed twice; a row per seed: the relative L2 error ``||prediction - labels|| / ||labels||``, the error against
the best constant predictor (the learner's self-check: 1 or above warns), the unit count and the decomposition's
``residual_`` (which does not tell a failure from a success), for the rule alone and with the search.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

import exactrelu.propose.hermite.proposer as hermite  # noqa: E402
from exactrelu.instances.hermite import planted_biased  # noqa: E402
from exactrelu.propose.selfcheck import error_against_constant  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=16)
    ap.add_argument("--n", type=int, default=200_000)
    args = ap.parse_args()
    search = hermite.visible_units
    print("| seed | rule: rel. L2 | vs constant | units | residual_ | with search: rel. L2 | vs constant | units |")
    print("|---|---|---|---|---|---|---|---|")
    for seed in range(args.seeds):
        inst = planted_biased(d=10, k=4, n=args.n, seed=seed, special=(6, -6), bias=1.0)
        X, Y = inst.float_inputs(), inst.float_labels()
        row = [str(seed)]
        for on in (False, True):
            hermite.visible_units = search if on else (lambda *a: None)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = hermite.HermiteProposer(4, random_state=0).fit(X, Y)
            P = est.evaluate(X)
            row += [f"{np.linalg.norm(P - Y) / np.linalg.norm(Y):.3f}", f"{error_against_constant(P, Y):.3f}",
                    str(est.n_units_)] + ([] if on else [f"{est.residual_:.3f}"])
        print("| " + " | ".join(row) + " |", flush=True)
    hermite.visible_units = search


if __name__ == "__main__":
    main()
