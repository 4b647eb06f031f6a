"""``exactrelu prove [NAME ...] [--all]``: run the machine-checked claims, print a table.

Exit status 0 when every selected claim is proved, 1 when one fails (or crashes), 2 for an
unknown name or a missing selection. ``--write DIR`` saves one JSON record per claim,
``--json`` prints ``{"claims": [records], "proved": p, "total": t}`` instead of the table.

>>> from exactrelu.cli import main
>>> main(["prove", "sign_ambiguity"])  # doctest: +ELLIPSIS
claim                 result  time      what
sign_ambiguity        PASS    ...
1 of 1 claims proved
0
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import InvalidInput
from ..io.files import write_text_atomic
from ._limit import add_time_limit, limited
from ._report import emit, json_command

__all__ = ["register", "run"]


def register(sub) -> None:
    p = sub.add_parser("prove", help="run the machine-checked claims (proofs/) and print pass/fail",
                       description="Run the machine-checked claims the algorithms rely on (SymPy and exact "
                                   "arithmetic).")
    p.add_argument("names", nargs="*", metavar="NAME", help="claims to run (see --list)")
    p.add_argument("--all", action="store_true", help="run every claim")
    p.add_argument("--list", action="store_true", help="list the claims and exit")
    p.add_argument("--write", type=Path, metavar="DIR", help="write one JSON record per claim into DIR")
    p.add_argument("--proofs-dir", type=Path, metavar="DIR",
                   help="also load proof files from DIR (default: the checkout's proofs/ when present)")
    add_time_limit(p)
    json_command(p, "prove", limited(run, what="the claims were all run"))


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def run(args: argparse.Namespace) -> int:
    try:
        from ..theorems.registry import discover, record_json, run_proof
        found = dict(discover(args.proofs_dir if args.proofs_dir else True))
    except ImportError as exc:  # SymPy (or hypothesis) missing
        raise InvalidInput(f"the proofs need {exc.name}: pip install 'exactrelu[proofs]'") from None
    if args.list:
        return emit(args, {"claims": [{"name": name, "claim": mod.CLAIM, "source": mod.SOURCE}
                                      for name, mod in found.items()]},
                    [f"{name:<22}{mod.CLAIM}" for name, mod in found.items()])
    if args.all:
        names = list(found)
    elif args.names:
        unknown = [n for n in args.names if n not in found]
        if unknown:
            raise InvalidInput(f"unknown claim(s) {', '.join(unknown)}; available: {', '.join(found)}")
        names = list(dict.fromkeys(args.names))
    else:
        raise InvalidInput(f"name one or more claims or use --all; available: {', '.join(found)}")
    results = []
    if not args.json:
        print(f"{'claim':<22}{'result':<8}{'time':<10}what")
    for name in names:
        res = run_proof(name, found[name])
        results.append(res)
        if not args.json:
            print(f"{name:<22}{'PASS' if res.passed else 'FAIL':<8}{res.seconds:<10.2f}{_short(res.claim, 90)}")
            if res.error:
                print(f"{'':<22}-> {_short(res.error, 200)}")
            sys.stdout.flush()
    if args.write:
        args.write.mkdir(parents=True, exist_ok=True)
        for res in results:
            write_text_atomic(args.write / f"{res.name}.json", json.dumps(record_json(res), indent=1) + "\n",
                              what="proof record")
    proved = sum(r.passed for r in results)
    return emit(args, {"claims": [record_json(r) for r in results], "proved": proved, "total": len(results)},
                f"{proved} of {len(results)} claims proved", ok=proved == len(results))
