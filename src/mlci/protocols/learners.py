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

All three take their data through the comparison's input gate
(:func:`mlci.comparison.common.gather_paired`), score every run on the same replicates of
the engine (one joint kernel, :func:`mlci.engine.bootstrap.run_replicates`) and build the
pooled interval with the engine's finish step
(:func:`mlci.engine.bootstrap.finish_bootstrap`, percentile method).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np

from ..comparison.common import (
    JointKernel,
    gather_paired,
    kernel_data,
    metric_name,
    run_joint,
)
from ..engine.bootstrap import finish_bootstrap
from ..engine.nested import plan_for_conditions
from ..engine.plan import Plan
from ..engine.resampling import make_plan
from ..engine.sampler import Stream, block_generator, stream_seed
from ..feedback import counting, reports_progress
from ..inputs import (
    BootstrapOptions,
    bootstrap_options,
    check_choice,
    check_flag,
    check_positive_int,
    knobs_in_config,
)
from ..metrics import get_kernel, metric_params
from ..results import IntervalResult, format_value, require_pandas

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
        convention (one tail for a one-sided ``alternative``).
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
            f"between_run_sd={format_value(self.between_run_sd)}",
            f"test_set_sd={format_value(self.test_set_sd)}",
        ]
        if self.pvalue is not None:
            out.append(f"pvalue={format_value(self.pvalue)}")
        return out

    def to_dict(self, *, include_distribution: bool = False) -> dict[str, Any]:
        """All fields as plain Python values (lists for arrays).

        Parameters
        ----------
        include_distribution : bool, default False
            Also the pooled bootstrap distribution (``pooled_distribution``, B x R values).
        """
        d = super().to_dict()
        if not include_distribution:
            d.pop("pooled_distribution")
        return d

    def runs_frame(self) -> Any:
        """One row per run: its estimate (pandas needed).  ``to_frame()`` is the interval's
        row, as for every interval result."""
        return require_pandas().DataFrame(
            {"run": np.arange(self.n_runs), "estimate": self.run_estimates}
        )


def _as_runs(name: str, runs: Any) -> dict[str, Any]:
    """The runs keyed by how messages name them (``runs[0]``, ``runs['seed1']``)."""
    if isinstance(runs, Mapping):
        out = {f"{name}[{str(k)!r}]": v for k, v in runs.items()}
    elif isinstance(runs, Sequence | np.ndarray) and not isinstance(runs, str):
        out = {f"{name}[{i}]": r for i, r in enumerate(runs)}
    else:
        raise TypeError(
            f"`{name}` must be a list of per-run outputs (one array per training run) or a "
            f"dict of them; got {type(runs).__name__}."
        )
    if len(out) == 0:
        raise ValueError(f"`{name}` is empty; at least one run is needed.")
    return out


@dataclass(frozen=True)
class _Runs:
    """Every run's estimate (R,) and bootstrap values (B, R) on the same test replicates."""

    estimates: np.ndarray
    dist: np.ndarray
    plan: Plan
    name: str
    bounds: tuple[float, float]
    n_dropped: int


def _run_distributions(
    y_true: Any,
    runs: dict[str, Any],
    *,
    metric: Any,
    params: dict[str, Any],
    conditions: Any,
    strata: Any,
    dropna: bool,
    opts: BootstrapOptions,
    y_name: str = "y_true",
) -> _Runs:
    """All runs scored on the same test-set replicates: the gate, one plan, one joint
    kernel, the engine's replicate loop."""
    data = gather_paired(
        y_true,
        runs,
        metric=metric,
        conditions=conditions,
        strata=strata,
        dropna=dropna,
        y_name=y_name,
    )
    kernels = [
        get_kernel(metric, kernel_data(data.y_true, o), params) for o in data.outputs.values()
    ]
    if kernels[0].shape != ():
        raise ValueError(
            "Pooling runs needs a scalar metric; this one returns an array per resample "
            "(e.g. average=None). Pool one class at a time, or average."
        )
    plan = plan_for_conditions(
        data.n_samples,
        conditions=data.conditions,
        strata=data.strata,
        n_resamples=opts.n_resamples,
        rng=opts.seed,
    )
    name = metric_name(metric)
    jk = JointKernel(kernels, name)
    sampler = plan.weights_for(jk.keys, jk.m)
    est = jk.evaluate(sampler.counts[None, :])[0]
    undefined = [k for k, e in zip(runs, est, strict=True) if np.isnan(e)]
    if undefined:
        raise ValueError(
            f"The metric {name!r} is undefined (NaN) on the data as given for "
            f"{', '.join(f'`{k}`' for k in undefined)}; no interval can be computed."
        )
    dist = run_joint(jk, sampler, opts.engine)
    return _Runs(est, dist, plan, name, jk.bounds, data.n_dropped)


def _pooled_result(
    runs: _Runs,
    est: np.ndarray,
    dist: np.ndarray,
    opts: BootstrapOptions,
    *,
    estimate: float,
    metric: str,
    bounds: tuple[float, float],
    pvalue: float | None = None,
    details: dict[str, Any] | None = None,
) -> PooledResult:
    """The pooled percentile interval, through the engine's finish step (undefined
    replicates, the interval at the requested level and side, bounded to the range)."""
    pooled = dist.T.ravel()
    plan = runs.plan
    res = finish_bootstrap(
        estimate,
        pooled,
        plan=plan,
        name=metric,
        method="percentile",
        confidence_level=opts.confidence_level,
        alternative=opts.alternative,
        bounds=bounds,
    )
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        within = np.nanvar(dist, axis=0, ddof=1)
    return PooledResult(
        estimate=float(estimate),
        confidence_interval=res.confidence_interval,
        confidence_level=opts.confidence_level,
        method="pooled-percentile",
        alternative=opts.alternative,
        standard_error=res.standard_error,
        metric=metric,
        details={
            "scheme": plan.scheme,
            "n_samples": plan.n_samples,
            "n_conditions": plan.n_conditions,
            "n_strata": plan.n_strata,
            "n_invalid": res.n_invalid,
            "n_dropped": runs.n_dropped,
            **(details or {}),
        },
        run_estimates=est,
        between_run_sd=float(np.std(est, ddof=1)) if len(est) > 1 else 0.0,
        test_set_sd=float(np.sqrt(np.mean(within))),
        pooled_distribution=pooled,
        n_runs=len(est),
        n_resamples=plan.n_resamples,
        pvalue=pvalue,
    )


def _options(
    n_resamples: Any,
    confidence_level: Any,
    alternative: Any,
    rng: Any,
) -> BootstrapOptions:
    # the pooled interval is a percentile interval: the only interval method here
    return bootstrap_options(
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method="percentile",
        alternative=alternative,
        rng=rng,
    )


@knobs_in_config
@reports_progress
def pooled_ci(
    y_true: Any,
    runs: Sequence[Any] | Mapping[str, Any],
    *,
    metric: str | Callable[..., Any],
    conditions: Any = None,
    strata: Any = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    rng: Any = None,
    pos_label: Any = None,
    average: Any = "default",
    metric_kwargs: dict[str, Any] | None = None,
    dropna: bool = False,
) -> PooledResult:
    """One interval for a *method* from several runs evaluated on the same test set.

    Every run's test-set bootstrap distribution (all runs on the same replicates) is
    pooled and the interval is the pooled percentile interval, as the seed README
    prescribes; the estimate is the mean of the runs' estimates.

    Parameters
    ----------
    y_true : array-like, shape (n_samples,), or None
        As in :func:`mlci.compare` (the weights for ``metric="weighted_mean"``).
    runs : list of array-like, or dict of name -> array-like
        Each run's outputs on the test set (different seeds and/or training resamples).
    metric : str or callable
    conditions, strata
        As in :func:`mlci.compare`; ``conditions`` may be nested (``[speaker, session]``,
        the top level resampled).
    n_resamples : int, default 1000
        Test-set replicates (every run is scored on each).
    confidence_level : float, default 0.95
    alternative : {"two-sided", "less", "greater"}
        One-sided intervals take the pooled distribution's ``confidence_level`` quantile
        (``"greater"``: a lower bound, ``"less"``: an upper bound) and end at the edge of
        the metric's range.
    rng, pos_label, average, metric_kwargs, dropna
        As in :func:`mlci.compare`.

    Returns
    -------
    PooledResult
        With ``between_run_sd`` (spread of the runs' estimates) and ``test_set_sd``
        (spread of the test-set bootstrap within a run); ``details["n_dropped"]``.

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
    opts = _options(n_resamples, confidence_level, alternative, rng)
    params = metric_params(metric, pos_label, average, metric_kwargs)
    runs_d = _as_runs("runs", runs)
    r = _run_distributions(
        y_true,
        runs_d,
        metric=metric,
        params=params,
        conditions=conditions,
        strata=strata,
        dropna=dropna,
        opts=opts,
    )
    return _pooled_result(
        r,
        r.estimates,
        r.dist,
        opts,
        estimate=float(np.mean(r.estimates)),
        metric=r.name,
        bounds=r.bounds,
    )


@knobs_in_config
@reports_progress
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
    alternative: str = "two-sided",
    rng: Any = None,
    pos_label: Any = None,
    average: Any = "default",
    metric_kwargs: dict[str, Any] | None = None,
    dropna: bool = False,
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
    metric_kwargs, dropna
        As in :func:`pooled_ci`.
    alternative : {"two-sided", "less", "greater"}
        ``"greater"``: H1 is "A is better than B" in the metric's units (``A - B > 0``);
        the interval is then a lower bound and the p-value one-sided.

    Returns
    -------
    PooledResult
        For the difference ``A - B``, with ``pvalue`` (the pooled percentile interval
        inverted: two-sided ``2 * min(P(d* <= 0), P(d* >= 0))``, ``"greater"``
        ``P(d* <= 0)``, ``"less"`` ``P(d* >= 0)``, each with the ``(1 + count) / (1 + N)``
        convention).

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
    opts = _options(n_resamples, confidence_level, alternative, rng)
    check_flag("matched", matched)
    params = metric_params(metric, pos_label, average, metric_kwargs)
    ra = _as_runs("runs_a", runs_a)
    rb = _as_runs("runs_b", runs_b)
    if matched and len(ra) != len(rb):
        raise ValueError(
            f"`matched=True` pairs the runs by position, but `runs_a` has {len(ra)} runs and "
            f"`runs_b` has {len(rb)}. Pass as many runs for each, or matched=False."
        )
    r = _run_distributions(
        y_true,
        ra | rb,
        metric=metric,
        params=params,
        conditions=conditions,
        strata=strata,
        dropna=dropna,
        opts=opts,
    )
    na = len(ra)
    ea, eb = r.estimates[:na], r.estimates[na:]
    da, db = r.dist[:, :na], r.dist[:, na:]
    if matched:
        d_est = ea - eb
        d_dist = da - db
    else:
        d_est = (ea[:, None] - eb[None, :]).ravel()
        d_dist = (da[:, :, None] - db[:, None, :]).reshape(da.shape[0], -1)
    pooled = d_dist.ravel()
    pooled = pooled[~np.isnan(pooled)]
    n = len(pooled)
    p_le = (1 + np.sum(pooled <= 0)) / (1 + n)
    p_ge = (1 + np.sum(pooled >= 0)) / (1 + n)
    p = {"two-sided": 2 * min(p_le, p_ge), "greater": p_le, "less": p_ge}[opts.alternative]
    lo, hi = r.bounds
    return _pooled_result(
        r,
        d_est,
        d_dist,
        opts,
        estimate=float(np.mean(ea) - np.mean(eb)),
        metric=f"{r.name} (A - B)",
        bounds=(lo - hi, hi - lo),
        pvalue=float(min(1.0, p)),
        details={"matched": bool(matched), "runs_a": na, "runs_b": len(rb)},
    )


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


def _training_sets(
    n_train: int, n_train_resamples: int, seed: np.random.SeedSequence
) -> list[tuple[int, np.ndarray]]:
    """The training sets: all of it, or bootstrap resamples drawn by the engine's iid
    sampler on the :attr:`Stream.TRAINING` stream (sorted indices, each drawn sample
    repeated as often as it was drawn)."""
    if n_train_resamples == 0:
        return [(-1, np.arange(n_train))]
    plan = make_plan(n_train, n_resamples=n_train_resamples, rng=stream_seed(seed, Stream.TRAINING))
    sampler = plan.weights_for()
    sets: list[tuple[int, np.ndarray]] = []
    every = np.arange(n_train)
    for j in range(sampler.n_blocks):
        for row in sampler.block(j):
            sets.append((len(sets), np.repeat(every, row.astype(np.intp))))
    return sets


@knobs_in_config
@reports_progress
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
    alternative: str = "two-sided",
    rng: Any = None,
    pos_label: Any = None,
    average: Any = "default",
    metric_kwargs: dict[str, Any] | None = None,
    dropna: bool = False,
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
        Test labels (``y_true`` of :func:`pooled_ci`).
    metric : str or callable
    n_train_resamples : int, default 0
        Bootstrap resamples of the training data; 0 trains on all of it every time.
        A resample's ``train_indices`` are sorted, each drawn sample repeated as often
        as it was drawn.
    seeds : int or sequence of int, default 5
        The seeds (or how many to draw from ``rng``); every training set is trained
        once per seed.
    X_train, y_train, X_test : optional
        Data for an estimator.
    response : {"predict", "predict_proba", "decision_function"}
        Estimator method giving the test outputs (``predict_proba``'s positive column
        for binary problems).
    conditions, strata, n_resamples, confidence_level, alternative
        Test-set bootstrap options, as in :func:`pooled_ci`.
    rng : None, int, Generator or SeedSequence
        One seed makes everything reproducible: training resamples
        (:attr:`~mlci.engine.sampler.Stream.TRAINING`), drawn seeds
        (:attr:`~mlci.engine.sampler.Stream.RUN_SEEDS`) and the test-set bootstrap (the
        same replicates as :func:`pooled_ci` with this ``rng``).
    pos_label, average, metric_kwargs
        Metric options, as in :func:`mlci.bootstrap_ci`.
    dropna : bool, default False
        Drop the test samples with a missing value (in ``y_test``, the conditions,
        strata or any run's predictions) instead of refusing them; reported in
        ``details["n_dropped"]``.

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
    # every input is checked before the first model is trained
    opts = _options(n_resamples, confidence_level, alternative, rng)
    params = metric_params(metric, pos_label, average, metric_kwargs)
    n_train = check_positive_int("n_train", n_train)
    if (
        not isinstance(n_train_resamples, Integral)
        or isinstance(n_train_resamples, bool)
        or n_train_resamples < 0
    ):
        raise ValueError(f"`n_train_resamples` must be an integer >= 0; got {n_train_resamples!r}.")
    n_train_resamples = int(n_train_resamples)
    check_choice("response", response, ("predict", "predict_proba", "decision_function"))
    if y_test is not None or conditions is not None or strata is not None:
        gather_paired(
            y_test,
            {},
            metric=metric,
            conditions=conditions,
            strata=strata,
            dropna=dropna,
            y_name="y_test",
        )
    ss = opts.seed
    if isinstance(seeds, Integral) and not isinstance(seeds, bool):
        n_seeds = check_positive_int("seeds", int(seeds))
        seed_list = block_generator(ss, Stream.RUN_SEEDS, 0).integers(0, 2**31 - 1, n_seeds)
        seed_list = seed_list.tolist()
    elif isinstance(seeds, Sequence | np.ndarray) and not isinstance(seeds, str):
        if not all(isinstance(s, Integral) and not isinstance(s, bool) for s in seeds):
            raise TypeError(f"`seeds` must be a count or a list of integer seeds; got {seeds!r}.")
        seed_list = [int(s) for s in seeds]
        if not seed_list:
            raise ValueError("`seeds` is empty; give at least one seed (or a count).")
    else:
        raise TypeError(f"`seeds` must be a count or a list of integer seeds; got {seeds!r}.")
    if hasattr(train_and_predict, "fit"):
        runner = _estimator_runner(train_and_predict, X_train, y_train, X_test, response)
    elif callable(train_and_predict):
        runner = train_and_predict
    else:
        raise TypeError(
            "`train_and_predict` must be a function (train_indices, seed) -> predictions or "
            f"a scikit-learn estimator; got {type(train_and_predict).__name__}."
        )
    train_sets = _training_sets(n_train, n_train_resamples, ss)
    jobs = [(i, idx, sd) for i, idx in train_sets for sd in seed_list]
    workers = opts.engine.n_jobs
    if workers is not None and workers != 1:
        try:
            from joblib import Parallel, delayed
        except ImportError:  # pragma: no cover - joblib is an optional extra
            raise ImportError(
                "`n_jobs` (mlci.config_context) runs training in parallel with joblib; "
                "install it (pip install joblib) or leave n_jobs unset."
            ) from None
        outputs = Parallel(n_jobs=workers, return_as="generator")(
            delayed(runner)(idx, sd) for _, idx, sd in jobs
        )
    else:
        outputs = (runner(idx, sd) for _, idx, sd in jobs)
    preds = []
    # the runs on the bar reports_progress opens (config progress=True), to which the
    # test-set bootstrap below adds its replicates
    with counting(len(jobs), "run") as advance:
        for out in outputs:
            preds.append(out)
            advance(1)
    r = _run_distributions(
        y_test,
        {f"predictions of run {k}": p for k, p in enumerate(preds)},
        metric=metric,
        params=params,
        conditions=conditions,
        strata=strata,
        dropna=dropna,
        opts=opts,
        y_name="y_test",
    )
    return _pooled_result(
        r,
        r.estimates,
        r.dist,
        opts,
        estimate=float(np.mean(r.estimates)),
        metric=r.name,
        bounds=r.bounds,
        details={
            "runs": [(i, sd) for i, _, sd in jobs],
            "n_train_resamples": n_train_resamples,
            "seeds": seed_list,
        },
    )
