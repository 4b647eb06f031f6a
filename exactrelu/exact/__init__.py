"""Numbers and linear algebra over Q on FLINT. Knows nothing about networks."""

from .linalg import (
    InconsistentSystem,
    exact_rank,
    independent_columns,
    independent_rows,
    primitive_kernel,
    rank_mod_p,
    solve_consistent,
    solve_square,
)
from .matrix import QMatrix, as_float_array
from .rationals import format_rational, fmpq_to_fraction, fraction_to_fmpq, to_fraction

__all__ = [
    "QMatrix",
    "as_float_array",
    "to_fraction",
    "format_rational",
    "fraction_to_fmpq",
    "fmpq_to_fraction",
    "rank_mod_p",
    "exact_rank",
    "independent_rows",
    "independent_columns",
    "primitive_kernel",
    "solve_square",
    "solve_consistent",
    "InconsistentSystem",
]
