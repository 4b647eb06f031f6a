"""A sweep task that kills the worker process running it (imported by name in the workers of one test)."""

import os

from exactrelu.sweep import REQUIRED, task


@task("test-crash", params={"n": REQUIRED}, options={}, doc="exits its worker process at once")
def crash(p, seed):
    os._exit(7)
