"""Time limits reach inside the long steps (issue 23, item 4): the face LPs and span LPs of the worst-case
solver, the L-BFGS steps of fit and of the gradient proposer, the Hermite stages, fit's exact residual and
independent check. Each test gives a limit about a hundred times below the work and asserts that the call
stops with TimeLimitExceeded, well before the unlimited run would end (bounds generous: the machine is
shared; nothing passes or fails on a tight wall-clock bound)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from exactrelu.deadline import Deadline, run_within, with_deadline
from exactrelu.errors import InvalidInput, TimeLimitExceeded
from exactrelu.fit import fit
from exactrelu.fit.gradient import gradient_start
from exactrelu.network import RELU


def _planted_floats(n, d=10, k=4, seed=1, bias=6.0):
    rng = np.random.default_rng(seed)
    V = rng.standard_normal((k, d))
    V /= np.linalg.norm(V, axis=1)[:, None]
    b = rng.uniform(-bias, bias, k)
    X = rng.standard_normal((n, d))
    U = rng.choice([-2.0, -1.0, 1.0, 2.0], (4, k))
    return X, np.maximum(X @ V.T + b, 0) @ U.T


def test_face_decision_checks_the_deadline_before_every_lp():
    from exactrelu.decide.enumeration.pattern_lps import face_decision
    from exactrelu.decide.enumeration.patterns import Ray
    from exactrelu.exact.matrix import QMatrix

    X = QMatrix.from_rows([[1, 0], [0, 1], [-1, -1]])
    rays = [Ray(c=(1, 0), w=(1, 0, 0), support=(0,)), Ray(c=(0, 1), w=(0, 1, 0), support=(1,))]
    assert face_decision(X, rays, (0, 1), [[1, 0]], 2, False).unit is not None  # no limit: decided
    with pytest.raises(TimeLimitExceeded, match="face of 2 extreme rays"):
        face_decision(X, rays, (0, 1), [[1, 0]], 2, False, Deadline(0))


def test_the_worker_chunks_take_the_time_left():
    from exactrelu.decide.enumeration.worstcase_parallel import decide_faces
    from exactrelu.decide.enumeration.patterns import Ray

    rays = [Ray(c=(1, 0), w=(1, 0, 0), support=(0,)), Ray(c=(0, 1), w=(0, 1, 0), support=(1,))]
    rows = [[1, 0], [0, 1], [-1, -1]]
    assert decide_faces(rows, 1, [((0, 1), rays)], [[1, 0]], 2, False, None)[0].unit is not None
    with pytest.raises(TimeLimitExceeded):
        decide_faces(rows, 1, [((0, 1), rays)], [[1, 0]], 2, False, 0.0)


def test_solve_on_biased_data_stops_inside_the_enumeration():
    """The reproduction of issue 23 (d=20, k=5, biased labels, no --bias: face LPs of 2000+ rows), smaller n;
    unlimited it runs for minutes."""
    from exactrelu.decide import solve_decision
    from exactrelu.instances import planted

    inst = planted(d=20, k=5, m=5, n=1500, seed=0, bias=1.0)
    t0 = time.monotonic()
    with pytest.raises(TimeLimitExceeded):
        solve_decision(inst, 5, try_recovery=False, time_limit=0.5)
    assert time.monotonic() - t0 < 30


def test_gradient_steps_are_checked_inside_the_optimizer():
    """A progress callback that raises stops L-BFGS at its next step, not after the restart."""
    X, Y = _planted_floats(4000)
    calls = []

    def stop(message):
        calls.append(message)
        raise TimeLimitExceeded("stop", done=message)

    with pytest.raises(TimeLimitExceeded):
        gradient_start(X, Y, 4, activation=RELU, rng=np.random.default_rng(0), bias=True, progress=stop,
                       max_iter=10**6)
    assert len(calls) == 1 and "restart 1 of" in calls[0]  # the first callback, inside restart 1, stopped it


def test_fit_gradient_at_n_2e5_stops_at_half_a_second():
    """Issue 23: `fit --time-limit 0.5` at n = 2e5 stopped after 13.6-32.5 s (once 263 s)."""
    X, Y = _planted_floats(200_000)
    t0 = time.monotonic()
    with pytest.raises(TimeLimitExceeded, match="gradient"):
        fit(X, 4, labels=Y, method="gradient", bias=True, time_limit=0.5, certificate=False)
    assert time.monotonic() - t0 < 10


def test_hermite_stages_check_the_time():
    X, Y = _planted_floats(200_000)
    with pytest.raises(TimeLimitExceeded, match="hermite"):
        fit(X, 4, labels=Y[:, :1], method="hermite", bias=True, time_limit=0.01, certificate=False)


def test_the_exact_residual_and_the_check_run_within_the_limit(monkeypatch):
    """Steps without a loop to check (one FLINT product, the pure-Python checker) are waited for until the
    deadline only; here the check is made to take 30 s."""
    import exactrelu.certificates.envelope as envelope

    monkeypatch.setattr(envelope, "verify", lambda cert, inst: time.sleep(30))
    from exactrelu.instances import planted

    inst = planted(d=4, k=2, m=2, n=300, seed=0, noise="gaussian:0.1")
    t0 = time.monotonic()
    with pytest.raises(TimeLimitExceeded, match="independent check"):
        fit(inst, 2, time_limit=3.0)
    assert time.monotonic() - t0 < 15


def test_run_within_returns_raises_and_times_out():
    assert run_within(Deadline(10), max, [3, 1]) == 3
    with pytest.raises(InvalidInput):
        run_within(Deadline(10), Deadline, -1)  # the function's own error comes through
    with pytest.raises(TimeLimitExceeded, match="done so far: napping"):
        run_within(Deadline(0.05), time.sleep, 30, done="napping")
    with pytest.raises(TimeLimitExceeded):  # already past: not even started
        run_within(Deadline(0), pytest.fail, "must not run")


def test_with_deadline_passes_messages_until_the_limit():
    seen = []
    say = with_deadline(seen.append, Deadline(None))
    say("a")
    assert seen == ["a"]
    with pytest.raises(TimeLimitExceeded, match="done so far: b"):
        with_deadline(seen.append, Deadline(0))("b")
    assert seen == ["a"]
