"""``fit``: approximate weights for noisy labels, with their exact residual.

Float proposes (a start method, then refinement), exact disposes: the float weights are read
exactly as rationals and their residual on the data, ``sum_{j,r} (prediction_jr - labels_jr)^2``,
is computed over Q and written as a ``residual`` certificate that the independent checker
re-verifies. The certificate says how good the fit is, not that it is the best fit.

>>> from exactrelu.instances import planted
>>> inst = planted(d=6, k=2, m=3, n=3000, seed=0, noise="gaussian:0.05")
>>> res = fit(inst, k=2, random_state=0)
>>> res.method, res.certificate["claim"], res.checked.startswith("residual")
('tensor', 'residual', True)
>>> noise_sq = sum(x * x for row in inst.noise.to_fractions() for x in row)
>>> bool(res.squared_error <= noise_sq)  # at the noise floor: below ||E||_F^2 (least squares)
True
"""

from __future__ import annotations

import contextlib
import time
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from ..blas import small_problem_threads
from ..deadline import Deadline, run_within, with_deadline
from ..errors import (AssumptionViolated, ExactReluError, FitNotConverged, InvalidInput, NoBetterThanConstant,
                      TimeLimitExceeded)
from ..validation import as_generator, check_k, check_number, check_seed
from ..exact.matrix import QMatrix
from ..instances import Instance
from ..network import RELU, Activation, Network
from ..certificates.claims.model import bias_class
from ..certificates.claims.residual import Residual, exact_residual
from ..certificates.envelope import instance_hash_ahead
from ._model import Start, relative_residual
from .convergence import NEXT_STEP, affine_baseline, against_constant, floor_from_sigma, stalled
from .methods import METHODS, method_names, start_function
from .refine import refine as lm_refine

__all__ = ["fit", "FitResult", "FitRequest", "Stage", "choose_method"]

REALIZABLE_BELOW = 1e-9  # float relative residual under which exact recovery is tried


@dataclass(frozen=True)
class Stage:
    """One stage of a fit: its name, the float relative residual after it, and its time."""

    name: str
    relative: float
    seconds: float


@dataclass
class FitResult:
    """Outcome of :func:`fit`.

    network : the fitted weights, exact (the float weights read exactly). residual : their exact
    :class:`~exactrelu.certificates.claims.residual.Residual` on the data. method : the method run (``auto`` resolved);
    requested : the method asked for. stages : start and refinement, each with its float relative
    residual, so the paper's algorithm can be measured alone. timings : seconds per phase.
    certificate : the ``residual`` certificate (None if not asked); checked : the independent
    checker's summary (None if not run). realizable : the labels were found exactly realizable
    (then ``network`` is the exact network recovery certified, and the residual is zero).
    info : method diagnostics (sign margins, grid sizes, fallbacks; ``noise_floor`` or ``affine_baseline``,
    the relative residual each stage was compared with). warnings : one line per
    :class:`~exactrelu.errors.FitNotConverged` given (the stage, why, what to try next); empty when the fit
    reached its floor.
    """

    network: Network
    residual: Residual
    method: str
    requested: str
    stages: list[Stage]
    timings: dict[str, float]
    certificate: dict | None = None
    checked: str | None = None
    realizable: bool = False
    info: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def squared_error(self) -> Fraction:
        """The exact squared Frobenius error of ``network`` on the data."""
        return self.residual.squared_error

    @property
    def relative(self) -> float:
        """``||prediction - labels||_F / ||labels||_F`` (float, for display)."""
        return self.residual.relative()


@dataclass(frozen=True)
class FitRequest:
    """What :func:`fit` was asked, checked: built once there and passed down (its parameters say what each
    field means; ``activation`` is resolved, ``method`` is as asked)."""

    k: int
    activation: Activation
    method: str = "auto"
    bias: bool = False  # hidden biases b
    refine: bool | None = None
    random_state: Any = 0
    certificate: bool = True
    check: bool = True
    progress: Callable[[str], None] | None = None
    deadline: Deadline = field(default_factory=lambda: Deadline(None))
    output_bias: bool = False  # an output bias c

    @property
    def model(self) -> dict:
        """The class asked for, ``{"biases": ..., "output_bias": ...}``."""
        return {"biases": self.bias, "output_bias": self.output_bias}

    def say(self, message: str) -> None:
        if self.progress is not None:
            self.progress(message)


@dataclass
class FitLog:
    """What a fit records as it goes: seconds per phase, the stages run, method diagnostics."""

    timings: dict[str, float] = field(default_factory=dict)
    stages: list[Stage] = field(default_factory=list)
    info: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def choose_method(n: int, d: int, m: int, k: int, bias: bool) -> str:
    """``auto``: the tensor route (the paper's algorithm, refined) when its assumptions can hold
    (k <= d and m >= k, or one output), else the gradient baseline. Biases are fitted in the
    refinement from the tensor start (its second-order moments keep the directions of biased units)."""
    return "tensor" if k <= d and (m >= k or m == 1) else "gradient"


def _as_instance(data, labels) -> Instance:
    if isinstance(data, Instance):
        if labels is not None:
            raise InvalidInput("pass labels only with an inputs array, not with an Instance")
        return data
    if labels is None:
        raise InvalidInput("fit needs an Instance, or inputs and labels")
    return Instance.from_arrays(np.asarray(data) if isinstance(data, list) else data, labels)


def _validate(inst: Instance, k, method: str, bias: bool, activation: Activation | None,
              output_bias: bool = False) -> Activation:
    k = check_k(k)
    if k > 10_000:
        raise InvalidInput(f"k = {k} hidden units is beyond what fit handles (at most 10000)")
    if inst.n == 0 or inst.d == 0 or inst.m == 0:
        raise InvalidInput(f"the instance is empty (n={inst.n}, d={inst.d}, m={inst.m})")
    if method != "auto" and method not in METHODS:
        raise InvalidInput(f"unknown fit method {method!r}; choose from {', '.join(method_names())}")
    if bias and method != "auto" and not METHODS[method].bias:
        raise InvalidInput(f"method {method!r} fits networks without hidden biases; with hidden biases use "
                           f"{', '.join(n for n, e in METHODS.items() if e.bias)} or auto (or --bias output)")
    if output_bias and method != "auto" and not METHODS[method].output_bias:
        raise InvalidInput(f"method {method!r} fits networks without output bias; with an output bias use "
                           f"{', '.join(n for n, e in METHODS.items() if e.output_bias)} or auto")
    if activation is not None and inst.activation is not None and activation != inst.activation:
        raise InvalidInput(f"activation {activation} differs from the instance's activation {inst.activation}")
    return activation or inst.activation or RELU


def _float_data(inst: Instance) -> tuple[np.ndarray, np.ndarray]:
    X, Y = inst.float_inputs(), inst.float_labels()
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(Y))):
        raise InvalidInput("inputs or labels are too large for float64: the float methods cannot fit them")
    return X, Y


def _exact_network(start: Start, act: Activation) -> Network:
    b = None if start.b is None else QMatrix.from_numpy(start.b.reshape(-1, 1), name="b")
    c = None if start.c is None else QMatrix.from_numpy(np.asarray(start.c, dtype=np.float64).reshape(-1, 1), name="c")
    return Network(QMatrix.from_numpy(start.U, name="U"), QMatrix.from_numpy(start.V, name="V"), act, b, c)


def _run(X, Y, name: str, req: FitRequest, rng, log: FitLog) -> Start:
    """Run the start of ``name`` and, if asked, the refinement; fill the log's timings, stages and info."""
    entry = METHODS[name]
    act, bias, progress, refine = req.activation, req.bias, req.progress, req.refine
    timings, stages, info = log.timings, log.stages, log.info
    t0 = time.perf_counter()
    more = {"offset": True} if req.output_bias else {}
    start = start_function(name)(X, Y, req.k, activation=act, rng=rng, bias=bias, progress=progress, **more)
    label = "paper" if entry.start.endswith("paper:paper_start") else name
    timings[label] = time.perf_counter() - t0
    stages.append(Stage(label, relative_residual(X, Y, start, act.degree), timings[label]))
    info.update(start.info)
    if refine if refine is not None else entry.refine:
        t0 = time.perf_counter()
        start = lm_refine(X, Y, start, degree=act.degree, bias=bias, rng=rng, progress=progress,
                          offset=req.output_bias)
        timings["refine"] = time.perf_counter() - t0
        stages.append(Stage("refine", relative_residual(X, Y, start, act.degree), timings["refine"]))
        info["refine_iterations"] = start.info.get("iterations")
    return start


def _try_exact(inst, req: FitRequest, start, timings):
    """Labels that the fit matches to rounding level: try exact recovery from the fitted V."""
    from ..recover.front_door import recover

    t0 = time.perf_counter()
    init = start.V if start.b is None else np.hstack([start.V, start.b[:, None]])
    try:
        rec = recover(inst, k=req.k, activation=req.activation, init=init, random_state=req.random_state,
                      check=req.check, time_limit=req.deadline, bias=req.model)
    except TimeLimitExceeded:
        raise
    except ExactReluError:
        rec = None
    timings["exact recovery attempt"] = time.perf_counter() - t0
    return rec


def fit(data, k: int, *, labels=None, bias: "bool | str" = False, method: str = "auto",
        activation: Activation | None = None,
        random_state=0, refine: bool | None = None, certificate: bool = True, check: bool = True,
        progress: Callable[[str], None] | None = None, time_limit=None, noise: float | None = None) -> FitResult:
    """Fit ``k`` hidden units to (possibly noisy) labels; return weights with their exact residual.

    Parameters
    ----------
    data : an :class:`~exactrelu.instances.Instance`, or inputs (n x d) with ``labels`` (n x m).
    k : number of hidden units.
    bias : the model class (as :func:`exactrelu.recover.recover`'s): ``True`` / ``"both"`` (hidden biases b and an
        output bias c, PyTorch's default), ``"hidden"``, ``"output"`` or ``False``.
    method : ``"auto"`` (:func:`choose_method`), or a name in :data:`~exactrelu.fit.methods.METHODS`:
        ``"paper"``, ``"tensor"``, ``"fpt"``, ``"gradient"`` (docs/noisy.md says what each guarantees).
    refine : run the refinement after the start (default: as the method says; ``paper`` does not).
    certificate, check : write the ``residual`` certificate, and verify it with the independent checker.
    progress : callback receiving one-line progress messages.
    time_limit : seconds (or a :class:`~exactrelu.deadline.Deadline`); checked at every progress step
        of the methods, after which :class:`~exactrelu.errors.TimeLimitExceeded` is raised (nothing claimed).
    noise : the standard deviation of the label noise per entry, if known: each stage's residual is
        compared with this noise floor (default: the instance's planted noise, else the best affine map;
        :mod:`exactrelu.fit.convergence`). A stage that stalled gives a
        :class:`~exactrelu.errors.FitNotConverged` warning (also in ``FitResult.warnings``).

    All-zero labels are fitted by the zero network (U = 0) at once: residual 0, ``info["zero_labels"]``.

    Raises
    ------
    InvalidInput : k < 1, an empty instance, an unknown method, biases with a method that has none.
    TimeLimitExceeded : ``time_limit`` passed first.
    AssumptionViolated : the method's assumptions fail (``auto`` falls back to ``gradient`` instead).
    """
    deadline = Deadline.coerce(time_limit)
    if deadline.seconds is not None:  # every progress message of the methods also checks the time
        progress = with_deadline(progress, deadline)
    inst = _as_instance(data, labels)
    model = bias_class(bias)
    act = _validate(inst, k, method, model["biases"], activation, model["output_bias"])
    random_state = check_seed(random_state, "random_state")
    req = FitRequest(k, act, method, model["biases"], refine, random_state, certificate, check, progress, deadline,
                     model["output_bias"])
    # the instance hash of the certificate is made meanwhile, in a forked child when a core is idle (asked before
    # the first float step, whose BLAS threads still spin for a moment after it and look like a busy core)
    with instance_hash_ahead(inst) if certificate else contextlib.nullcontext():
        return _fit(inst, req, noise)


def _fit(inst: Instance, req: FitRequest, noise) -> FitResult:
    k, method, bias = req.k, req.method, req.bias
    X, Y = _float_data(inst)
    floor = _noise_floor(inst, Y, noise)
    rng = as_generator(req.random_state)
    name = choose_method(inst.n, inst.d, inst.m, k, bias) if method == "auto" else method
    log = FitLog()
    if not Y.any():  # all-zero labels: the zero network fits them exactly, whatever the method
        log.info["zero_labels"] = "all labels are zero: the zero network (U = 0) fits them exactly; nothing was fitted"
        return _finish(inst, req, _zero_start(inst, k, bias, req.output_bias), "zero", log)
    with small_problem_threads(inst.n * (inst.d + inst.m)):  # BLAS threads only pay on large float steps
        try:
            start = _run(X, Y, name, req, rng, log)
        except AssumptionViolated as exc:
            if method != "auto" or name == "gradient":
                raise
            log.info["fallback"] = f"{name}: {exc}"
            name, log.stages[:] = "gradient", []
            start = _run(X, Y, name, req, rng, log)
    _convergence(X, Y, floor, name, log)
    return _finish(inst, req, start, name, log)


def _noise_floor(inst: Instance, Y: np.ndarray, noise) -> float | None:
    """The relative noise floor: from ``noise`` (sigma per entry), else the instance's planted noise, else None."""
    if noise is not None:
        return floor_from_sigma(check_number(noise, "noise (a standard deviation)", minimum=0), Y)
    if inst.clean_labels is not None:
        ny = float(np.linalg.norm(Y))
        return float(np.linalg.norm(inst.noise.to_float())) / ny if ny else None
    return None


def _zero_start(inst: Instance, k: int, bias: bool, output_bias: bool = False) -> Start:
    return Start(np.zeros((inst.m, k)), np.zeros((k, inst.d)), np.zeros(k) if bias else None, {},
                 np.zeros(inst.m) if output_bias else None)


def _convergence(X, Y, floor: float | None, name: str, log: FitLog) -> None:
    """Compare each stage with the floor; warn (FitNotConverged) when the last one stalled, naming every stalled one;
    warn NoBetterThanConstant instead when the result is no better than the labels' mean (``info["error_against_
    constant"]``, :mod:`exactrelu.propose.selfcheck`)."""
    from ..propose.selfcheck import TRIVIAL  # here: the command line reads its input before SciPy loads

    error = log.info["error_against_constant"] = against_constant(log.stages[-1].relative, Y)
    if not error < TRIVIAL:
        text = (f"the {name} fit is no better than the best constant predictor: its relative error {error:.3g} "
                f"against the labels' mean is at least {TRIVIAL:g}; try {NEXT_STEP.get(name, 'another --seed')}")
        log.warnings.append(text)
        warnings.warn(NoBetterThanConstant(text), stacklevel=4)
        return
    if floor is None:
        baseline = log.info["affine_baseline"] = affine_baseline(X, Y)
    else:
        baseline = log.info["noise_floor"] = floor
    bad = [(st.name, why) for st in log.stages if (why := stalled(st.relative, baseline, floor)) is not None]
    log.info["stages_not_converged"] = [n for n, _ in bad]
    if not bad or bad[-1][0] != log.stages[-1].name:
        return
    stage, why = bad[-1]
    earlier = [n for n, _ in bad[:-1]]
    more = f" (stages before it stalled too: {', '.join(earlier)})" if earlier else ""
    text = (f"the {stage} stage of the {name} fit did not converge: {why}{more}; "
            f"try {NEXT_STEP.get(stage, NEXT_STEP.get(name, 'another --seed or --method'))}")
    log.warnings.append(text)
    warnings.warn(FitNotConverged(text), stacklevel=4)  # _convergence, _fit, fit, the caller


def _finish(inst, req: FitRequest, start, name: str, log: FitLog) -> FitResult:
    from ..certificates.claims.realizes import residual_certificate
    from ..certificates.envelope import verify

    act, timings = req.activation, log.timings
    t0 = time.perf_counter()
    req.say(f"exact residual of {inst.n} x {inst.m} entries")
    net = _exact_network(start, act)
    res = run_within(req.deadline, lambda: exact_residual(net, inst, max_listed=0), done=f"the fit ({name}); its exact residual was "
                     "being computed")
    timings["exact residual"] = time.perf_counter() - t0
    realizable = res.squared_error == 0
    if not realizable and res.relative() < REALIZABLE_BELOW:
        rec = _try_exact(inst, req, start, timings)
        if rec is not None:
            net, realizable = rec.network, True
            res = exact_residual(net, inst, max_listed=0)
    out = FitResult(net, res, name, req.method, log.stages, timings, realizable=realizable, info=log.info,
                    warnings=log.warnings)
    if req.certificate:
        t0 = time.perf_counter()
        out.certificate = residual_certificate(inst, net, residual=res, method=name, seed=req.random_state)
        timings["certificate"] = time.perf_counter() - t0
        if req.check:
            t0 = time.perf_counter()
            req.say("independent check of the residual certificate")
            out.checked = run_within(req.deadline, verify, out.certificate, inst,
                                     done="the fit and its exact residual; the independent check was running")
            timings["independent_check"] = time.perf_counter() - t0
    return out
