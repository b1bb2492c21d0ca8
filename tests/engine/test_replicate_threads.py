"""run_replicates' threads: each takes the next chunk from one shared iterator."""

from __future__ import annotations

import numpy as np
import pytest

from mlci.engine.bootstrap import run_replicates
from mlci.engine.resampling import make_plan


def _sampler(n_resamples=700):
    # 5,000 samples in 4,990 atoms: blocks of 26 replicates, 27 chunks
    keys = np.arange(5000) % 4990
    return make_plan(5000, n_resamples=n_resamples, rng=3).weights_for(keys, 4990)


@pytest.mark.parametrize("n_jobs", [2, 3, 5])
def test_threads_give_the_single_thread_values(n_jobs):
    values = np.arange(4990.0)

    def evaluate(w):
        return w @ values

    one = run_replicates(evaluate, _sampler(), (), bytes_per_row=8.0, batch=7, n_jobs=1)
    many = run_replicates(evaluate, _sampler(), (), bytes_per_row=8.0, batch=7, n_jobs=n_jobs)
    np.testing.assert_array_equal(one, many)


def test_an_error_in_a_thread_reaches_the_caller():
    calls = []

    def evaluate(w):
        calls.append(len(w))
        if len(calls) == 5:
            raise ZeroDivisionError("chunk 5")
        return w.sum(axis=1)

    with pytest.raises(ZeroDivisionError, match="chunk 5"):
        run_replicates(evaluate, _sampler(), (), bytes_per_row=8.0, batch=7, n_jobs=2)
