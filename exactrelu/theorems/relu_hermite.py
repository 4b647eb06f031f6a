"""Hermite coefficients of the ReLU in the orthonormal Hermite basis.

Claim: for z ~ N(0, 1) and h_k = He_k / sqrt(k!), the coefficients sigma_k = E[relu(z) h_k(z)] are
sigma_0 = 1/sqrt(2 pi), sigma_1 = 1/2, sigma_k = 0 for odd k >= 3, and
sigma_k = (-1)^((k-2)/2) (k-3)!! / sqrt(2 pi k!) for even k >= 2 ((-1)!! = 1).

Source: Awasthi, Tang, Vijayaraghavan (NeurIPS 2021), section 2 ("the Hermite
coefficients of the ReLU function"); used by the moment-tensor proposer.

Proof: SymPy integrates z He_k(z) phi(z) over (0, oo) symbolically for every k <= max_order and
the difference with the formula simplifies to 0. The convention is checked too: SymPy's
``hermite_prob`` agrees with Rodrigues' formula and E[He_k(z)^2] = k! for the same k.

>>> rec = prove(max_order=4)
>>> rec["passed"], rec["sigma"]["4"]
(True, '-sqrt(3)/(12*sqrt(pi))')
"""

from __future__ import annotations

import sympy as sp

from ._gaussian import He, He_by_rodrigues, expectation, is_zero, text, z

CLAIM = ("ReLU Hermite coefficients (orthonormal basis): sigma_0 = 1/sqrt(2 pi), sigma_1 = 1/2, "
         "sigma_k = (-1)^((k-2)/2) (k-3)!!/sqrt(2 pi k!) for even k >= 2, 0 for odd k >= 3")
SOURCE = "Awasthi-Tang-Vijayaraghavan, NeurIPS 2021, sec. 2"


def formula(k: int):
    """The claimed sigma_k, as a SymPy number."""
    if k == 0:
        return 1 / sp.sqrt(2 * sp.pi)
    if k == 1:
        return sp.Rational(1, 2)
    if k % 2:
        return sp.Integer(0)
    return (-1) ** ((k - 2) // 2) * sp.factorial2(k - 3) / sp.sqrt(2 * sp.pi * sp.factorial(k))


def prove(max_order: int = 16) -> dict:
    """Check sigma_k for k = 0..max_order symbolically; return the record."""
    failures = []
    sigma, probabilists = {}, {}
    for k in range(max_order + 1):
        if not is_zero(He(k, z) - He_by_rodrigues(k, z)):
            failures.append(f"SymPy's hermite_prob({k}) differs from Rodrigues' formula")
        if not is_zero(expectation(He(k, z) ** 2) - sp.factorial(k)):
            failures.append(f"E[He_{k}^2] != {k}!")
        c = expectation(z * He(k, z), lower=0)  # E[relu(z) He_k(z)]
        s_k = c / sp.sqrt(sp.factorial(k))
        if not is_zero(s_k - formula(k)):
            failures.append(f"sigma_{k} = {text(s_k)}, formula gives {text(formula(k))}")
        sigma[str(k)] = text(s_k)
        probabilists[str(k)] = text(c)
    return {
        "passed": not failures,
        "failures": failures,
        "max_order": max_order,
        "sigma": sigma,
        "probabilists_E_relu_He": probabilists,
        "method": "sympy.integrate over (0, oo), difference simplified to 0",
    }
