import os

from hypothesis import HealthCheck, settings

# Hypothesis profiles (docs/testing.md). "ci", the default: few examples, derandomized, so that every run of the
# suite draws the same examples (a red CI run is reproducible, and green means the same thing every time); no
# example database is read or written. "thorough" (HYPOTHESIS_PROFILE=thorough): random and 20x the examples,
# for local runs that hunt new counterexamples; add what it finds as an @example to the property.
settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True, database=None,
                          print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=500, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

import atexit
import shutil
import tempfile

import pytest

# The lazy engine's cache of compiled cluster shapes (exactrelu/decide/search/lemma_cache.py) goes to a directory of this
# run, not to ~/.cache; subprocesses (the CLI tests) inherit it. A test about the cache sets its own.
if "EXACTRELU_CACHE" not in os.environ:
    _CACHE = tempfile.mkdtemp(prefix="exactrelu-test-cache-")
    os.environ["EXACTRELU_CACHE"] = _CACHE
    atexit.register(shutil.rmtree, _CACHE, True)

#: Thread variables that Dask's local cluster writes into the parent process's environment; a test that
#: starts one must not change how BLAS threads are chosen in the tests (and doctests) after it.
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "EXACTRELU_BLAS_THREADS")


@pytest.fixture(autouse=True)
def _restore_thread_variables():
    saved = {k: os.environ.get(k) for k in _THREAD_VARS}
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
