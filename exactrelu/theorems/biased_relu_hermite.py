"""Hermite coefficients of a biased ReLU: the closed form behind the paper's Lemma 3.5.

Claim: for z ~ N(0, 1), a real bias b, phi the N(0, 1) density, Phi its distribution function and
He_t the probabilists' Hermite polynomials,

    E[relu(z + b)]         = phi(b) + b Phi(b),
    E[relu(z + b) z]       = Phi(b),
    E[relu(z + b) He_t(z)] = phi(b) He_{t-2}(-b) = (-1)^t phi(b) He_{t-2}(b)   for t >= 2

(divide by sqrt(t!) for the orthonormal basis). At b = 0 this gives the ReLU coefficients. The
4th-order term phi(b) (b^2 - 1) vanishes exactly at b = +1 and b = -1 and nowhere else, which is
why a unit with bias +-1 disappears from the 4th Hermite tensor (the paper's example).

Source: Awasthi, Tang, Vijayaraghavan (NeurIPS 2021), Lemma 3.5 and the discussion of b_i = +-1
(the paper states the lemma without the formula). Derivation: Gaussian integration by parts,
below.

Proof. Let F_t(b) = integral over (-b, oo) of (z + b) He_t(z) phi(z) dz and G_t the claimed form.
(1) For t <= max_integrated SymPy integrates F_t in closed form and F_t - G_t simplifies to 0.
(2) For every t <= max_order, t >= 2: SymPy differentiates the integral twice by Leibniz' rule,
    F_t''(b) = He_t(-b) phi(b), and G_t''(b) - He_t(-b) phi(b) simplifies to 0; so F_t - G_t is
    affine in b. Both F_t and G_t tend to 0 as b -> -oo (|F_t(b)| <= integral over (|b|, oo) of
    z |He_t(z)| phi(z) dz for b < 0; SymPy computes lim G_t = lim G_t' = 0), hence F_t = G_t.
(3) G_t(0) / sqrt(t!) equals the ReLU coefficient sigma_t of relu_hermite for t <= max_order.
(4) G_4(1) = G_4(-1) = 0 and the real zero set of G_4 is exactly {-1, 1}.

>>> rec = prove(max_order=4, max_integrated=3)
>>> rec["passed"], rec["fourth_order_zero_set"]
(True, '{-1, 1}')
"""

from __future__ import annotations

import sympy as sp

from . import relu_hermite
from ._gaussian import He, Phi, b, is_zero, phi, text, z

CLAIM = ("Biased ReLU: E[relu(z+b) He_t(z)] = phi(b) He_{t-2}(-b) for t >= 2 (t=0: phi(b)+b Phi(b), "
         "t=1: Phi(b)); the 4th-order term vanishes exactly at b = +-1")
SOURCE = "Awasthi-Tang-Vijayaraghavan, NeurIPS 2021, Lemma 3.5"


def closed_form(t: int):
    """The claimed E[relu(z + b) He_t(z)] as a SymPy expression in ``b``."""
    if t == 0:
        return phi(b) + b * Phi(b)
    if t == 1:
        return Phi(b)
    return phi(b) * He(t - 2, -b)


def _integral(t: int):
    return sp.Integral((z + b) * He(t, z) * phi(z), (z, -b, sp.oo))


def prove(max_order: int = 16, max_integrated: int = 4) -> dict:
    """Run checks (1)-(4) of the module docstring; return the record."""
    failures = []
    integrated, ode = [], []
    for t in range(max_integrated + 1):
        F = _integral(t).doit()
        if is_zero(F - closed_form(t)):
            integrated.append(t)
        else:
            failures.append(f"t={t}: integral {text(F)} differs from {text(closed_form(t))}")
    for t in range(2, max_order + 1):
        G = closed_form(t)
        target = He(t, -b) * phi(b)
        ok = (
            is_zero(sp.diff(_integral(t), b, 2) - target)
            and is_zero(sp.diff(G, b, 2) - target)
            and sp.limit(G, b, -sp.oo) == 0
            and sp.limit(sp.diff(G, b), b, -sp.oo) == 0
        )
        if ok:
            ode.append(t)
        else:
            failures.append(f"t={t}: the second-derivative argument does not close")
        if not is_zero(G.subs(b, 0) / sp.sqrt(sp.factorial(t)) - relu_hermite.formula(t)):
            failures.append(f"t={t}: b=0 disagrees with the ReLU coefficient")
        if not is_zero(He(t - 2, -b) - (-1) ** t * He(t - 2, b)):
            failures.append(f"t={t}: He_(t-2)(-b) != (-1)^t He_(t-2)(b)")
    G4 = closed_form(4)
    if not (is_zero(G4.subs(b, 1)) and is_zero(G4.subs(b, -1))):
        failures.append("the 4th-order term does not vanish at b = +-1")
    zeros = sp.solveset(G4, b, sp.S.Reals)
    if zeros != sp.FiniteSet(-1, 1):
        failures.append(f"the 4th-order term vanishes on {zeros}, not exactly on {{-1, 1}}")
    return {
        "passed": not failures,
        "failures": failures,
        "closed_form": {str(t): text(closed_form(t)) for t in range(0, 7)},
        "orthonormal": {str(t): text(closed_form(t) / sp.sqrt(sp.factorial(t))) for t in range(2, 7)},
        "integrated_directly_for_t": integrated,
        "second_derivative_argument_for_t": ode,
        "fourth_order_zero_set": sp.sstr(zeros),
        "sign_convention": "He_{t-2}(-b) = (-1)^t He_{t-2}(b); He_n(x) = (-1)^n e^{x^2/2} (d/dx)^n e^{-x^2/2}",
    }
