"""``exactrelu hardness ...``: from-cnf, random, lift, decode, decide.

>>> import argparse
>>> p = argparse.ArgumentParser(); sub = p.add_subparsers()
>>> register(sub)
>>> p.parse_args(["hardness", "random", "--vars", "5", "--clauses", "8", "-o", "x.json"]).vars
5
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..arguments import nonnegative_int_arg, positive_int_arg, seconds_arg, seed_arg

from ..certificates.claims.model import bias_class, model_of
from ._data import add_bias_argument, bias_of
from ._limit import add_time_limit, limited
from ._report import emit, json_command
from ..errors import InvalidInput
from ..io.files import write_text_atomic
from ..progress import LineProgress

if TYPE_CHECKING:  # pragma: no cover - imported where used: numpy and FLINT cost 0.2 s, `decide` of a
    from ..hardness.cnf import CNF, NAEFormula  # reduction's instance needs none (exactrelu/decide/search/source.py)
    from ..instances import Instance
    from ..network import Network

__all__ = ["register"]


def _formula_arg(p):
    p.add_argument("formula", help="DIMACS file (CNF, or NAE-3SAT when marked 'c exactrelu:nae-3sat')")
    p.add_argument("--as", dest="kind", choices=("auto", "cnf", "nae"), default="auto",
                   help="read the clauses as CNF or as NAE-3SAT (default: by the file's mark)")


def _load(args) -> CNF | NAEFormula:
    from ..hardness.cnf import read_dimacs  # here: `decide` of a reduction's image reads no formula (3 ms)

    return read_dimacs(args.formula, nae={"auto": None, "cnf": False, "nae": True}[args.kind])


def _reduce(formula):
    from ..hardness import reduction_for

    chain = reduction_for(formula)
    inst, data = chain.apply(formula)
    return chain, inst, data


def _write_instance(args, inst: "Instance", out: str, formula, label: str) -> int:
    from ..instances import write_instance

    write_instance(inst, out)
    record = {"variables": formula.num_vars, "clauses": len(formula.clauses), "instance": str(out), "n": inst.n,
              "d": inst.d, "m": 1, "k": 2}
    return emit(args, record, f"{label}: {formula.num_vars} variables, {len(formula.clauses)} clauses -> instance "
                              f"n={inst.n}, d={inst.d}, m=1, k=2, U=[[1, 1]] written to {out}")


def _nae_size(formula) -> tuple[int, int]:
    """(variables, clauses) of the NAE-3SAT formula the reduction makes of ``formula`` (counted, not built)."""
    from ..hardness.cnf import NAEFormula

    if isinstance(formula, NAEFormula):
        return formula.num_vars, len(formula.clauses)
    fresh = sum(max(0, len(c) - 2) for c in formula.clauses)  # as CnfToNae counts them
    return formula.num_vars + 1 + fresh, len(formula.clauses) + fresh


def _estimate(args, num_vars: int, num_clauses: int, nae_vars: int, nae_clauses: int) -> None:
    """The instance's size up front: over the memory there is refused at once, else its work announced."""
    from ..limits import check_entries
    from ._work import cnf_estimate

    check_entries(2 * nae_vars + nae_clauses, nae_vars, 1, "the reduction's instance")
    cnf_estimate(args, num_vars=num_vars, num_clauses=num_clauses, nae_vars=nae_vars, nae_clauses=nae_clauses)


def _from_cnf(args) -> int:
    formula = _load(args)
    args.done = f"read {args.formula}: {formula.num_vars} variables, {len(formula.clauses)} clauses"
    _estimate(args, formula.num_vars, len(formula.clauses), *_nae_size(formula))
    _, inst, _ = _reduce(formula)
    args.done += f"; reduced to an instance n={inst.n}, d={inst.d}, not written"
    return _write_instance(args, inst, args.output, formula, "from-cnf")


def _random(args) -> int:
    for name in ("vars", "clauses"):
        if getattr(args, name) < (1 if name == "vars" else 0):
            raise InvalidInput(f"--{name} must be {'positive' if name == 'vars' else 'zero or more'}, "
                               f"got {getattr(args, name)}")
    nae = (args.vars, args.clauses) if args.kind == "nae" else (args.vars + 1 + args.clauses, 2 * args.clauses)
    _estimate(args, args.vars, args.clauses, *nae)  # before drawing the formula: a hopeless size is refused at once
    from ..hardness.cnf import write_dimacs
    from ..hardness.generators import random_kcnf, random_nae3

    if args.kind == "nae":
        formula = random_nae3(args.vars, args.clauses, seed=args.seed, planted=args.planted)
    else:
        formula = random_kcnf(args.vars, args.clauses, seed=args.seed, planted=args.planted)
    if args.formula_out:
        write_dimacs(formula, args.formula_out)
    args.done = f"drew the formula ({args.vars} variables, {args.clauses} clauses)"
    _, inst, _ = _reduce(formula)
    args.done += f"; reduced to an instance n={inst.n}, d={inst.d}, not written"
    return _write_instance(args, inst, args.output, formula, f"random {args.kind}")


def _lift(args) -> int:
    from ..certificates.claims.realizes import realizes_certificate
    from ..certificates.envelope import verify, write_certificate
    from ..hardness.cnf import parse_assignment
    from ..instances import write_instance

    formula = _load(args)
    chain, inst, data = _reduce(formula)
    try:
        text = Path(args.assignment).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {args.assignment}: {exc}") from None
    sigma = parse_assignment(text, formula.num_vars, source=str(args.assignment))
    net = chain.lift(sigma, data)
    cert = realizes_certificate(inst, net, source=str(args.formula))
    summary = verify(cert, inst)
    write_certificate(cert, args.output)
    if args.instance_out:
        write_instance(inst, args.instance_out)
    return emit(args, {"summary": summary, "certificate": str(args.output)},
                f"lift: {summary}; certificate written to {args.output}")


def _read_weights(path: str) -> "Network":
    from ..io.files import check_exact_entries, read_json
    from ..network import RELU, Network

    obj = read_json(path, what="weights file")
    if not isinstance(obj, dict):
        raise InvalidInput(f"{path}: expected a JSON object with 'U' and 'V'")
    check_exact_entries(obj, ("U", "V"), path)
    return Network.from_json({"U": obj.get("U"), "V": obj.get("V")} if "U" in obj and "V" in obj else obj, RELU)


def _decode(args) -> int:
    from ..hardness.cnf import assignment_to_literals

    formula = _load(args)
    chain, inst, data = _reduce(formula)
    net = _read_weights(args.weights)
    sigma = chain.invert(net, data)
    literals = assignment_to_literals(sigma)
    line = "v " + " ".join(map(str, literals + [0]))
    if args.output:
        write_text_atomic(args.output, f"s SATISFIABLE\n{line}\n", what="assignment")
    return emit(args, {"literals": literals, "output": args.output}, line)


def _decide(args) -> int:
    start = time.monotonic()
    bar = LineProgress() if args.verbose else None
    try:
        res = _by_source(args, start, bar)
        if res is None:
            return _decide_general(args, bar)
    finally:
        if bar is not None:
            bar.close()
    from ..decide.search.source import write_json

    write_json(res.certificate, args.output)
    st = res.evidence
    lines = [f"{res.status}: certificate ({res.certificate['claim']}) written to {args.output}; decided on the source "
             f"formula ({st['source_variables']:,} variables, {st['source_clauses']:,} clauses) by CaDiCaL"
             + (f", {st['proof_steps']:,} hinted steps" if "proof_steps" in st else "") + ", 0 exact LPs",
             f"checked: {res.summary}"]
    return emit(args, {"status": res.status, "claim": res.certificate["claim"], "certificate": str(args.output),
                       "summary": res.summary, "model": model_of(res.certificate), "stats": st,
                       "instance": args.instance}, lines)


def _by_source(args, start: float, bar):
    """The answer by the source formula (:func:`exactrelu.decide.search.source.answer_by_source`) when the options
    allow it (``--engine auto``, LRAT hints, no budget of rounds, no bias, U = [[1, 1]] or unknown with k = 2) and the
    instance is exactly a reduction's image; else None (the general path decides, and reads the file as always)."""
    from fractions import Fraction

    if args.engine != "auto" or args.proof != "lrat" or args.max_nodes is not None or bias_of(args):
        return None
    if args.U is None:
        if args.k != 2:
            return None
    else:
        try:
            if [[Fraction(x.strip()) for x in row.split(",")] for row in args.U.split(";")] != [[1, 1]]:
                return None
        except (ValueError, ZeroDivisionError):  # the general path says what is wrong with it
            return None
    import gc

    enabled = gc.isenabled()
    gc.disable()  # the route makes about a million objects and no cycle: the collector's passes cost 4% of it
    try:
        return _source_answer(args, start, bar)
    finally:
        gc.freeze()  # what it made goes to the oldest generation unexamined (else the next young pass walks it all:
        gc.unfreeze()  # 8 ms); a full pass may still collect it
        if enabled:
            gc.enable()


def _source_answer(args, start: float, bar):
    """:func:`_by_source` once the options allow it: the file read by the checker's reader, then the route."""
    from ..certificates.checker import load_instance
    from ..certificates.trusted.common import CheckFailed, UnreadableInput

    try:
        instance = load_instance(args.instance)
    except (UnreadableInput, CheckFailed, OSError):  # the general path's reader says what is wrong with the file
        return None
    import sys

    from ..decide.search.source import answer_by_source

    if bar is not None:
        bar("decide: is the instance a reduction's image? then CaDiCaL on its source formula")
    deadline = None if args.time_limit is None else start + args.time_limit
    return answer_by_source(instance, given=args.U is not None, deadline=deadline,
                            command=" ".join([Path(sys.argv[0]).name] + sys.argv[1:]))


def _decide_general(args, bar) -> int:
    from ..certificates.envelope import write_certificate
    from ..decide.search.pattern_search import decide
    from ..instances import read_instance

    inst = read_instance(args.instance)
    model = bias_class(bias_of(args))
    about = None
    if model["biases"]:  # hidden biases: the inputs with a constant 1 column (the certificate is about them)
        from ..recover.diagnosis import with_constant_input

        inst = with_constant_input(inst)
        about = (str(args.output)[:-5] if str(args.output).endswith(".json") else str(args.output)) + ".instance.json"
    U = None
    if args.U is not None:
        try:
            U = [[x.strip() for x in row.split(",")] for row in args.U.split(";")]
        except AttributeError:  # pragma: no cover - argparse gives a string
            raise InvalidInput("--U must be rows separated by ';' of entries separated by ','") from None

    def show(st):
        bar(f"decide: case {st.get('case', 1)}, round {st['rounds']}, {st['lemmas']} lemmas, {st['lps']} exact LPs")
    res = decide(inst, U=U, k=args.k, method=args.method, engine=args.engine, max_nodes=args.max_nodes,
                 time_limit=args.time_limit, progress=show if bar is not None else None, proof=args.proof,
                 output_bias=model["output_bias"])
    write_certificate(res.certificate, args.output)
    if about is not None:
        from ..instances import write_instance

        write_instance(inst, about)
    st = res.evidence
    work = (f"{st['nodes']} nodes" if st.get("engine", args.engine) == "tree" or "rounds" not in st
            else f"{st['rounds']} solver rounds, {st.get('lemmas', 0)} lemmas")
    lines = [f"{res.status}: certificate ({res.certificate['claim']}) written to {args.output}; {work}, "
             f"{st['lps']} exact LPs", f"checked: {res.summary}"]
    if about is not None:
        lines.append(f"the certificate is about the inputs with a constant 1 column appended, written to {about}")
    return emit(args, {"status": res.status, "claim": res.certificate["claim"], "certificate": str(args.output),
                       "summary": res.summary, "model": res.model, "stats": st, "instance": about or args.instance},
                lines)


def register(sub) -> None:
    """Add ``hardness`` and its sub-commands to the ``exactrelu`` parser."""
    h = sub.add_parser("hardness", help="NP-hardness instances (k = 2) with certificates both ways",
                       description="NP-hardness instances for k = 2 (rank(labels) < k) from CNF / NAE-3SAT formulas.")
    hs = h.add_subparsers(dest="hardness_command", metavar="SUBCOMMAND", parser_class=type(h))
    h.set_defaults(func=lambda args: (h.print_help(), 2)[1])

    p = hs.add_parser("from-cnf", help="reduce a DIMACS formula to a ReLU instance")
    _formula_arg(p)
    p.add_argument("-o", "--output", required=True, help="instance file to write (.json)")
    add_time_limit(p)
    json_command(p, "hardness from-cnf", limited(_from_cnf))

    p = hs.add_parser("random", help="random NAE-3SAT (or 3-CNF) formula reduced to a ReLU instance")
    p.add_argument("--vars", type=positive_int_arg, required=True, help="number of variables")
    p.add_argument("--clauses", type=nonnegative_int_arg, required=True, help="number of clauses")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the formula (default 0)")
    p.add_argument("--kind", choices=("nae", "cnf"), default="nae", help="random NAE-3SAT (default) or random 3-CNF")
    p.add_argument("--planted", action="store_true", help="keep only clauses a hidden assignment satisfies (satisfiable)")
    p.add_argument("--formula-out", help="also write the formula (DIMACS)")
    p.add_argument("-o", "--output", required=True, help="instance file to write (.json)")
    add_time_limit(p)
    json_command(p, "hardness random", limited(_random))

    p = hs.add_parser("lift", help="satisfying assignment -> exact weights and a realizes certificate")
    _formula_arg(p)
    p.add_argument("assignment", help="file with the assignment: DIMACS literals or solver 'v' lines")
    p.add_argument("-o", "--output", required=True, help="certificate file to write")
    p.add_argument("--instance-out", help="also write the instance the certificate is about")
    add_time_limit(p)
    json_command(p, "hardness lift", limited(_lift))

    p = hs.add_parser("decode", help="exact realizing weights -> satisfying assignment of the formula")
    _formula_arg(p)
    p.add_argument("weights", help="a realizes certificate or a JSON object with 'U' and 'V'")
    p.add_argument("-o", "--output", help="write the assignment ('s SATISFIABLE' and a 'v' line)")
    add_time_limit(p)
    json_command(p, "hardness decode", limited(_decode))

    p = hs.add_parser("decide", help="decide a small instance exactly (k units); certify either answer")
    p.add_argument("instance", help="instance file (.json or .npz), m = 1 unless --U is given")
    p.add_argument("--U", help="given output weights, rows ';'-separated, entries ','-separated (default: unknown, m = 1)")
    p.add_argument("-k", type=positive_int_arg, default=2, help="hidden units when U is unknown (default 2)")
    p.add_argument("--method", choices=("auto", "exact"), default="auto", help="LP method (exact: no floating point)")
    p.add_argument("--engine", choices=("auto", "lazy", "tree"), default="auto",
                   help="lazy: SAT solver + exact LP lemmas, hinted refutation; tree: case-tree search; auto "
                        "(default): an instance that is exactly a reduction's image is decided by CaDiCaL on its "
                        "source formula (the refutation carried onto the instance's lemmas), any other by lazy")
    p.add_argument("--proof", choices=("lrat", "drup"), default="lrat",
                   help="where the lazy engine's hints come from: the solver's LRAT trace (default) or its DRUP proof, "
                        "trimmed by exactrelu; the certificate is hinted either way")
    p.add_argument("--max-nodes", type=positive_int_arg, default=None,
                   help="budget: tree nodes, or solver rounds (lazy)")
    p.add_argument("--time-limit", type=seconds_arg, default=None,
                   help="give up (exit 1, nothing claimed) after this many seconds")
    p.add_argument("-v", "--verbose", action="store_true", help="show progress on stderr")
    p.add_argument("-o", "--output", required=True, help="certificate file to write")
    add_bias_argument(p, ". Hidden biases: the inputs with a constant 1 column appended (the certificate is about "
                         "that instance, written beside it); an output bias: c one more free variable of every exact "
                         "LP (lazy engine)")
    json_command(p, "hardness decide", _decide)
