"""Long work says so up front: the estimate of a command's work, printed on stderr before it starts.

Every command that can run long (``demo``, ``recover``, ``solve``, ``patterns``, ``fit``, ``hardness
from-cnf | random | decide``, ``sweep``) calls one function here before its main work. It prints one
line on stderr, ``exactrelu <command>: work: ...``, naming the count that drives the time (search
tries, candidate lines, extreme rays, formula size, label entries) and a rough time at this
machine's measured rates (``RATES``: 2 cores, loaded; a guide, not a promise). When the estimate is
certain and over the limit ``estimate`` (seconds, ``EXACTRELU_MAX_ESTIMATE``, docs/limits.md) the
command is refused with that line (InvalidInput: exit 2) unless ``--force`` is given. ``--time-limit``
bounds a run in any case; a time-out is exit 3 ("unknown") and claims nothing.

>>> import argparse, io, contextlib
>>> args = argparse.Namespace(command="patterns", force=False, json=False)
>>> buf = io.StringIO()
>>> with contextlib.redirect_stderr(buf): patterns_estimate(args, n=20, k=3)   # a moment: nothing said
>>> buf.getvalue()
''
>>> with contextlib.redirect_stderr(buf): patterns_estimate(args, n=40, k=6)
>>> buf.getvalue().split(";")[0]
'exactrelu patterns: work: C(40, 5) = 658008 candidate lines of the arrangement'
>>> patterns_estimate(args, n=60, k=12)
Traceback (most recent call last):
...
exactrelu.errors.InvalidInput: exactrelu patterns: work: C(60, 11) = 3.427e+11 candidate lines of the arrangement; ...
"""

from __future__ import annotations

import math
import sys

from ..errors import InvalidInput
from ..limits import limit
from ..progress import duration

__all__ = ["RATES", "announce", "patterns_estimate", "search_estimate", "solve_estimate", "cnf_estimate",
           "decide_estimate", "announce_fit", "sweep_estimate"]

#: Elementary steps per second, measured on the 2-core development machine under load (benchmarks and
#: docs/limits.md say how): search ``(n k)`` per try; candidate lines ``(2^k n)`` per line; exact-LP
#: rows x variables; reduction entries; checker entries x (d + k).
RATES = {"search": 1.6e8, "lines": 6e6, "lp": 2e5, "entries": 1e6, "check": 1e6}


#: Estimates below this many seconds are not printed.
QUIET = 1.0


def _command(args) -> str:
    return getattr(args, "command_name", None) or getattr(args, "command", None) or "exactrelu"


def announce(args, work: str, seconds: float | None, *, certain: bool = True) -> None:
    """Print ``exactrelu CMD: work: WORK; about T here`` on stderr; refuse (exit 2) a certain estimate over the
    limit."""
    text = f"exactrelu {_command(args)}: work: {work}"
    if seconds is not None:
        text += f"; about {duration(seconds)} here" if certain else f"; up to about {duration(seconds)} here"
    if certain and seconds is not None and seconds > limit("estimate") and not getattr(args, "force", False):
        raise InvalidInput(f"{text}, over the limit estimate={limit('estimate')} s: refused (--force runs it anyway, "
                           "--time-limit bounds it; raise the limit with EXACTRELU_MAX_ESTIMATE; docs/limits.md)")
    if seconds is None or seconds >= QUIET:  # short work stays quiet: its answer (or its one error line) comes at once
        print(text, file=sys.stderr, flush=True)


def patterns_estimate(args, *, n: int, k: int) -> None:
    """``patterns``: the sign vectors come from C(n, k-1) candidate lines, each with 2^k cells over n coordinates."""
    if k <= 1:
        return announce(args, f"{2 if k else 0} sign patterns (k = {k})", None)
    lines = math.comb(n, k - 1)
    shown = f"{lines}" if lines < 10**6 else f"{lines:.4g}"
    announce(args, f"C({n}, {k - 1}) = {shown} candidate lines of the arrangement",
             lines * (2.0**k * n + k**3) / RATES["lines"])


def search_estimate(args, *, n: int, d: int, m: int, k: int, init: str = "auto") -> None:
    """``demo`` / ``recover``: the blind search's expected tries (2^(k-1) H_k), when the search is the proposal
    or the fallback of ``auto`` (k > d or m < k: no tensor start)."""
    from ..propose.search import expected_tries

    tries = expected_tries(k)
    seconds = tries * n * k / RATES["search"]
    if init == "search" or (init == "auto" and tries <= 20):
        return announce(args, f"blind search over (k-1)-subsets of {n} samples, expecting ~{tries:.3g} tries", seconds)
    if init == "auto" and (k > d or m < k):
        return announce(args, f"no tensor start (k={k} {'> d' if k > d else '> m'}); gradient proposal, then for "
                              f"the units it misses the blind search, expecting ~{tries:.3g} tries", seconds,
                        certain=False)
    if init == "auto":
        announce(args, f"tensor start (k={k} <= d={d}, m={m}), n={n} samples; the blind search (~{tries:.3g} tries) "
                       "only for units it misses", None)


def solve_estimate(args, *, n: int, d: int, r: int) -> None:
    """``solve``: up to C(n, r-1) extreme rays of the cone (far fewer in practice), each one exact LP."""
    if r <= 1:
        return announce(args, f"rank(labels) = {r}: at most one extreme ray", None)
    rays = math.comb(n, r - 1)
    bound = min(rays, 2 * n ** ((r - 1) // 2))  # the upper bound theorem: vertices of an (r-1)-polytope, n facets
    announce(args, f"rank(labels) = {r}, n = {n}: up to ~{bound:.3g} extreme rays (upper bound theorem), each an "
                   f"exact LP of {n} rows x {d} variables; first the row-span recovery when rank = k",
             bound * n * d / RATES["lp"], certain=False)


def cnf_estimate(args, *, num_vars: int, num_clauses: int, nae_vars: int, nae_clauses: int) -> None:
    """``hardness from-cnf | random``: the instance has n = 2N + M samples and d = N inputs (N, M of the NAE
    formula)."""
    n, d = 2 * nae_vars + nae_clauses, nae_vars
    entries = n * (d + 1)
    announce(args, f"{num_vars} variables, {num_clauses} clauses -> NAE-3SAT with {nae_vars} variables, {nae_clauses} "
                   f"clauses -> instance n={n}, d={d}: {entries:.3g} entries (~{entries * 120 / 2**30:.2g} GB while "
                   "built)", entries / RATES["entries"])


def decide_estimate(args, *, n: int, k: int, m: int) -> None:
    """``hardness decide``: n k activation literals; 2^(n k) sign cases in the worst case (NP-hard)."""
    lits = n * k
    announce(args, f"{lits} activation literals (n={n} x k={k}), m={m}: up to 2^{lits} cases in the worst case "
                   "(NP-hard; the lazy engine usually needs far fewer)", None)


def announce_fit(args, inst) -> None:
    """``fit``: the float methods, then the exact residual and the independent check of n m entries."""
    n, d, m, k = inst.n, inst.d, inst.m, args.k
    seconds = n * m * (d + k) / RATES["check"] * (1 if getattr(args, "no_check", False) else 5)
    announce(args, f"{n} samples x {m} outputs, d={d}, k={k}: float fit, then exact residual"
                   f"{'' if getattr(args, 'no_check', False) else ' and independent check'} of {n * m} entries",
             seconds, certain=False)


def sweep_estimate(args, *, tasks: int, workers: int | None) -> None:
    """``sweep``: the number of tasks and where they run."""
    announce(args, f"{tasks} tasks on {workers or 'all available'} worker(s)", None)
