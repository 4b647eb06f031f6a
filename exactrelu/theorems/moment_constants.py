"""The constants of the moment-tensor initializer, for the ReLU and the rectified powers t^2, t^3.

Claim: for z ~ N(0, 1) and c_t(f) = E[f(z) He_t(z)] (He_t probabilists' Hermite polynomials;
He_2 = z^2 - 1, He_3 = z^3 - 3 z, He_4 = z^4 - 6 z^2 + 3), with r = sqrt(2/pi):

    f         c_0          c_1    c_2          c_3    c_4
    relu      1/sqrt(2pi)  1/2    1/sqrt(2pi)  0      -1/sqrt(2pi)
    t^2 (t>0) 1/2          r      1            r      0
    t^3 (t>0) r            3/2    3 r          3      3 r

For x ~ N(0, I_d) and a unit vector v, rotation invariance gives the tensors the initializer
estimates: E[f(v.x)] = c_0, E[f(v.x) x] = c_1 v, E[f(v.x) (x x^T - I)] = c_2 v v^T,
E[f(v.x) He_3(x)] = c_3 v^(x)3, E[f(v.x) He_4(x)] = c_4 v^(x)4. For a row of norm s,
f(v.x) = s^c f(u.x) with u = v / s, so the constants scale by s^c.

Consequences checked here: for t^2 the 4th-order tensor vanishes identically (t^2 1{t>0} =
t^2/2 + t|t|/2, an even polynomial of degree 2 plus an odd function), so a moment-tensor method
for c = 2 must use the 3rd-order tensor; for the ReLU the 3rd-order tensor vanishes.

Source: the Hermite facts the moment-tensor proposer uses (the ReLU constants were first confirmed
by Monte Carlo with 4e7 samples); Awasthi, Tang, Vijayaraghavan (NeurIPS 2021) for the
Hermite-tensor method. The t^c rows are derived here.

Proof: SymPy integrates z^c He_t(z) phi(z) over (0, oo) (c = 1 is the ReLU) and the difference
with the table simplifies to 0 for each of the 15 entries.

>>> rec = prove()
>>> rec["passed"], rec["table"]["power2"]["4"], rec["vanishing"]
(True, '0', ['relu: c_3', 'power2: c_4'])
"""

from __future__ import annotations

import sympy as sp

from ._gaussian import He, expectation, is_zero, text, z

CLAIM = ("Moment-tensor constants E[f(z) He_t(z)], t = 0..4, for f = relu, t^2, t^3 "
         "(relu: 1/sqrt(2pi), 1/2, 1/sqrt(2pi), 0, -1/sqrt(2pi); t^2 has c_4 = 0)")
SOURCE = "Hermite facts of the moment-tensor proposer (docs/proposers.md); Awasthi-Tang-Vijayaraghavan 2021"

_r = sp.sqrt(2 / sp.pi)
_s = 1 / sp.sqrt(2 * sp.pi)

#: The claimed constants c_t(f) = E[f(z) He_t(z)], f named as ``str(Activation)`` without ":".
TABLE = {
    "relu": [_s, sp.Rational(1, 2), _s, 0, -_s],
    "power2": [sp.Rational(1, 2), _r, 1, _r, 0],
    "power3": [_r, sp.Rational(3, 2), 3 * _r, 3, 3 * _r],
}
DEGREE = {"relu": 1, "power2": 2, "power3": 3}


def prove() -> dict:
    """Integrate the 15 constants symbolically and compare with :data:`TABLE`."""
    failures, table, vanishing = [], {}, []
    for name, expected in TABLE.items():
        c = DEGREE[name]
        row = {}
        for t, want in enumerate(expected):
            got = expectation(z**c * He(t, z), lower=0)
            if not is_zero(got - want):
                failures.append(f"{name}: c_{t} = {text(got)}, table says {text(sp.sympify(want))}")
            if is_zero(got):
                vanishing.append(f"{name}: c_{t}")
            row[str(t)] = text(got)
        table[name] = row
    return {"passed": not failures, "failures": failures, "table": table, "vanishing": vanishing,
            "convention": "c_t = E[f(z) He_t(z)], probabilists' Hermite, z ~ N(0,1); orthonormal: divide by sqrt(t!)"}
