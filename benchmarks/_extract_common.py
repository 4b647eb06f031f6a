"""What the extraction benchmarks (bench_extract*.py) share: one timed row of ``exactrelu extract`` on a hidden
network: the extraction, the independent check of its ``transcript`` certificate and ``--expect`` (the exact
equivalence of the extracted and the hidden network, its certificate checked), each in wall-clock and CPU seconds
(the machine is shared: CPU seconds are what a run costs, wall seconds what it waited)."""

from __future__ import annotations

import json
import time

from exactrelu.certificates.claims.transcript import verify_transcript
from exactrelu.equiv import functionally_equal
from exactrelu.extract import NetworkOracle, extract
from exactrelu.network import Network


class _Timer:
    """Wall and CPU seconds of a block, stored in ``row[name + "_s"]`` and ``row[name + "_cpu_s"]``."""

    def __init__(self, row: dict, name: str):
        self.row, self.name = row, name

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def __exit__(self, *exc):
        self.row[f"{self.name}_s"] = time.perf_counter() - self.wall
        self.row[f"{self.name}_cpu_s"] = time.process_time() - self.cpu


def time_extract_row(hidden: Network, row: dict, *, check: bool = True, expect: bool = True,
                     expect_limit: float | None = 600, **kw):
    """(row, extraction or None): ``extract(NetworkOracle(hidden), check=False, **kw)`` timed, then its certificate
    checked by the independent checker (timed, unless ``check=False``), then ``--expect`` (timed, unless
    ``expect=False``). A refusal is
    recorded (``ok=False``, its class and message, the queries made) and the benchmark goes on."""
    oracle = NetworkOracle(hidden)
    try:
        with _Timer(row, "extract"):
            res = extract(oracle, check=False, **kw)
    except Exception as exc:  # a benchmark records every refusal and goes on
        row.update(ok=False, error=f"{type(exc).__name__}: {str(exc)[:300]}", queries=oracle.queries)
        return row, None
    summary = None
    if check:
        with _Timer(row, "check"):
            summary = verify_transcript(res.certificate)
    answers = sum(len(block["answers"]) for block in res.certificate["queries"])
    row.update(ok=True, queries=res.queries, answers_certified=answers, complete=answers == res.queries,
               summary=summary, certificate_mb=len(json.dumps(res.certificate)) / 1e6)
    if expect:
        with _Timer(row, "expect"):
            row["expect"] = functionally_equal(res.network, hidden, time_limit=expect_limit).status
    return row, res
