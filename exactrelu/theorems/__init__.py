"""Theorems the algorithms rely on, stated in code and checked (symbolically or exactly).

Each module states one claim and its source in its docstring and exposes ``CLAIM``, ``SOURCE``
and ``prove(**params) -> dict`` (a JSON-serializable record with ``"passed"``). Symbolic proofs
use SymPy (the ``test`` or ``proofs`` extra). ``exactrelu prove NAME`` / ``--all`` runs them;
the top-level ``proofs/<name>.py`` scripts run one each and write ``proofs/results/<name>.json``.
See :mod:`exactrelu.theorems.registry` for why the code lives here.

=========================  ===============================================================
module                     claim
=========================  ===============================================================
relu_hermite               ReLU Hermite coefficients, k <= 16 (SymPy)
biased_relu_hermite        E[relu(z+b) He_t(z)] = phi(b) He_{t-2}(-b); zeros at b = +-1
moment_constants           E[f(z) He_t(z)], t <= 4, for relu, t^2, t^3 (c_4 = 0 for t^2)
homogeneity_symmetry       positive rescaling and permutation: same function, same canonical form
uniqueness_lemma           {y in rowspan(A) : y_Z = 0} = span(W_i) iff rank W_{-i,Z} = k - 1
augmented_position         f(Vx+b) = f([V b][x;1]); d+1 augmented inputs independent a.s.
sign_ambiguity             relu(t) - relu(-t) = t: different biased networks, same function
hardness_gadget            the NAE-3SAT -> two-unit ReLU reduction's gadget and clause lemmas
sign_identifiability       flips match f_0, f_1 iff same function; unique sign choice in full rank
=========================  ===============================================================
"""

from .registry import MODULES, ProofResult, discover, run_proof

__all__ = ["MODULES", "ProofResult", "discover", "run_proof"]
