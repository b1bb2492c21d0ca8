"""The report's computations on a few threads (issue 25, mlci/report/_tasks.py): the same
tables whatever the threads, a memory budget, warnings recorded per thread, errors."""

from __future__ import annotations

import itertools
import threading
import time
import warnings

import numpy as np
import pytest

import mlci
from mlci.exceptions import IrregularEstimandWarning
from mlci.report._tasks import Tasks, report_workers

pytest.importorskip("jinja2")
pytest.importorskip("matplotlib")


def _tables(ctx):
    return [(s.id, [t["rows"] for t in s.tables]) for s in ctx["sections"] if s.id != "reproduce"]


def _data(seed=0, n=900, k=40):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    spk = rng.integers(0, k, n)
    shift = rng.normal(0, 0.5, k)[spk]
    systems = {
        f"s{j}": 1 / (1 + np.exp(-((0.6 + 0.4 * j) * y + shift + rng.normal(0, 1, n) - 0.5)))
        for j in range(3)
    }
    return y, systems, spk, rng.integers(0, 3, n)


@pytest.mark.filterwarnings("ignore::mlci.FewConditionsWarning")  # AP: scores shift
@pytest.mark.parametrize("conditions", [True, False])
def test_tables_do_not_depend_on_the_threads(conditions):
    # every section (metrics, pairs, curves, calibration, groups, methods) the same on
    # one thread (the calls one after the other) as on 2 and 3 workers
    y, systems, spk, groups = _data()
    opts = dict(kind="score", source="x", n_resamples=60, seed=2, groups=groups)
    if conditions:
        opts["conditions"] = spk
    with mlci.config_context(n_jobs=1):
        assert report_workers(30) == (1, 1)
        one = _tables(mlci.report.build_report(y, systems, **opts))
    for n_jobs in (2, 3):
        with mlci.config_context(n_jobs=n_jobs):
            assert report_workers(30) == (n_jobs, 1)  # the engine on one thread each
            assert _tables(mlci.report.build_report(y, systems, **opts)) == one
    assert {s for s, _ in one} >= {"metrics", "differences", "curves", "calibration", "groups"}


def test_report_workers_share_the_engines_threads():
    with mlci.config_context(n_jobs=4):
        assert report_workers(30) == (4, 1)
        assert report_workers(2) == (2, 1)
        assert report_workers(1) == (1, 4)  # one task: in the caller, on all threads


def _overlaps(spans):
    return any(b[0] < a[1] for a, b in itertools.pairwise(sorted(spans)))


def test_tasks_keep_within_their_memory_budget():
    spans: dict[str, tuple[float, float]] = {}

    def job(name):
        t0 = time.perf_counter()
        time.sleep(0.05)
        spans[name] = (t0, time.perf_counter())
        return name

    with Tasks(3, budget=100) as tasks:
        big = [tasks.submit(job, f"big{i}", memory=70) for i in range(3)]
        small = [tasks.submit(job, f"small{i}", memory=20) for i in range(2)]
        huge = tasks.submit(job, "huge", memory=500)  # more than the budget: runs alone
    assert [f.result() for f in big] == ["big0", "big1", "big2"]
    assert huge.result() == "huge" and all(f.done() for f in small)
    assert not _overlaps([spans[f"big{i}"] for i in range(3)])  # 70 + 70 > 100
    others = [v for k, v in spans.items() if k != "huge"]
    assert not any(_overlaps([spans["huge"], s]) for s in others)
    # a small task ran beside a big one (70 + 20 <= 100): the budget, not one at a time
    pairs = [(f"small{i}", f"big{j}") for i in range(2) for j in range(3)]
    assert any(_overlaps([spans[a], spans[b]]) for a, b in pairs)


def test_tasks_run_in_the_callers_configuration_with_the_engines_share():
    with mlci.config_context(max_memory=1 << 24, n_jobs=4), Tasks(2, n_jobs=2) as tasks:
        got = tasks.submit(mlci.get_config).result()
    assert got["n_jobs"] == 2 and got["max_memory"] == 1 << 23


def test_a_tasks_error_reaches_the_caller_and_drops_the_waiting_tasks():
    started = []

    def fail():
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"), Tasks(2) as tasks:
        bad = tasks.submit(fail)
        slow = lambda i: time.sleep(0.02) or started.append(i)  # noqa: E731
        later = [tasks.submit(slow, i) for i in range(50)]
        bad.result()
    assert any(f.cancelled() for f in later) and len(started) < 50


def test_warnings_are_per_thread():
    # the library's catch_warnings blocks act on their own thread only while the tasks
    # run: a block that records gets its thread's warnings (not the other's), a block
    # that ignores a category does not hide it in the other thread, "error" raises in
    # the thread that warned; warnings outside any block go to the caller's handler
    barrier = threading.Barrier(2, timeout=10)

    def record(text):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", IrregularEstimandWarning)
            barrier.wait()
            for _ in range(2):
                warnings.warn(text, IrregularEstimandWarning, stacklevel=1)
            barrier.wait()
        return [str(w.message) for w in caught]

    def ignore_then_plain():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            barrier.wait()
            warnings.warn("hidden", UserWarning, stacklevel=1)
            barrier.wait()
        warnings.warn("outside", UserWarning, stacklevel=1)

    def fail():
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            warnings.warn("as error", RuntimeWarning, stacklevel=1)

    with warnings.catch_warnings(record=True) as outer:
        warnings.simplefilter("always")
        with Tasks(2) as tasks:
            a, b = tasks.submit(record, "a"), tasks.submit(record, "b")
            assert a.result() == ["a", "a"] and b.result() == ["b", "b"]
            c, d = tasks.submit(ignore_then_plain), tasks.submit(record, "c")
            assert d.result() == ["c", "c"] and c.result() is None
            with pytest.raises(RuntimeWarning, match="as error"):
                tasks.submit(fail).result()
        assert warnings.catch_warnings is not None and warnings.showwarning is not None
    assert [str(w.message) for w in outer] == ["outside"]
    # the process's warnings as they were
    with warnings.catch_warnings(record=True) as after:
        warnings.simplefilter("always")
        warnings.warn("after", UserWarning, stacklevel=1)
    assert [str(w.message) for w in after] == ["after"]
