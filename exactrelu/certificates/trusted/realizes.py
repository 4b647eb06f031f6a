"""The claim ``realizes``: a network reproduces every label exactly. Standard library only."""

from __future__ import annotations

import math
from fractions import Fraction
from operator import mul

from .common import CheckFailed, _degree, _matrix, _only_fields
from .instance import _bound_instance


def check_realizes(cert: dict, instance: dict) -> str:
    """Verify the claim ``realizes``; return a one-line summary or raise CheckFailed."""
    _only_fields(cert, {"format", "version", "claim", "instance_sha256", "activation", "U", "V", "provenance"})
    X, Y = _bound_instance(cert, instance, "realizes")
    c = _degree(cert.get("activation"))
    if instance.get("activation") is not None and _degree(instance["activation"]) != c:
        raise CheckFailed("the certificate's activation differs from the instance's")
    n, d, m = len(X), len(X[0][0]), len(Y[0][0])
    Uraw, Vraw = cert.get("U"), cert.get("V")
    if not isinstance(Vraw, list) or not Vraw:
        raise CheckFailed("V must be a non-empty list of rows")
    k = len(Vraw)
    U = _matrix(Uraw, m, k, "U")
    V = _matrix(Vraw, k, d, "V")
    # integer form: V_i = Nv_i / Dv_i ; U_ri / Dv_i^c = Na_ri / Du_r ; x_j = Nx_j / Dx_j
    Dv = [math.lcm(*(f.denominator for f in row)) for row in V]
    Nv = [[f.numerator * (D // f.denominator) for f in row] for row, D in zip(V, Dv)]
    A = [[U[r][i] / Fraction(Dv[i]) ** c for i in range(k)] for r in range(m)]
    Du = [math.lcm(*(f.denominator for f in row)) for row in A]
    Na = [[f.numerator * (D // f.denominator) for f in row] for row, D in zip(A, Du)]
    for j in range(n):
        nums, dens = X[j]
        Dx = math.lcm(*dens)
        Nx = nums if Dx == 1 else [p * (Dx // q) for p, q in zip(nums, dens)]
        h = []
        for i in range(k):
            t = sum(map(mul, Nv[i], Nx))
            h.append(t**c if t > 0 else 0)
        scale = Dx**c
        ynum, yden = Y[j]
        for r in range(m):
            if ynum[r] * Du[r] * scale != yden[r] * sum(map(mul, Na[r], h)):
                raise CheckFailed(f"sample {j}, output {r}: the network's value differs from the label")
    return f"realizes: {n} samples x {m} outputs equal exactly (k={k}, d={d}, activation degree {c})"

