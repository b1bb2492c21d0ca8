"""mlci.config_context / set_config / get_config: the engine knobs that never change a result."""

from __future__ import annotations

import inspect
import threading

import numpy as np
import pytest

import mlci
from mlci.engine.bootstrap import run_replicates
from mlci.engine.resampling import make_plan
from mlci.feedback import current_progress, reports_progress
from mlci.inputs import DEFAULT_MAX_MEMORY, engine_options

DEFAULTS = {"batch": None, "n_jobs": None, "max_memory": 512 * 2**20, "progress": False}

Y = np.arange(400) % 2
P = np.where(np.arange(400) % 7 == 0, 1 - Y, Y)
S = Y + np.random.default_rng(0).normal(size=400)
COND = np.arange(400) % 37


def test_defaults_and_get_config_is_a_copy():
    assert mlci.get_config() == DEFAULTS
    mlci.get_config()["batch"] = 3
    assert mlci.get_config()["batch"] is None


def test_context_is_nestable_and_restored_on_exception():
    with mlci.config_context(batch=64):
        with mlci.config_context(n_jobs=1):
            assert mlci.get_config() == {**DEFAULTS, "batch": 64, "n_jobs": 1}
            with mlci.config_context(batch=None):  # back to automatic inside
                assert mlci.get_config()["batch"] is None
        assert mlci.get_config() == {**DEFAULTS, "batch": 64}
        with pytest.raises(RuntimeError), mlci.config_context(max_memory=1 << 20):
            raise RuntimeError
        assert mlci.get_config()["max_memory"] == DEFAULTS["max_memory"]
    assert mlci.get_config() == DEFAULTS


def test_set_config_until_set_again():
    try:
        mlci.set_config(n_jobs=2, progress=True)
        assert mlci.get_config() == {**DEFAULTS, "n_jobs": 2, "progress": True}
        mlci.set_config(batch=8)  # left out: unchanged
        assert mlci.get_config() == {**DEFAULTS, "n_jobs": 2, "progress": True, "batch": 8}
    finally:
        mlci.set_config(batch=None, n_jobs=None, max_memory=None, progress=False)
    assert mlci.get_config() == DEFAULTS


def test_per_thread():
    seen = {}

    def other():
        seen["start"] = mlci.get_config()["batch"]  # a new thread starts from the defaults
        mlci.set_config(batch=5)
        seen["own"] = mlci.get_config()["batch"]

    with mlci.config_context(batch=64):
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert mlci.get_config()["batch"] == 64  # not changed by the other thread
    assert seen == {"start": None, "own": 5}


@pytest.mark.parametrize(
    ("kwargs", "exc", "name"),
    [
        ({"batch": 0}, ValueError, "`batch`"),
        ({"batch": 2.5}, TypeError, "`batch`"),
        ({"batch": True}, TypeError, "`batch`"),
        ({"n_jobs": 0}, ValueError, "`n_jobs`"),
        ({"n_jobs": "all"}, TypeError, "`n_jobs`"),
        ({"max_memory": 1000}, ValueError, "`max_memory`"),
        ({"max_memory": "1GB"}, TypeError, "`max_memory`"),
        ({"progress": "yes"}, TypeError, "`progress`"),
        ({"progress": None}, TypeError, "`progress`"),
    ],
)
def test_bad_values_refused_naming_the_option(kwargs, exc, name):
    with pytest.raises(exc, match=name):
        mlci.set_config(**kwargs)
    with pytest.raises(exc, match=name), mlci.config_context(**kwargs):
        pass  # pragma: no cover - refused on entry
    with pytest.raises(TypeError, match="unexpected keyword"):
        mlci.set_config(n_resamples=10)  # only the knobs that never change a result
    assert mlci.get_config() == DEFAULTS


def test_drivers_read_the_knobs_where_not_given():
    with mlci.config_context(batch=16, n_jobs=1, max_memory=1 << 20):
        assert engine_options() == engine_options(16, 1, 1 << 20)
        # explicit arguments win
        assert engine_options(batch=32, n_jobs=2).batch == 32
        assert engine_options(batch=32, n_jobs=2).n_jobs == 2
        assert engine_options(max_memory=1 << 17).max_memory == 1 << 17
        assert engine_options(max_memory=DEFAULT_MAX_MEMORY).max_memory == 1 << 20
    # 100 samples: blocks of 512 replicates; automatic chunks of 1310 rows -> 2 blocks
    sampler = make_plan(100, n_resamples=2000, rng=0).weights_for()
    sizes = []

    def evaluate(w):
        sizes.append(len(w))
        return w.sum(axis=1)

    run_replicates(evaluate, sampler, (), bytes_per_row=800.0, n_jobs=1)
    assert sizes == [1024, 976]
    sizes.clear()
    with mlci.config_context(batch=10, n_jobs=1):  # one block a chunk
        run_replicates(evaluate, sampler, (), bytes_per_row=800.0)
        assert sizes == [512, 512, 512, 464]
        sizes.clear()
        run_replicates(evaluate, sampler, (), bytes_per_row=800.0, batch=2048)
        assert sizes == [2000]


def test_progress_from_the_config():
    @reports_progress
    def driver(*, progress=False):
        return current_progress() is not None

    assert not driver()
    with mlci.config_context(progress=True):
        assert driver() and not driver(progress=False)  # explicit False wins
    assert driver(progress=True)


@pytest.mark.parametrize(
    "config",
    [
        {"batch": 1},
        {"batch": 7, "n_jobs": 1},
        {"n_jobs": 3, "max_memory": 1 << 16},
        {"max_memory": 1 << 30, "progress": True},
    ],
)
def test_a_result_is_bit_identical_under_any_config(config):
    def results():
        levels = mlci.bootstrap_ci(Y, P, metric="accuracy", n_resamples=300, rng=1)
        bca = mlci.bootstrap_ci(Y, S, metric="roc_auc", method="bca", conditions=COND,
                                n_resamples=300, rng=2)  # fmt: skip
        cmp = mlci.compare(Y, {"a": P, "b": 1 - P}, metric="f1", n_resamples=300, rng=3)
        perm = mlci.permutation_test(Y, P, 1 - P, metric="accuracy", n_resamples=300, rng=4)
        return [
            *levels.confidence_interval,
            levels.standard_error,
            *bca.confidence_interval,
            *cmp.differences[0].confidence_interval,
            perm.pvalue,
        ]

    plain = results()
    with mlci.config_context(**config):
        configured = results()
    assert [float(x).hex() for x in configured] == [float(x).hex() for x in plain]


# ------------------------------------------------- the knobs left the drivers' signatures
def test_knobs_are_not_parameters_of_a_driver():
    """Issue 23: no public function or method takes an engine knob but the two that set
    them (the signatures keep what changes a result)."""
    knobs = {"batch", "n_jobs", "max_memory", "progress"}
    found = []
    for name in mlci.__all__:
        obj = getattr(mlci, name)
        members = [(name, obj)]
        if inspect.isclass(obj):
            members += [(f"{name}.{a}", getattr(obj, a)) for a in dir(obj) if not a.startswith("_")]
        for qual, f in members:
            if callable(f) and name not in ("config_context", "set_config"):
                try:
                    params = inspect.signature(f).parameters
                except (TypeError, ValueError):
                    continue
                if knobs & set(params):
                    found.append(qual)
    assert not found, f"engine knobs still in the signature of {found}"


def test_a_knob_keyword_is_deprecated_and_still_works():
    """For one deprecation cycle: the old keyword warns at the caller's line, naming
    mlci.config_context, and does what the configuration does (bit-identical)."""
    plain = mlci.bootstrap_ci(Y, P, metric="accuracy", n_resamples=300, rng=1)
    with pytest.warns(FutureWarning, match=r"mlci\.config_context\(batch=\.\.\., n_jobs") as w:
        old = mlci.bootstrap_ci(Y, P, metric="accuracy", n_resamples=300, rng=1, batch=7, n_jobs=1)
    assert w[0].filename == __file__
    assert old.confidence_interval == plain.confidence_interval
    assert mlci.get_config() == DEFAULTS  # set for the call only


def test_a_deprecated_knob_keyword_sets_the_config_for_the_call():
    from mlci.inputs import knobs_in_config

    @knobs_in_config
    def driver(x, *, rng=None):
        return mlci.get_config()

    with pytest.warns(FutureWarning, match="progress"):
        assert driver(1, progress=True)["progress"] is True
    # the old "not given" values set nothing: an outer context stays in force
    with mlci.config_context(batch=64, max_memory=1 << 20), pytest.warns(FutureWarning):
        got = driver(1, batch=None, max_memory=DEFAULT_MAX_MEMORY, n_jobs=None)
    assert (got["batch"], got["max_memory"]) == (64, 1 << 20)
    # a bad value is refused naming the knob, as by config_context
    with pytest.warns(FutureWarning), pytest.raises(ValueError, match="`batch` must be"):
        driver(1, batch=0)
    with pytest.warns(FutureWarning), pytest.raises(TypeError, match="`progress` must be"):
        mlci.bootstrap_ci(Y, P, metric="accuracy", progress="yes")
    # any other unknown keyword is still the function's own TypeError
    with pytest.raises(TypeError, match="unexpected keyword argument 'bacth'"):
        driver(1, bacth=3)
    assert str(inspect.signature(driver)) == "(x, *, rng=None)"
