"""Refutations from a SAT solver, made checkable: LRAT traces and the backward trimming of DRUP proofs (untrusted)."""
