import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

import pytest

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
