"""solve_output with the leading-column shortcut: the same U as a direct solve, the same refusals."""

from fractions import Fraction
from types import SimpleNamespace

import flint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.errors import NotRealizable
from exactrelu.network import Activation
from exactrelu.recover.output_layer import solve_output

INST = SimpleNamespace(labels=SimpleNamespace(den=1))


@settings(max_examples=150)
@given(st.integers(1, 4), st.integers(1, 3), st.integers(0, 40), st.data())
def test_recovers_u_or_refuses(k, m, zero_lead, data):
    """Leading columns zero or duplicated (the shortcut must fall back), huge entries, rank-deficient F."""
    n = zero_lead + data.draw(st.integers(0, 12))
    ent = st.one_of(st.integers(0, 3), st.integers(0, 2**90))
    F = [[0 if j < zero_lead else data.draw(ent) for j in range(n)] for _ in range(k)]
    U = [[data.draw(st.integers(-5, 5)) for _ in range(k)] for _ in range(m)]
    A = [[sum(U[r][i] * F[i][j] for i in range(k)) for j in range(n)] for r in range(m)]
    Fm, Am = flint.fmpz_mat(F) if n else flint.fmpz_mat(k, 0), flint.fmpz_mat(A) if n else flint.fmpz_mat(m, 0)
    full = flint.nmod_mat(Fm, 4611686018427387847).rank() == k if n else False
    if not full:
        with pytest.raises(NotRealizable):
            solve_output(Fm, Am, INST, Activation.relu(), 1)
        return
    got = solve_output(Fm, Am, INST, Activation.relu(), 1)
    assert got.to_fractions() == [[Fraction(x) for x in row] for row in U]  # F has full rank: U is unique
    if data.draw(st.booleans()):
        r, j = data.draw(st.integers(0, m - 1)), data.draw(st.integers(0, n - 1))
        Am[r, j] += 1
        stacked = flint.fmpz_mat([[int(Fm[i, t]) for t in range(n)] for i in range(k)]
                                 + [[int(Am[i, t]) for t in range(n)] for i in range(m)])
        if stacked.rank() > k:  # the perturbed labels leave the row span of F
            with pytest.raises(NotRealizable):
                solve_output(Fm, Am, INST, Activation.relu(), 1)
        else:
            Z = solve_output(Fm, Am, INST, Activation.relu(), 1)
            assert Z.num * Fm == Am * int(Z.den)
