"""One method resolution (issue 20, item 4): ``reduce_ci``'s ``auto`` is ``bootstrap_ci``'s.

The reduced table lays its counts out as samples again (:mod:`mlci.backends.samples`)
and runs the in-memory engine on the kernel and plan ``bootstrap_ci`` builds from the
data, so every door gives the same method, ``method_reason``, warnings and interval
for the same seed: exact equality is asserted (the same numbers, not a tolerance).
The reference is ``mlci.bootstrap_ci`` on the same data; its own intervals are checked
against R and statsmodels elsewhere (tests/r/, tests/engine/).  Designs: independent
samples, few (6) and many (60) conditions, 0-3 errors near the bound; metrics accuracy,
recall, f1, balanced accuracy, mcc, a mean of 0/1 values, mse of few distinct values,
roc_auc (binned); pandas, a DuckDB relation and polars.  The one documented exception:
an additive metric of other values than 0/1 summed per condition (BCa, with its reason).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import mlci
from mlci.backends import samples as samples_mod

duckdb = pytest.importorskip(
    "duckdb", reason="duckdb is not installed (pip install 'mlci[duckdb]')"
)

FAST = {"n_resamples": 200, "rng": 5}


def _decisions(n: int, n_errors: int | None, n_conditions: int | None, seed: int) -> pd.DataFrame:
    """Labels and decisions: ``n_errors`` errors (None: about 20%), conditions with a
    condition effect on the errors."""
    g = np.random.default_rng(seed)
    y = (g.random(n) < 0.4).astype(int)
    cond = g.integers(0, n_conditions, n) if n_conditions else np.zeros(n, dtype=int)
    if n_errors is None:
        p_err = 0.2 * np.exp(g.normal(0, 0.5, max(n_conditions or 1, 1)))[cond]
        wrong = g.random(n) < np.clip(p_err, 0, 0.9)
    else:
        wrong = np.zeros(n, dtype=bool)
        wrong[g.choice(n, n_errors, replace=False)] = True
    pred = np.where(wrong, 1 - y, y)
    return pd.DataFrame({"y": y, "p": pred, "c": np.array([f"c{k:02d}" for k in cond])})


def _both(call_reduced, call_memory):
    """Both results and the warnings each raised (category, message)."""
    out = []
    for call in (call_reduced, call_memory):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = call()
        out.append((res, sorted((w.category.__name__, str(w.message)) for w in caught)))
    return out


def assert_same(red, mem):
    (r, rw), (m, mw) = red, mem
    assert r.method == m.method
    assert r.details["method_reason"] == m.details["method_reason"]
    assert r.estimate == m.estimate
    assert r.confidence_interval == m.confidence_interval
    assert rw == mw
    assert r.scheme == m.scheme and r.n_samples == m.n_samples


DESIGNS = {
    "iid": (400, None, None),
    "few-conditions": (300, None, 6),
    "many-conditions": (1200, None, 60),
    "iid-0-errors": (150, 0, None),
    "iid-1-error": (100, 1, None),
    "iid-3-errors": (300, 3, None),
    "conditions-2-errors": (240, 2, 12),
    "seed10-19-like": (103, 4, 6),
}


@pytest.mark.parametrize("design", list(DESIGNS))
@pytest.mark.parametrize("metric", ["accuracy", "recall", "f1", "balanced_accuracy", "mcc"])
def test_decision_metrics_same_as_bootstrap_ci(design, metric):
    n, n_errors, n_conditions = DESIGNS[design]
    df = _decisions(n, n_errors, n_conditions, seed=len(design))
    d = {"conditions": "c"} if n_conditions else {}
    mem_design = {"conditions": df["c"].to_numpy()} if n_conditions else {}
    got = _both(
        lambda: mlci.reduce_ci(df, "y", "p", metric=metric, **d, **FAST),
        lambda: mlci.bootstrap_ci(df["y"], df["p"], metric=metric, **mem_design, **FAST),
    )
    assert_same(*got)


def test_the_rules_are_reached():
    # not every design above ends in BCa: the rules of auto are what the table now runs
    methods = {}
    for design, (n, n_errors, n_conditions) in DESIGNS.items():
        df = _decisions(n, n_errors, n_conditions, seed=len(design))
        d = {"conditions": "c"} if n_conditions else {}
        for metric in ("accuracy", "f1", "balanced_accuracy"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                methods[design, metric] = mlci.reduce_ci(
                    df, "y", "p", metric=metric, **d, **FAST
                ).method
    assert methods["iid", "accuracy"] == "wilson_modified"
    assert methods["few-conditions", "accuracy"] == "logit_t"
    # 4 errors in 103 over 6 conditions: near the bound below 8 conditions, Korn &
    # Graubard's widened to hold the logit t (session 11; the logit t before)
    assert methods["seed10-19-like", "accuracy"] == "korn_graubard"
    assert methods["iid", "f1"] == "studentized"
    assert methods["iid-1-error", "balanced_accuracy"] == "mover_wilson"
    assert "bca" not in set(methods.values())


def test_duckdb_relation_and_polars_give_the_same(tmp_path):
    df = _decisions(600, None, 20, seed=3)
    con = duckdb.connect()
    con.register("preds", df)
    kw = {"metric": "f1", "conditions": "c", **FAST}
    res = mlci.reduce_ci(df, "y", "p", **kw)
    rel = mlci.reduce_ci(con.sql("SELECT * FROM preds"), "y", "p", **kw)
    assert rel.details["engine"] == "duckdb"
    assert rel.confidence_interval == res.confidence_interval and rel.method == res.method
    if _has("pyarrow"):
        df.to_parquet(tmp_path / "a.parquet")
        got = mlci.reduce_ci(str(tmp_path / "a.parquet"), "y", "p", **kw)
        assert got.confidence_interval == res.confidence_interval
    if _has("polars"):
        import polars as pl

        lazy = mlci.reduce_ci(pl.from_pandas(df).lazy(), "y", "p", **kw)
        assert lazy.details["engine"] == "polars"
        assert lazy.confidence_interval == res.confidence_interval


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def test_row_order_and_batch_size_do_not_change_the_interval():
    # a small table with few samples per atom draws per sample: the table's samples come
    # in one canonical order (by condition, then the inputs), whatever the engine's order
    df = _decisions(40, None, None, seed=8)
    kw = {"metric": "mcc", "method": "studentized", **FAST}
    a = mlci.reduce_ci(df, "y", "p", **kw)
    b = mlci.reduce_ci(df.sample(frac=1.0, random_state=1), "y", "p", **kw)
    with mlci.config_context(batch=7):
        c = mlci.reduce_ci(df, "y", "p", **kw)
    assert a.confidence_interval == b.confidence_interval == c.confidence_interval
    # ... and that order is bootstrap_ci's on the data sorted so
    s = df.sort_values(["y", "p"], kind="stable")
    mem = mlci.bootstrap_ci(s["y"], s["p"], **kw)
    assert a.confidence_interval == mem.confidence_interval


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
@pytest.mark.parametrize("n_conditions", [6, 40])
def test_mean_of_zero_one_values_over_conditions(n_conditions, alternative):
    # a sums table of 0/1 values holds each condition's ones and zeros: laid out as
    # samples, the proportion rules of bootstrap_ci (logit t, Korn & Graubard near 1)
    df = _decisions(500, 3 if n_conditions == 40 else None, n_conditions, seed=2)
    df["ok"] = (df["y"] == df["p"]).astype(int)
    table = mlci.reduce_table(df, "ok", metric="mean", conditions="c")
    assert table.kind == "sums"
    got = _both(
        lambda: table.bootstrap_ci(alternative=alternative, **FAST),
        lambda: mlci.bootstrap_ci(
            df["ok"], metric="mean", conditions=df["c"], alternative=alternative, **FAST
        ),
    )
    assert_same(*got)
    assert got[0][0].method in ("logit_t", "korn_graubard")


def test_additive_metric_of_values_over_conditions_keeps_bca_with_its_reason():
    g = np.random.default_rng(0)
    df = pd.DataFrame({"t": g.normal(size=300), "c": g.integers(0, 30, 300)})
    df["p"] = df["t"] + g.normal(size=300)
    res = mlci.reduce_ci(df, "t", "p", metric="mse", conditions="c", **FAST)
    assert res.method == "bca"
    assert res.details["method_reason"].startswith("bca: a table of per-condition sums of mse")
    bca = mlci.reduce_ci(df, "t", "p", metric="mse", conditions="c", method="bca", **FAST)
    assert res.confidence_interval == bca.confidence_interval
    # a linearized method asked for by name: an error naming the method and why
    with pytest.raises(ValueError, match=r"method='studentized' is unavailable here: a table of"):
        mlci.reduce_ci(df, "t", "p", metric="mse", conditions="c", method="studentized", **FAST)


def test_additive_metric_of_few_values_without_conditions_is_in_memorys():
    # mse of rounded values without conditions: a table of distinct rows, laid out again
    g = np.random.default_rng(1)
    t, p = g.integers(0, 5, 500).astype(float), g.integers(0, 5, 500).astype(float)
    df = pd.DataFrame({"t": t, "p": p})
    got = _both(
        lambda: mlci.reduce_ci(df, "t", "p", metric="mse", **FAST),
        lambda: mlci.bootstrap_ci(t, p, metric="mse", **FAST),
    )
    assert_same(*got)
    assert got[0][0].method == "studentized"


@pytest.mark.parametrize("method", ["studentized", "t", "logit_t", "wilson"])
def test_linearized_methods_by_name_on_a_table(method):
    df = _decisions(300, None, 10, seed=4)
    d = {"conditions": "c"} if method != "wilson" else {}
    mem_d = {"conditions": df["c"].to_numpy()} if method != "wilson" else {}
    metric = "accuracy"
    res = mlci.reduce_ci(df, "y", "p", metric=metric, method=method, **d, **FAST)
    mem = mlci.bootstrap_ci(df["y"], df["p"], metric=metric, method=method, **mem_d, **FAST)
    assert res.method == mem.method and res.confidence_interval == mem.confidence_interval


@pytest.mark.parametrize(
    ("auc", "n_conditions"),
    [(0.8, None), (0.999, None), (0.8, 25)],
    ids=["iid", "near-1", "conditions"],
)
def test_roc_auc_is_bootstrap_cis_on_the_binned_scores(auc, n_conditions):
    # the table's interval is bootstrap_ci's (auto: the studentized or the analytic AUC)
    # on the binned scores, widened by the certified binning bound
    g = np.random.default_rng(6)
    n = 400
    y = (g.random(n) < 0.3).astype(int)
    from scipy.stats import norm

    shift = np.sqrt(2) * norm.ppf(auc)
    s = g.normal(size=n) + shift * y
    cond = g.integers(0, n_conditions or 1, n)
    df = pd.DataFrame({"y": y, "s": s, "c": cond})
    d = {"conditions": "c"} if n_conditions else {}
    table = mlci.reduce_table(df, "y", "s", metric="roc_auc", score_bins=64, **d)
    binned = table.score_bin(s).astype(float)
    mem_d = {"conditions": cond} if n_conditions else {}
    (r, rw), (m, mw) = _both(
        lambda: table.bootstrap_ci(**FAST),
        lambda: mlci.bootstrap_ci(y, binned, metric="roc_auc", **mem_d, **FAST),
    )
    assert r.method == m.method and rw == mw
    assert r.details["method_reason"].startswith(m.details["method_reason"])
    assert r.details["method_reason"].endswith("widened by the score-binning error bound")
    inner = r.details["binned_interval"]
    assert (inner["low"], inner["high"]) == tuple(m.confidence_interval)
    # read again at another level: still widened
    again = r.interval(confidence_level=0.9)
    assert (
        again.details["binned_interval"]["low"] - r.details["error_bound"]
        <= again.confidence_interval.low + 1e-15
    )


def test_above_the_size_limit_keeps_the_tables_bca_with_its_reason(monkeypatch):
    df = _decisions(400, None, 30, seed=9)
    monkeypatch.setattr(samples_mod, "MAX_SAMPLES", 100)
    res = mlci.reduce_ci(df, "y", "p", metric="accuracy", conditions="c", **FAST)
    assert res.method == "bca"
    assert "a reduced table of 400 samples, more than the 100" in res.details["method_reason"]
    bca = mlci.reduce_ci(df, "y", "p", metric="accuracy", conditions="c", method="bca", **FAST)
    assert res.confidence_interval == bca.confidence_interval
    with pytest.raises(ValueError, match=r"method='logit_t' is unavailable here: a reduced table"):
        mlci.reduce_ci(df, "y", "p", metric="accuracy", conditions="c", method="logit_t", **FAST)
