"""A sweep's directory: results.jsonl (one row per task, appended atomically), certs/, results.csv.

Only the process that runs the sweep writes here, never a worker. A row is one JSON line written by
one ``os.write`` call on a file opened for appending, so a row is either entirely there or (if the
process is killed inside that call) a torn last line that :func:`read_rows` drops and the next
``--resume`` runs again. A certificate is written to ``certs/ID.json`` (through a temporary file and
``os.replace``) before its row, so a row that names a certificate always has it.

>>> import tempfile
>>> d = tempfile.mkdtemp()
>>> log = ResultLog(d)
>>> log.append({"id": "a1", "status": "certified"})
>>> log.close()
>>> [r["id"] for r in read_rows(d)]
['a1']
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Any, Iterable

from ..errors import InvalidInput
from ..io.files import atomic_output, write_text_atomic

__all__ = ["ResultLog", "read_rows", "write_table", "table_columns", "ROWS", "TABLE", "CERTS", "SPEC", "RUNS"]

ROWS, TABLE, CERTS, SPEC, RUNS = "results.jsonl", "results.csv", "certs", "spec.toml", "runs.jsonl"
#: Columns of results.csv before the task's parameters, between parameters and figures, and last.
HEAD = ["id", "task", "seed"]
MIDDLE = ["status", "outcome", "method", "reason", "seconds", "cpu_seconds"]
TAIL = ["checker", "certificate", "worker", "attempts"]


def read_rows(directory: str | os.PathLike, *, repair: bool = False) -> list[dict[str, Any]]:
    """The rows of ``DIR/results.jsonl`` (first occurrence of each id), dropping a torn last line.

    With ``repair`` the torn line is also cut from the file, so that appending continues cleanly.
    """
    path = Path(directory) / ROWS
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc}") from None
    end = data.rfind(b"\n") + 1
    if end < len(data) and repair:
        with open(path, "r+b") as fh:
            fh.truncate(end)
    rows, seen = [], set()
    for number, line in enumerate(data[:end].splitlines(), 1):
        try:
            row = json.loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise InvalidInput(f"{path}: line {number} is not a JSON row") from None
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            raise InvalidInput(f"{path}: line {number} is not a row (a JSON object with an 'id')")
        if row["id"] not in seen:
            seen.add(row["id"])
            rows.append(row)
    return rows


class ResultLog:
    """Appends rows to ``DIR/results.jsonl`` (and certificates to ``DIR/certs/``), one atomic write each."""

    def __init__(self, directory: str | os.PathLike):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.directory / ROWS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, row: dict[str, Any]) -> None:
        """Write ``row`` (its ``certificate``, if any, goes to certs/ID.json and the row names the file)."""
        cert = row.pop("certificate", None)
        if cert is not None:
            row["certificate"] = self._write_certificate(row["id"], cert)
        line = (json.dumps(row, separators=(",", ":")) + "\n").encode()
        written = os.write(self._fd, line)
        if written != len(line):  # pragma: no cover - a full disk; the torn line is dropped on --resume
            raise OSError(f"short write to {self.directory / ROWS}")

    def _write_certificate(self, rid: str, cert: dict) -> str:
        folder = self.directory / CERTS
        folder.mkdir(exist_ok=True)
        write_text_atomic(folder / f"{rid}.json", json.dumps(cert, indent=1) + "\n", what="certificate")
        return f"{CERTS}/{rid}.json"

    def close(self) -> None:
        if self._fd is not None:
            os.fsync(self._fd)
            os.close(self._fd)
            self._fd = None


def _first_seen(keys: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(keys))


def table_columns(param_keys: list[str], rows: list[dict]) -> list[str]:
    """The columns of results.csv: ids, parameters, status, then timings (``t_PHASE``), figures, provenance."""
    timings = _first_seen(k for r in rows for k in r.get("timings", {}))
    metrics = _first_seen(k for r in rows for k in r.get("metrics", {}) if k not in param_keys)
    return HEAD + param_keys + MIDDLE + [f"t_{k}" for k in timings] + metrics + TAIL


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return value


def write_table(path: str | os.PathLike, param_keys: list[str], rows: list[dict]) -> Path:
    """Write results.csv: one row per task, in the order given (tidy: one column per variable)."""
    path = Path(path)
    columns = table_columns(param_keys, rows)
    with atomic_output(path, what="results table") as fh:
        out = csv.writer(fh)
        out.writerow(columns)
        for r in rows:
            flat = {**{k: r.get(k) for k in HEAD + MIDDLE + TAIL}, **r.get("params", {}), **r.get("metrics", {}),
                    **{f"t_{k}": v for k, v in r.get("timings", {}).items()}}
            out.writerow([_cell(flat.get(c)) for c in columns])
    return path
