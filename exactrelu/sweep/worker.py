"""What runs on a worker: one task in, one row out (plain JSON values both ways).

:func:`run_task` is what the executor calls. It receives only strings, ints and dicts of them (FLINT
objects do not pickle, and a Dask worker may be on another machine), runs the task, then runs the
independent checker on the task's certificate: a row says ``certified`` only if the checker accepted
it here. It never raises for anything the task does: every outcome is a row.

>>> params = get_task("recover").fill({"d": 3, "k": 2, "n": 40}, "example")  # every parameter, defaults filled in
>>> row = run_task({"id": "x", "task": "recover", "module": "exactrelu.sweep.tasks", "params": params, "seed": 0})
>>> row["status"], row["outcome"], row["checker"]
('certified', 'realizes', 'realizes: 40 samples x 2 outputs equal exactly (k=2, d=3, activation degree 1)')
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from typing import Any

from ..errors import CertificateInvalid, ExactReluError
from .tasks import get_task

__all__ = ["run_task", "init_worker", "apply_limits", "STATUSES"]

#: The status of a row.
STATUSES = ("certified", "refused", "failed")
_REASON_CHARS = 500


def init_worker(main_pid: int | None = None) -> None:
    """Process-pool initializer: Ctrl-C reaches the parent only, so no task is ever cut half-way; and the
    worker exits by itself once the sweep's process ``main_pid`` is gone (killed with SIGKILL, say), instead
    of waiting for work forever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if main_pid is not None:
        threading.Thread(target=_exit_with, args=(main_pid,), daemon=True, name="exactrelu-sweep-watch").start()


def _exit_with(pid: int, every: float = 1.0) -> None:
    while True:
        time.sleep(every)
        if not _alive(pid):
            os._exit(3)


_PROC = os.path.exists("/proc/self/stat")


def _alive(pid: int) -> bool:
    """Is process ``pid`` running? A zombie is not (it died; its parent has not collected it yet)."""
    if not _PROC:  # pragma: no cover - not Linux: ask the kernel (a zombie then counts as alive)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False


def apply_limits(env: dict[str, str]) -> None:
    """Take the limits of the sweep's process (``EXACTRELU_MAX_*``, :func:`exactrelu.limits.explicit_limits`) in this
    worker, for the library and the checker alike: a Dask worker on another machine, or a process-pool worker that
    did not inherit a ``set_limit`` of the parent, then refuses and accepts exactly what the parent would."""
    from .. import limits
    from ..certificates.trusted import common

    for var, value in env.items():
        if not (var.startswith("EXACTRELU_MAX_") and isinstance(value, str)) or os.environ.get(var) == value:
            continue
        os.environ[var] = value
        name = var[len("EXACTRELU_MAX_"):].lower()
        limits._limits.pop(name, None)  # read again from the environment, by both
        common._limits.pop(name, None)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or "(no message)"
    text = f"{type(exc).__name__}: {text}"
    return text if len(text) <= _REASON_CHARS else text[: _REASON_CHARS - 3] + "..."


def run_task(payload: dict[str, Any]) -> dict[str, Any]:
    """Run one task and return its row: ``payload`` has ``id``, ``task``, ``module``, ``params``, ``seed``,
    and optionally ``keep_certificate`` (the certificate then travels back in ``row["certificate"]``)."""
    apply_limits(payload.get("limits") or {})
    t0, c0 = time.perf_counter(), time.thread_time()
    row: dict[str, Any] = {"id": payload["id"], "task": payload["task"], "seed": payload["seed"],
                           "params": payload["params"], "status": "failed", "outcome": "", "method": "", "reason": "",
                           "timings": {}, "metrics": {}, "checker": "",
                           "worker": f"{socket.gethostname()}:{os.getpid()}"}
    try:
        out = get_task(payload["task"], payload.get("module")).run(dict(payload["params"]), payload["seed"])
    except ExactReluError as exc:
        row.update(status="refused", reason=_one_line(exc))
    except Exception as exc:  # noqa: BLE001 - a bug or a resource error in one task is that row's failure
        row.update(status="failed", reason=_one_line(exc))
    else:
        row.update(outcome=out.outcome, method=out.method, timings=dict(out.timings), metrics=dict(out.metrics))
        if out.certificate is None:
            row.update(status="refused", reason=out.reason or "no certificate")
        else:
            _check(row, out, payload.get("keep_certificate", False))
    row["seconds"], row["cpu_seconds"] = time.perf_counter() - t0, time.thread_time() - c0
    return row


def _check(row: dict, out, keep: bool) -> None:
    """The independent checker decides whether the row is certified."""
    from ..certificates.envelope import verify

    t = time.perf_counter()
    try:
        row["checker"] = verify(out.certificate, out.instance)
    except CertificateInvalid as exc:
        row.update(status="failed", reason=f"the independent checker rejected the certificate: {_one_line(exc)}")
    except Exception as exc:  # noqa: BLE001 - e.g. a task that returned no instance
        row.update(status="failed", reason=f"the certificate could not be checked: {_one_line(exc)}")
    else:
        row["status"] = "certified"
    if keep:  # kept when rejected too: it is the evidence of the failure
        row["certificate"] = out.certificate
    row["timings"]["independent_check"] = time.perf_counter() - t
