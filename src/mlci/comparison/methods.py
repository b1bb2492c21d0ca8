"""Evaluating methods, not systems: several training runs (seeds, training bootstraps).

A method's result varies with the training seed and the training data, not only with
the test set.  The seed README's recipe: train several systems (different seeds, and
optionally bootstrap resamples of the training data), bootstrap the test set for each,
and pool every run's bootstrap values into one distribution; its percentiles give an
interval that reflects seed, training-data and test-data variability.

* :func:`pooled_ci` pools the runs (all runs on the *same* test replicates, so run-to-run
  differences are not blurred by test-set noise) and reports the parts: the between-run
  spread of the estimate and the test-set spread within a run.
* :func:`compare_methods` compares two methods that each have several runs, paired over
  test samples, and matched (run ``i`` of A with run ``i`` of B: same seed, same training
  resample) or unmatched (every run of A with every run of B) over runs.
* :func:`evaluate_method` runs the whole protocol from a ``train_and_predict(train_indices,
  seed)`` function or a scikit-learn estimator.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np

from ..engine.intervals import quantiles
from ..inputs.validation import check_confidence_level, check_positive_int, check_rng_seed
from ..results import ConfidenceInterval, IntervalResult, _fmt
from .paired import compare

__all__ = ["PooledResult", "compare_methods", "evaluate_method", "pooled_ci"]


@dataclass(frozen=True, kw_only=True, repr=False)
class PooledResult(IntervalResult):
    """An interval pooled over several training runs.

    Attributes (in addition to :class:`~mlci.IntervalResult`'s)
    ----------------------------------------------------------
    run_estimates : ndarray, shape (n_runs,)
        The metric of every run on the test set (for a comparison: of every pair of runs).
    between_run_sd : float
        Standard deviation of ``run_estimates`` (seed and training-data variability, plus
        the part of the test-set noise that differs between runs).
    test_set_sd : float
        Root-mean-square over runs of each run's bootstrap standard deviation (test-set
        variability).
    pooled_distribution : ndarray
        Every run's bootstrap values, concatenated.
    n_runs : int
    n_resamples : int
        Test-set replicates per run.
    pvalue : float or None
        For a comparison: p-value of "no difference" by inverting the pooled percentile
        interval, ``2 * min(P(d* <= 0), P(d* >= 0))`` with the ``(1 + count) / (1 + N)``
        convention.
    """

    run_estimates: np.ndarray = field(default_factory=lambda: np.empty(0))
    between_run_sd: float = 0.0
    test_set_sd: float = 0.0
    pooled_distribution: np.ndarray = field(default_factory=lambda: np.empty(0))
    n_runs: int = 0
    n_resamples: int = 0
    pvalue: float | None = None

    def _tail(self) -> list[str]:
        out = [
            f"n_runs={self.n_runs}",
            f"between_run_sd={_fmt(self.between_run_sd)}",
            f"test_set_sd={_fmt(self.test_set_sd)}",
        ]
        if self.pvalue is not None:
            out.append(f"pvalue={_fmt(self.pvalue)}")
        return out

    def to_dict(self, *, include_distribution: bool = False) -> dict[str, Any]:
        d = super().to_dict()
        if not include_distribution:
            d.pop("pooled_distribution")
        return d

    def to_frame(self) -> Any:
        """One row per run: its estimate (pandas needed)."""
        import pandas as pd

        return pd.DataFrame({"run": np.arange(self.n_runs), "estimate": self.run_estimates})


def _as_runs(name: str, runs: Any) -> dict[str, Any]:
    if isinstance(runs, Mapping):
        out = {str(k): v for k, v in runs.items()}
    elif isinstance(runs, Sequence | np.ndarray) and not isinstance(runs, str):
        out = {f"{name}{i}": r for i, r in enumerate(runs)}
    else:
        raise TypeError(
            f"`{name}` must be a list of per-run outputs (one array per training run) or a "
            f"dict of them; got {type(runs).__name__}."
        )
    if len(out) == 0:
        raise ValueError(f"`{name}` is empty; at least one run is needed.")
    return out


def _run_distributions(
    y_true: Any, runs: dict[str, Any], metric: Any, kw: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray, Any]:
    """Estimates (R,) and paired bootstrap distributions (B, R) of all runs."""
    if len(runs) == 1:  # compare() needs two systems: duplicate the only run
        ((k, v),) = runs.items()
        runs = {k: v, f"{k}__copy": v}
        res = compare(y_true, runs, **kw, metric=metric, reference=k)
        r = res.systems[k]
        return np.array([r.estimate]), r.bootstrap_distribution[:, None], res
    first = next(iter(runs))
    res = compare(y_true, runs, **kw, metric=metric, reference=first)
    est = np.array([res.systems[k].estimate for k in runs])
    dist = np.column_stack([res.systems[k].bootstrap_distribution for k in runs])
    return est, dist, res


def _percentile(pooled: np.ndarray, confidence_level: float) -> tuple[float, float]:
    pooled = pooled[~np.isnan(pooled)]
    alpha = 1.0 - confidence_level
    q = (
        quantiles(pooled[:, None], np.array([alpha / 2]))[0],
        quantiles(pooled[:, None], np.array([1 - alpha / 2]))[0],
    )
    return float(q[0]), float(q[1])


def _engine_kwargs(
    conditions: Any,
    strata: Any,
    n_resamples: int,
    rng: Any,
    pos_label: Any,
    average: Any,
    metric_kwargs: Any,
    batch: Any,
    n_jobs: Any,
) -> dict[str, Any]:
    return {
        "conditions": conditions,
        "strata": strata,
        "n_resamples": n_resamples,
        "method": "percentile",
        "correction": "none",
        "rng": rng,
        "pos_label": pos_label,
        "average": average,
        "metric_kwargs": metric_kwargs,
        "batch": batch,
        "n_jobs": n_jobs,
    }


def pooled_ci(
    y_true: Any,
    runs: Sequence[Any] | Mapping[str, Any],
    *,
    metric: str | Callable[..., Any],
    conditions: Any = None,
    strata: Any = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    rng: Any = None,
    pos_label: Any = None,
    average: Any = "default",
    metric_kwargs: dict[str, Any] | None = None,
    batch: int | None = None,
    n_jobs: int | None = None,
) -> PooledResult:
    """One interval for a *method* from several runs evaluated on the same test set.

    Every run's test-set bootstrap distribution (all runs on the same replicates) is
    pooled and the interval is the pooled percentile interval, as the seed README
    prescribes; the estimate is the mean of the runs' estimates.

    Parameters
    ----------
    y_true : array-like, shape (n_samples,), or None
    runs : list of array-like, or dict of name -> array-like
        Each run's outputs on the test set (different seeds and/or training resamples).
    metric : str or callable
    conditions, strata, n_resamples, rng, pos_label, average, metric_kwargs, batch, n_jobs
        As in :func:`mlci.compare`.
    confidence_level : float, default 0.95

    Returns
    -------
    PooledResult
        With ``between_run_sd`` (spread of the runs' estimates) and ``test_set_sd``
        (spread of the test-set bootstrap within a run).

    Notes
    -----
    The pooled distribution is a mixture: its variance is about ``between_run_sd**2 +
    test_set_sd**2``, so the interval describes where *a run of the method* lands on a
    test set like this one; it is conservative for the method's mean performance (whose
    uncertainty shrinks with the number of runs).

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> runs = [np.where(rng.random(300) < 0.8 + 0.02 * s, y, 1 - y) for s in range(5)]
    >>> res = mlci.pooled_ci(y, runs, metric="accuracy", n_resamples=200, rng=0)
    >>> res.n_runs, res.method
    (5, 'pooled-percentile')
    """
    confidence_level = check_confidence_level(confidence_level)
    runs_d = _as_runs("runs", runs)
    kw = _engine_kwargs(
        conditions, strata, n_resamples, rng, pos_label, average, metric_kwargs, batch, n_jobs
    )
    est, dist, res = _run_distributions(y_true, runs_d, metric, kw)
    return _pooled_result(est, dist, res, confidence_level, None)


def _pooled_result(
    est: np.ndarray,
    dist: np.ndarray,
    res: Any,
    confidence_level: float,
    pvalue: float | None,
    metric: str | None = None,
) -> PooledResult:
    pooled = dist.T.ravel()
    low, high = _percentile(pooled, confidence_level)
    with np.errstate(invalid="ignore"):
        within = np.nanvar(dist, axis=0, ddof=1)
    return PooledResult(
        estimate=float(np.mean(est)),
        confidence_interval=ConfidenceInterval(low, high),
        confidence_level=confidence_level,
        method="pooled-percentile",
        standard_error=float(np.nanstd(pooled, ddof=1)),
        metric=metric or res.metric,
        details={"scheme": res.scheme, "n_samples": res.n_samples},
        run_estimates=est,
        between_run_sd=float(np.std(est, ddof=1)) if len(est) > 1 else 0.0,
        test_set_sd=float(np.sqrt(np.mean(within))),
        pooled_distribution=pooled,
        n_runs=len(est),
        n_resamples=res.n_resamples,
        pvalue=pvalue,
    )


def compare_methods(
    y_true: Any,
    runs_a: Sequence[Any] | Mapping[str, Any],
    runs_b: Sequence[Any] | Mapping[str, Any],
    *,
    metric: str | Callable[..., Any],
    matched: bool = False,
    conditions: Any = None,
    strata: Any = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    rng: Any = None,
    pos_label: Any = None,
    average: Any = "default",
    metric_kwargs: dict[str, Any] | None = None,
    batch: int | None = None,
    n_jobs: int | None = None,
) -> PooledResult:
    """Compare two methods, each with several runs, on the same test set.

    All runs of both methods are scored on the same test-set replicates (paired over
    test samples).  With ``matched=True`` run ``i`` of A is paired with run ``i`` of B
    (same seed, same training resample) and the pooled distribution holds
    ``A_i* - B_i*``; otherwise every run of A meets every run of B (``A_i* - B_j*``).

    Parameters
    ----------
    y_true : array-like or None
    runs_a, runs_b : list (or dict) of array-like
        The two methods' runs.
    metric : str or callable
    matched : bool, default False
        Pair the runs by position (needs the same number of runs).
    conditions, strata, n_resamples, confidence_level, rng, pos_label, average,
    metric_kwargs, batch, n_jobs
        As in :func:`pooled_ci`.

    Returns
    -------
    PooledResult
        For the difference ``A - B``, with ``pvalue`` (pooled percentile interval
        inverted).

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(1)
    >>> y = rng.integers(0, 2, 400)
    >>> a = [np.where(rng.random(400) < 0.88, y, 1 - y) for _ in range(3)]
    >>> b = [np.where(rng.random(400) < 0.78, y, 1 - y) for _ in range(3)]
    >>> res = mlci.compare_methods(y, a, b, metric="accuracy", n_resamples=300, rng=0)
    >>> res.confidence_interval.low > 0, res.pvalue < 0.01
    (True, True)
    """
    confidence_level = check_confidence_level(confidence_level)
    ra = _as_runs("runs_a", runs_a)
    rb = _as_runs("runs_b", runs_b)
    if matched and len(ra) != len(rb):
        raise ValueError(
            f"`matched=True` pairs the runs by position, but `runs_a` has {len(ra)} runs and "
            f"`runs_b` has {len(rb)}. Pass as many runs for each, or matched=False."
        )
    allruns = {f"a:{k}": v for k, v in ra.items()} | {f"b:{k}": v for k, v in rb.items()}
    kw = _engine_kwargs(
        conditions, strata, n_resamples, rng, pos_label, average, metric_kwargs, batch, n_jobs
    )
    est, dist, res = _run_distributions(y_true, allruns, metric, kw)
    na = len(ra)
    ea, eb = est[:na], est[na:]
    da, db = dist[:, :na], dist[:, na:]
    if matched:
        d_est = ea - eb
        d_dist = da - db
    else:
        d_est = (ea[:, None] - eb[None, :]).ravel()
        d_dist = (da[:, :, None] - db[:, None, :]).reshape(da.shape[0], -1)
    pooled = d_dist.ravel()
    pooled = pooled[~np.isnan(pooled)]
    n = len(pooled)
    p = 2 * min((1 + np.sum(pooled <= 0)) / (1 + n), (1 + np.sum(pooled >= 0)) / (1 + n))
    out = _pooled_result(d_est, d_dist, res, confidence_level, float(min(1.0, p)))
    est_diff = float(np.mean(ea) - np.mean(eb))
    return PooledResult(
        **{
            **{f: getattr(out, f) for f in out.__dataclass_fields__},
            "estimate": est_diff,
            "metric": f"{res.metric} (A - B)",
            "details": {**out.details, "matched": matched, "runs_a": na, "runs_b": len(rb)},
        }
    )


def _progress(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm

        return tqdm(total=total, desc="mlci runs", file=sys.stderr)
    except ImportError:

        class _Print:
            def __init__(self) -> None:
                self.n = 0

            def update(self, k: int = 1) -> None:
                self.n += k
                print(f"mlci: run {self.n}/{total} done", file=sys.stderr, flush=True)

            def close(self) -> None:
                pass

        return _Print()


def _estimator_runner(
    estimator: Any, x_train: Any, y_train: Any, x_test: Any, response: str
) -> Callable[[np.ndarray, int], Any]:
    if x_train is None or y_train is None or x_test is None:
        raise ValueError(
            "With a scikit-learn estimator, pass `X_train`, `y_train` and `X_test` (the "
            "estimator is fitted on bootstrap rows of the training data and predicts X_test)."
        )
    from sklearn.base import clone

    def run(idx: np.ndarray, seed: int) -> Any:
        est = clone(estimator)
        if "random_state" in est.get_params():
            est.set_params(random_state=seed)
        xt = x_train.iloc[idx] if hasattr(x_train, "iloc") else np.asarray(x_train)[idx]
        yt = y_train.iloc[idx] if hasattr(y_train, "iloc") else np.asarray(y_train)[idx]
        est.fit(xt, yt)
        out = getattr(est, response)(x_test)
        if response == "predict_proba" and out.ndim == 2 and out.shape[1] == 2:
            out = out[:, 1]
        return out

    return run


def evaluate_method(
    train_and_predict: Any,
    n_train: int,
    y_test: Any,
    *,
    metric: str | Callable[..., Any],
    n_train_resamples: int = 0,
    seeds: int | Sequence[int] = 5,
    X_train: Any = None,
    y_train: Any = None,
    X_test: Any = None,
    response: str = "predict",
    conditions: Any = None,
    strata: Any = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    rng: Any = None,
    n_jobs: int | None = None,
    progress: bool = False,
    metric_kwargs: dict[str, Any] | None = None,
) -> PooledResult:
    """Run the whole method-evaluation protocol: training bootstraps x seeds, then pool.

    Parameters
    ----------
    train_and_predict : callable or scikit-learn estimator
        ``train_and_predict(train_indices, seed) -> predictions on the test set``; or an
        estimator, cloned for every run (its ``random_state`` set to the seed), fitted on
        ``X_train[train_indices], y_train[train_indices]``, predicting ``X_test``.
    n_train : int
        Number of training samples (the indices are drawn from ``range(n_train)``).
    y_test : array-like or None
        Test labels.
    metric : str or callable
    n_train_resamples : int, default 0
        Bootstrap resamples of the training data; 0 trains on all of it every time.
    seeds : int or sequence of int, default 5
        The seeds (or how many to draw from ``rng``); every training set is trained
        once per seed.
    X_train, y_train, X_test : optional
        Data for an estimator.
    response : {"predict", "predict_proba", "decision_function"}
        Estimator method giving the test outputs (``predict_proba``'s positive column
        for binary problems).
    conditions, strata, n_resamples, confidence_level
        Test-set bootstrap options, as in :func:`pooled_ci`.
    rng : None, int, Generator or SeedSequence
        One seed makes everything reproducible: training resamples, drawn seeds and the
        test-set bootstrap.
    n_jobs : int, optional
        Parallel training runs with joblib (needs joblib installed); None runs them in turn.
    progress : bool
        Progress bar on stderr (tqdm if installed, else one line per run).
    metric_kwargs : dict, optional

    Returns
    -------
    PooledResult
        ``details["runs"]`` lists ``(training resample, seed)`` per run (resample -1: the
        full training set).

    Examples
    --------
    >>> import numpy as np, mlci
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3)); y = (X[:, 0] + rng.normal(0, 1, 300) > 0).astype(int)
    >>> res = mlci.evaluate_method(DecisionTreeClassifier(max_depth=3), 200, y[200:],
    ...                            X_train=X[:200], y_train=y[:200], X_test=X[200:],
    ...                            metric="accuracy", n_train_resamples=3, seeds=2,
    ...                            n_resamples=200, rng=0)
    >>> res.n_runs
    6
    """
    n_train = check_positive_int("n_train", n_train)
    if (
        not isinstance(n_train_resamples, Integral)
        or isinstance(n_train_resamples, bool)
        or n_train_resamples < 0
    ):
        raise ValueError(f"`n_train_resamples` must be an integer >= 0; got {n_train_resamples!r}.")
    n_train_resamples = int(n_train_resamples)
    ss = check_rng_seed(rng)
    # children derived from the seed's identity, not ss.spawn() (which advances a counter
    # on the caller's SeedSequence: passing the same one twice would change the result)
    s_train, s_seeds, s_test = (
        np.random.SeedSequence(entropy=ss.entropy, spawn_key=(*ss.spawn_key, k)) for k in range(3)
    )
    if isinstance(seeds, Integral) and not isinstance(seeds, bool):
        seeds = check_positive_int("seeds", int(seeds))
        seed_list = np.random.default_rng(s_seeds).integers(0, 2**31 - 1, seeds).tolist()
    else:
        seed_list = [int(s) for s in seeds]
        if not seed_list:
            raise ValueError("`seeds` is empty; give at least one seed (or a count).")
    if hasattr(train_and_predict, "fit"):
        runner = _estimator_runner(train_and_predict, X_train, y_train, X_test, response)
    elif callable(train_and_predict):
        runner = train_and_predict
    else:
        raise TypeError(
            "`train_and_predict` must be a function (train_indices, seed) -> predictions or "
            f"a scikit-learn estimator; got {type(train_and_predict).__name__}."
        )
    g = np.random.default_rng(s_train)
    if n_train_resamples == 0:
        train_sets = [(-1, np.arange(n_train))]
    else:
        train_sets = [(i, g.integers(0, n_train, n_train)) for i in range(n_train_resamples)]
    jobs = [(i, idx, sd) for i, idx in train_sets for sd in seed_list]
    bar = _progress(len(jobs), progress)
    if n_jobs is not None and n_jobs != 1:
        try:
            from joblib import Parallel, delayed
        except ImportError:  # pragma: no cover - joblib is an optional extra
            raise ImportError(
                "`n_jobs` runs training in parallel with joblib; install it (pip install "
                "joblib) or leave n_jobs=None."
            ) from None
        preds = []
        for out in Parallel(n_jobs=n_jobs, return_as="generator")(
            delayed(runner)(idx, sd) for _, idx, sd in jobs
        ):
            preds.append(np.asarray(out))
            if bar is not None:
                bar.update(1)
    else:
        preds = []
        for _, idx, sd in jobs:
            preds.append(np.asarray(runner(idx, sd)))
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    res = pooled_ci(
        y_test,
        preds,
        metric=metric,
        conditions=conditions,
        strata=strata,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        rng=s_test,
        metric_kwargs=metric_kwargs,
    )
    return PooledResult(
        **{
            **{f: getattr(res, f) for f in res.__dataclass_fields__},
            "details": {
                **res.details,
                "runs": [(i, sd) for i, _, sd in jobs],
                "n_train_resamples": n_train_resamples,
                "seeds": seed_list,
            },
        }
    )
