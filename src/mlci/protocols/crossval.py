"""Cross-validation with an interval whose target is stated.

:func:`cross_val_ci` runs k-fold (stratified, grouped, repeated), leave-one-out or
repeated random-split (holdout) cross-validation of a scikit-learn estimator and puts an
interval on the result.  What the interval is *for* differs by method, and the result
says it (``target``):

``"algorithm"``
    the expected metric of the learning algorithm trained on a given number of samples
    (the average over training sets of that size from the same distribution): what
    cross-validation estimates (Bates, Hastie & Tibshirani 2024, section 3: the CV
    estimate tracks this expected error, not the error of the model fitted on the data
    at hand).  Methods ``"naive"``, ``"corrected"`` and ``"corrected-skew"``, at the
    folds' training size ``n_train``: their standard errors are of the estimate over
    data sets.
``"refit"``
    the metric on new data of the model refit on all ``n`` samples: method ``"nested"``
    (k-fold and leave-one-out).  Bates et al. build its standard error from their nested
    estimate of the mean squared error of cross-validation about this model's error,
    so it is the target the interval holds for: in the study of docs/validation.md it
    covered the refit model in 0.932–0.980 over all its k-fold cells and 0.940–0.958
    over its leave-one-out cells, and the expected metric at ``n`` in 0.953–0.995
    (too wide, 0.993–0.995, for flexible regressions on Friedman #1, where that
    distance includes the refit model's own spread).

References
----------
- Bates, S., Hastie, T. & Tibshirani, R. (2024). Cross-validation: what does it estimate
  and how well does it do it? *Journal of the American Statistical Association* 119,
  1434–1445 (arXiv:2104.00673); their R package ``nestedcv``
  (github.com/stephenbates19/nestedcv, ``nested_cv`` and ``nested_cv_helper``).
- Nadeau, C. & Bengio, Y. (2003). Inference for the generalization error. *Machine
  Learning* 52, 239–281.
- Bouckaert, R. R. & Frank, E. (2004). Evaluating the replicability of significance
  tests for comparing learning algorithms. *PAKDD*, 3–12.
- Hall, P. (1992). On the removal of skewness by transformation. *Journal of the Royal
  Statistical Society B* 54, 221–228.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from ..classical.pvalues import normal_pvalue
from ..classical.significance import corrected_resampled_ttest, kfold_cv_ttest
from ..engine.sampler import Stream, block_generator
from ..feedback import reports_progress, warn
from ..inputs import (
    check_alternative,
    check_choice,
    check_confidence_level,
    check_flag,
    check_positive_int,
    check_rng_seed,
    confidence_levels,
    fill_doc,
)
from ..intervals.formulas import quantile, tails, wald_interval
from ..results import ConfidenceInterval, IntervalResult, TestResult, per_confidence_level
from ._fitting import (
    Fit,
    MetricSpec,
    ProtocolData,
    check_estimator,
    check_n_jobs,
    fit_all,
    fit_seed,
    metric_spec,
    pointwise_values,
    pooled_kernel,
    read_protocol_data,
    require_sklearn,
    set_scores,
)

__all__ = ["CV_METHODS", "CVResult", "cross_val_ci", "cross_val_compare", "fold_ids"]

#: interval methods of :func:`cross_val_ci`
CV_METHODS = ("naive", "corrected", "nested", "corrected-skew")
#: what the naive interval covered in the study of docs/validation.md (quoted by its warning)
NAIVE_COVERAGE = (
    "0.21-0.85 over repeated folds or random splits, 0.89-0.97 over one k-fold run and "
    "0.91-0.92 for leave-one-out"
)
_TARGETS = {
    "naive": "algorithm",
    "corrected": "algorithm",
    "nested": "refit",
    "corrected-skew": "algorithm",
}
#: folds of the nested cross-validation that measures the inflation of leave-one-out's
#: standard error (``cv="loo"``, ``method="nested"``)
LOO_NESTED_K = 5


def target_text(target: str, metric: str, n: int, n_train: float) -> str:
    """The stated target of an interval, in words."""
    if target == "refit":
        return f"{metric} of the model refit on all {n} samples, on new data"
    return f"expected {metric} of the learning algorithm trained on {n_train:.4g} samples"


def skew_corrected_interval(
    estimate: float,
    se: float,
    skewness: float,
    df: float,
    confidence_level: float,
    alternative: str,
) -> tuple[float, float]:
    """Hall's (1992) skewness-corrected Student t interval for a mean.

    ``T = (estimate - mu) / se`` is transformed by Hall's monotone cubic
    ``g(T) = T + k·T²/3 + k²·T³/27 + k/6`` (``k``: the ``skewness`` of the estimate,
    i.e. the skewness of one value over ``√n`` for a plain mean), which removes the
    first-order skewness of a studentized mean; the interval is the set of ``mu`` where
    ``g(T)`` lies between the Student t quantiles with ``df`` degrees of freedom.  ``g``
    has the closed-form inverse ``T = (3/k)·((1 + k·(q - k/6))^(1/3) - 1)``; ``k = 0``
    gives the ordinary t interval.  One-sided: the other end is infinite.

    References: Hall, P. (1992). On the removal of skewness by transformation. *JRSS B*
    54, 221–228; Zhou, X.-H. & Dinh, P. (2005). Nonparametric confidence intervals for
    the one- and two-sample problems. *Biostatistics* 6, 187–200 (their ``T2``).

    Examples
    --------
    >>> lo, hi = skew_corrected_interval(10.0, 1.0, 0.0, 9, 0.95, "two-sided")
    >>> from scipy import stats
    >>> round(hi - 10.0, 4) == round(float(stats.t.ppf(0.975, 9)), 4)
    True
    >>> lo, hi = skew_corrected_interval(10.0, 1.0, 0.3, 9, 0.95, "two-sided")
    >>> bool(hi - 10.0 > 10.0 - lo)  # right-skewed: the upper side is longer
    True
    """

    def solve(q: float) -> float:
        y = q - skewness / 6.0
        if abs(skewness) < 1e-12:
            return y
        return float(3.0 / skewness * (np.cbrt(1.0 + skewness * y) - 1.0))

    q = float(quantile(tails(confidence_level, alternative)[1], df))
    if alternative == "two-sided":
        return estimate - se * solve(q), estimate - se * solve(-q)
    if alternative == "greater":
        return estimate - se * solve(q), np.inf
    return -np.inf, estimate - se * solve(-q)


def mean_skewness(values: np.ndarray, weights: np.ndarray) -> float:
    """The skewness of the weighted mean ``Σ w_i v_i`` (weights summing to one) of
    independent values: ``m3·Σw³ / (m2·Σw²)^(3/2)``, with ``m2`` and ``m3`` the
    (bias-adjusted) second and third central moments of ``values`` around the weighted
    mean; for equal weights the sample skewness over ``√n``.  0 for fewer than three
    values or no spread.

    Examples
    --------
    >>> from scipy import stats
    >>> v = np.array([0.1, 0.2, 0.4, 2.0])
    >>> g1 = float(stats.skew(v, bias=False))
    >>> bool(np.isclose(mean_skewness(v, np.full(4, 0.25)), g1 / 2))
    True
    """
    m = len(values)
    if m < 3:
        return 0.0
    d = values - float(weights @ values)
    m2 = float(np.sum(d**2)) / (m - 1)
    m3 = float(np.sum(d**3)) * m / ((m - 1) * (m - 2))
    if m2 <= 0:
        return 0.0
    return float(m3 * np.sum(weights**3) / (m2 * np.sum(weights**2)) ** 1.5)


def require_pointwise(spec: MetricSpec, method: str) -> None:
    """``method="nested"`` works on per-sample values: refuse a metric without them."""
    if method == "nested" and not spec.pointwise:
        raise ValueError(
            f"`method`='nested' needs a metric that is the mean of a per-sample value "
            f"(accuracy, error_rate, log_loss, brier, mse, mae); {spec.name!r} is not. Use "
            "method='corrected'."
        )


def clip(low: float, high: float, bounds: tuple[float, float]) -> ConfidenceInterval:
    """An interval kept inside the metric's range."""
    lo, hi = bounds
    return ConfidenceInterval(float(np.clip(low, lo, hi)), float(np.clip(high, lo, hi)))


def normal_interval(
    estimate: float,
    se: float,
    confidence_level: float,
    alternative: str,
    bounds: tuple[float, float],
) -> ConfidenceInterval:
    """``estimate ± z·se`` (one-sided: the other end at the range's edge), clipped: the
    interval layer's :func:`~mlci.intervals.formulas.wald_interval` as a
    :class:`~mlci.ConfidenceInterval`."""
    low, high = wald_interval(
        estimate, se, confidence_level=confidence_level, alternative=alternative, bounds=bounds
    )
    return ConfidenceInterval(float(low), float(high))


def reread_normal(
    result: Any,
    method: str | None,
    confidence_level: Any,
    alternative: str | None,
    *,
    methods: tuple[str, ...],
    refusal: str,
) -> Any:
    """``result`` (a frozen result with ``estimate``, ``standard_error`` and ``bounds``
    whose interval is ``estimate ± z·se``) at another confidence level (a sequence gives a
    tuple) or alternative.  ``methods``: the method names that mean this interval (None
    always does); any other is refused with ``refusal``."""
    levels = confidence_levels(confidence_level)
    if levels is not None:
        return tuple(
            reread_normal(result, method, lv, alternative, methods=methods, refusal=refusal)
            for lv in levels
        )
    if method is not None and method not in methods:
        raise ValueError(f"`method`={method!r} is not available: {refusal}")
    level = check_confidence_level(
        result.confidence_level if confidence_level is None else confidence_level
    )
    alt = check_alternative(result.alternative if alternative is None else alternative)
    ci = normal_interval(result.estimate, result.standard_error, level, alt, result.bounds)
    return dataclasses.replace(
        result, confidence_interval=ci, confidence_level=level, alternative=alt
    )


@dataclass(frozen=True, kw_only=True, repr=False)
class CVResult(IntervalResult):
    """A cross-validation estimate with its interval and its stated target.

    Attributes (in addition to :class:`~mlci.IntervalResult`'s)
    ----------------------------------------------------------
    target : {"algorithm", "refit"}
        What the interval is for: ``"algorithm"``, the expected metric of the learning
        algorithm trained on ``n_train`` samples (methods ``"naive"``, ``"corrected"``,
        ``"corrected-skew"``); ``"refit"``, the metric on new data of the model refit on
        all ``n_samples`` (``"nested"``); :attr:`target_description` says it in words.
    target_description : str
        The target in words.
    cv : str
        ``"kfold"``, ``"stratified-kfold"``, ``"group-kfold"``, ``"loo"`` or ``"holdout"``.
    n_samples : int
    n_splits : int
        Folds per repetition (``n_samples`` for leave-one-out, 1 for a random split).
    n_repeats : int
        Repetitions (with new random folds each).
    n_train, n_test : float
        Mean training and test size of a fold.
    fold_scores : ndarray, shape (n_repeats, n_splits)
        The metric on every test fold.
    n_fits : int
        Models fitted.
    best_params : tuple of dict or None
        When the estimator is a search (``GridSearchCV``...), the parameters it chose on
        each outer fold, in the order of ``fold_scores.ravel()``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X, y = make_classification(120, random_state=0)
    >>> r = cross_val_ci(GaussianNB(), X, y, method="corrected", n_repeats=3, rng=0)
    >>> r.target, r.fold_scores.shape
    ('algorithm', (3, 5))
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     r.interval(method="naive").method
    'naive'
    >>> caught[0].message.args[0][:29]
    "method='naive' treats the 15 "
    """

    target: str = "algorithm"
    target_description: str = ""
    cv: str = "kfold"
    n_samples: int = 0
    n_splits: int = 0
    n_repeats: int = 0
    n_train: float = 0.0
    n_test: float = 0.0
    fold_scores: np.ndarray = dataclasses.field(default_factory=lambda: np.empty((0, 0)))
    n_fits: int = 0
    best_params: tuple[dict[str, Any], ...] | None = None
    bounds: tuple[float, float] = (-np.inf, np.inf)

    def _tail(self) -> list[str]:
        return [
            f"target={self.target!r} ({self.target_description})",
            f"cv={self.cv!r}",
            f"{self.n_repeats}x{self.n_splits} folds",
        ]

    def rows(self) -> list[dict[str, Any]]:
        """:meth:`IntervalResult.rows` with ``target``, ``cv``, ``n_splits``,
        ``n_repeats``, ``n_train``, ``n_test`` and ``n_fits``."""
        extra = {
            "target": self.target,
            "cv": self.cv,
            "n_splits": self.n_splits,
            "n_repeats": self.n_repeats,
            "n_train": self.n_train,
            "n_test": self.n_test,
            "n_fits": self.n_fits,
        }
        return [{**r, **extra} for r in super().rows()]

    def interval(
        self,
        method: str | None = None,
        confidence_level: float | None = None,
        alternative: str | None = None,
    ) -> CVResult:
        """Another interval from the same fits, without fitting again.

        ``"naive"`` and ``"corrected"`` come from the fold scores of any run;
        ``"nested"`` needs a run with ``method="nested"`` (its extra fits);
        ``"corrected-skew"`` a run with ``cv="holdout"``.

        Parameters
        ----------
        method : {"naive", "corrected", "nested", "corrected-skew"}, optional
        confidence_level : float, optional
        alternative : {"two-sided", "less", "greater"}, optional

        Returns
        -------
        CVResult
        """
        method = check_choice("method", method or self.method, CV_METHODS)
        level = check_confidence_level(
            self.confidence_level if confidence_level is None else confidence_level
        )
        alt = check_alternative(self.alternative if alternative is None else alternative)
        nested = self.details.get("nested")
        if method == "nested" and nested is None:
            raise ValueError(
                "`method`='nested' needs the extra fits of nested cross-validation; run "
                "cross_val_ci(..., method='nested')."
            )
        return _finish(self, method, level, alt)


def held_out_skewness(base: CVResult) -> float:
    """The skewness of a random-split estimate from the per-sample mean held-out values
    (``details["held_out"]``): :func:`mean_skewness` with weights proportional to how
    often each sample was held out (the estimate is exactly that weighted mean).  0, with
    a warning, for a metric that is not the mean of a per-sample value (no such values)."""
    held = base.details.get("held_out")
    if held is None:
        warn(
            f"method='corrected-skew' needs a metric that is the mean of a per-sample value "
            f"(accuracy, error_rate, log_loss, brier, mse, mae); {base.metric!r} is not, so "
            "its skewness is unknown and the interval is the corrected one."
        )
        return 0.0
    count = np.asarray(held["count"], dtype=float)
    ok = count > 0
    return mean_skewness(np.asarray(held["mean"], dtype=float)[ok], count[ok] / count[ok].sum())


def _finish(base: CVResult, method: str, level: float, alternative: str) -> CVResult:
    """The interval of ``method`` from the stored fold scores (and nested statistics)."""
    scores = base.fold_scores.ravel()
    extra: dict[str, Any] = {}
    if method == "corrected-skew" and base.cv != "holdout":
        raise ValueError(
            f"`method`='corrected-skew' is the interval of repeated random splits "
            f"(cv='holdout'); this run has cv={base.cv!r}. Use method='corrected' or "
            "'nested'."
        )
    if method == "nested" and base.cv == "loo":
        # the leave-one-out mean; its naive standard error s/√n times the inflation that
        # nested k-fold cross-validation measures on the same data (see cross_val_ci),
        # never below 1 (the spread of the leave-one-out estimate exceeds s/√n: 1.09-1.16
        # times it in the study of docs/validation.md)
        infl = max(1.0, float(base.details["nested"]["inflation"]))
        est = float(scores.mean())
        se = float(scores.std(ddof=1) / np.sqrt(scores.size) * infl)
        ci = normal_interval(est, se, level, alternative, base.bounds)
    elif method == "nested":
        nested = base.details["nested"]
        est, se = nested["estimate"], nested["standard_error"]
        ci = normal_interval(est, se, level, alternative, base.bounds)
    else:
        if scores.size < 2:
            raise ValueError(
                f"`method`={method!r} needs at least two fold scores; this run has "
                f"{scores.size} (use more folds or n_repeats >= 2)."
            )
        zeros = np.zeros_like(scores)
        if method == "naive":
            warn(
                f"method='naive' treats the {scores.size} fold scores as independent; "
                "they are not, and in mlci's coverage study (docs/validation.md) the share "
                "of replications in which its 95% interval covered its target was "
                f"{NAIVE_COVERAGE}. "
                "It is there for comparison: use method='corrected' or 'nested'."
            )
        if method == "naive":
            # the fold scores treated as independent (Student t, J - 1 df)
            t = kfold_cv_ttest(scores, zeros, confidence_level=level, alternative=alternative)
        else:
            # Nadeau & Bengio's correction of the variance for overlapping training sets
            n_train = max(1, round(base.n_train))
            n_test = max(1, round(base.n_test))
            t = corrected_resampled_ttest(
                scores, zeros, n_train=n_train, n_test=n_test,
                confidence_level=level, alternative=alternative,
            )  # fmt: skip
        est, se = float(t.estimate), float(t.details["standard_error"])
        assert t.confidence_interval is not None
        ci = clip(*t.confidence_interval, base.bounds)
        if method == "corrected-skew":
            skew = held_out_skewness(base)
            ci = clip(
                *skew_corrected_interval(est, se, skew, scores.size - 1, level, alternative),
                base.bounds,
            )
            extra["skewness"] = skew
    target = _TARGETS[method]
    return dataclasses.replace(
        base,
        details={**{k: v for k, v in base.details.items() if k != "skewness"}, **extra},
        estimate=float(est),
        confidence_interval=ci,
        confidence_level=level,
        method=method,
        alternative=alternative,
        standard_error=float(se),
        target=target,
        target_description=target_text(
            target,
            str(base.metric),
            base.n_samples,
            float(base.n_samples) if method == "nested" and base.cv != "loo" else base.n_train,
        ),
    )


# ----------------------------------------------------------------------------------------
# folds
# ----------------------------------------------------------------------------------------
def fold_ids(
    rng: np.random.Generator,
    n: int,
    k: int,
    *,
    strata: np.ndarray | None = None,
    groups: np.ndarray | None = None,
) -> np.ndarray:
    """A random assignment of ``n`` samples to ``k`` folds (fold sizes differ by at most
    one; by class within one with ``strata``; whole groups with ``groups``, the largest
    groups first, each to the fold with fewest samples so far).

    Examples
    --------
    >>> f = fold_ids(np.random.default_rng(0), 10, 3)
    >>> np.bincount(f).tolist()
    [4, 3, 3]
    """
    out = np.empty(n, dtype=np.intp)
    if groups is not None:
        _, inv = np.unique(groups, return_inverse=True)
        n_groups = int(inv.max()) + 1
        order = rng.permutation(n_groups)
        sizes = np.bincount(inv, minlength=n_groups)
        order = order[np.argsort(-sizes[order], kind="stable")]
        load = np.zeros(k, dtype=np.int64)
        fold_of = np.empty(n_groups, dtype=np.intp)
        for g in order:
            j = int(np.argmin(load))
            fold_of[g] = j
            load[j] += sizes[g]
        return fold_of[inv]
    if strata is None:
        out[rng.permutation(n)] = np.arange(n) % k
        return out
    start = 0
    _, inv = np.unique(strata, return_inverse=True)
    for c in range(int(inv.max()) + 1):
        idx = rng.permutation(np.flatnonzero(inv == c))
        out[idx] = (start + np.arange(len(idx))) % k
        start = (start + len(idx)) % k
    return out


def _check_cv(cv: Any, n_repeats: Any, test_size: Any, method: str) -> tuple[str, int, int, float]:
    if isinstance(cv, str):
        cv = check_choice("cv", cv, ("loo", "holdout"))
        k = 1
    elif isinstance(cv, bool) or not isinstance(cv, Integral):
        raise TypeError(
            f"`cv` must be a number of folds (int >= 2), 'loo' or 'holdout'; got {cv!r}."
        )
    else:
        k = check_positive_int("cv", cv, minimum=2)
        cv = "kfold"
    if isinstance(test_size, bool) or not isinstance(test_size, Real):
        raise TypeError(f"`test_size` must be a fraction in (0, 1); got {test_size!r}.")
    if not 0.0 < float(test_size) < 1.0:
        raise ValueError(f"`test_size` must be a fraction in (0, 1); got {test_size!r}.")
    loo_nested = cv == "loo" and method == "nested"
    if n_repeats is None:
        one = (method == "naive" and cv == "kfold") or (cv == "loo" and not loo_nested)
        reps = 1 if one else 10
    else:
        reps = check_positive_int("n_repeats", n_repeats)
    if cv == "loo" and reps != 1 and not loo_nested:
        raise ValueError(
            f"`n_repeats`={reps}: leave-one-out has no randomness to repeat; use n_repeats=1 "
            "(with method='nested' it counts the repetitions of the nested k-fold runs)."
        )
    if method == "corrected-skew" and cv != "holdout":
        raise ValueError(
            f"`method`='corrected-skew' is the interval of repeated random splits; it needs "
            f"cv='holdout' (got cv={cv!r}). Use method='corrected' or 'nested'."
        )
    if loo_nested:
        k = LOO_NESTED_K
    elif method == "nested":
        if cv != "kfold":
            raise ValueError(
                f"`method`='nested' needs k-fold cross-validation (`cv` an int >= 3) or "
                f"leave-one-out (cv='loo'); got cv={cv!r}."
            )
        if k < 3:
            raise ValueError(
                "`cv`=2 leaves no training data inside nested cross-validation; `method`="
                "'nested' needs cv >= 3 (Bates et al. use 5 or 10)."
            )
    return cv, k, reps, float(test_size)


def _split_plan(
    data: ProtocolData, cv: str, k: int, reps: int, test_size: float, stratify: bool, seed: Any
) -> tuple[str, list[np.ndarray]]:
    """One fold-id vector per repetition (holdout: 0 marks the test set, 1 the training)."""
    n = data.n
    if cv == "loo":
        return "loo", [np.arange(n)]
    if cv == "holdout":
        n_test = round(test_size * n)
        if not 1 <= n_test <= n - 1:
            raise ValueError(
                f"`test_size`={test_size} leaves {n_test} of {n} samples for testing; "
                "choose a fraction that keeps at least one sample on each side."
            )
        plans = []
        for r in range(reps):
            rng = block_generator(seed, Stream.CV_SPLITS, r)
            f = np.ones(n, dtype=np.intp)
            if stratify:  # each class gives its share (rounded) to the test set
                for c in np.unique(data.y):
                    idx = np.flatnonzero(data.y == c)
                    f[rng.choice(idx, round(test_size * len(idx)), replace=False)] = 0
            else:
                f[rng.choice(n, n_test, replace=False)] = 0
            plans.append(f)
        return "holdout", plans
    if data.groups is not None:
        n_groups = len(np.unique(data.groups))
        if n_groups < k:
            raise ValueError(
                f"`conditions` has {n_groups} distinct group(s) but `cv`={k} folds; folds "
                f"{', '.join(str(j + 1) for j in range(n_groups, k))} would be empty (groups "
                f"are never split). Use cv <= {n_groups}."
            )
        kind = "group-kfold"
    else:
        if n < k:
            raise ValueError(
                f"`X` and `y` hold {n} samples, fewer than `cv`={k} folds; use cv <= {n}."
            )
        kind = "stratified-kfold" if stratify else "kfold"
    plans = [
        fold_ids(
            block_generator(seed, Stream.CV_SPLITS, r),
            n,
            k,
            strata=data.y if stratify else None,
            groups=data.groups,
        )
        for r in range(reps)
    ]
    return kind, plans


def plan_fits(
    plans: list[np.ndarray], kind: str, k: int, seeds: list[int], nested: bool
) -> list[Fit]:
    """The fits of the plan: the outer folds of each repetition, then (nested) every pair."""
    fits: list[Fit] = []
    for r, f in enumerate(plans):
        rep = f"repetition {r + 1}"
        if kind == "holdout":
            fits.append(
                Fit(np.flatnonzero(f == 1), np.flatnonzero(f == 0), seeds[r], f"split {r + 1}")
            )
            continue
        n_folds = len(f) if kind == "loo" else k
        for a in range(n_folds):
            where = f"fold {a + 1} of {rep}" if kind != "loo" else f"left-out sample {a}"
            fits.append(Fit(np.flatnonzero(f != a), np.flatnonzero(f == a), seeds[r], where))
    if nested:
        for r, f in enumerate(plans):
            for a in range(k - 1):
                for b in range(a + 1, k):
                    out = (f == a) | (f == b)
                    fits.append(
                        Fit(
                            np.flatnonzero(~out),
                            np.flatnonzero(out),
                            seeds[r],
                            f"folds {a + 1} and {b + 1} (inner) of repetition {r + 1}",
                        )
                    )
    return fits


def mean_variance(values: np.ndarray, groups: np.ndarray | None = None) -> float:
    """The estimated variance of the mean of ``values``: ``s²/n`` for independent
    samples; with ``groups``, the cluster-robust (sandwich) variance
    ``G/(G-1) · Σ_g (Σ_{i∈g} (v_i - v̄))² / n²`` (Liang & Zeger 1986), which equals
    ``s²/n`` when every group holds one sample.

    Examples
    --------
    >>> v = np.array([1.0, 2.0, 4.0, 7.0])
    >>> bool(np.isclose(mean_variance(v), v.var(ddof=1) / 4))
    True
    >>> bool(np.isclose(mean_variance(v, np.arange(4)), v.var(ddof=1) / 4))
    True
    """
    n = len(values)
    if n < 2:
        return 0.0
    if groups is None:
        return float(values.var(ddof=1) / n)
    _, inv = np.unique(groups, return_inverse=True)
    g = int(inv.max()) + 1
    if g < 2:
        return 0.0
    s = np.bincount(inv, weights=values - values.mean(), minlength=g)
    return float(g / (g - 1) * np.sum(s**2) / n**2)


def held_out_means(fits: list[Fit], values: np.ndarray, n: int) -> dict[str, np.ndarray]:
    """Per sample: its mean value (loss, 0/1 correctness) over the splits that held it
    out (``mean``, NaN if none did) and how many did (``count``); ``values`` is the
    per-sample metric of every fit's test set, concatenated in the order of ``fits``.

    Examples
    --------
    >>> fits = [Fit(np.array([1, 2]), np.array([0]), 0, "a"),
    ...         Fit(np.array([0, 2]), np.array([1, 0]), 0, "b")]
    >>> h = held_out_means(fits, np.array([1.0, 3.0, 5.0]), 3)
    >>> h["mean"].tolist()[:2], h["count"].tolist()
    ([3.0, 3.0], [2, 1, 0])
    """
    idx = np.concatenate([f.test for f in fits])
    count = np.bincount(idx, minlength=n)
    total = np.bincount(idx, weights=values, minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    return {"mean": mean, "count": count}


def nested_statistics(
    plans: list[np.ndarray],
    k: int,
    fits: list[Fit],
    values: list[np.ndarray],
    groups: np.ndarray | None = None,
) -> dict[str, float]:
    """Bates, Hastie & Tibshirani's nested CV estimate of the MSE of the CV point
    estimate, the inflation of the naive standard error and the bias correction.

    ``values[i]`` are the per-sample metric values of ``fits[i]`` (outer folds first, in
    the order of :func:`plan_fits`).  Follows ``nested_cv``/``nested_cv_helper`` of the
    authors' R package (see the module's references), with two differences: folds may
    differ in size by one (every sample is used), and the bias correction uses the
    outer folds of the nested runs as its plain cross-validation runs (the R code runs
    ``ceiling(reps / 5)`` extra ones; both are k-fold CV on random folds).

    With ``groups`` (grouped folds), the two places where the R code treats samples as
    independent — the variance of an outer fold's mean (the ``b`` terms) and the naive
    standard error ``sd/√n`` that the inflation multiplies — use the cluster-robust
    variance of :func:`mean_variance` instead (a group's samples are correlated); the
    naive standard error becomes ``sd·√deff/√n`` with ``deff`` the design effect of the
    outer cross-validation means (cluster-robust over independent variance, averaged
    over repetitions).  Without groups the result is the R code's.

    Besides the R code's numbers, the result holds diagnostics of the floor of the
    inflation at 1 (see docs/validation.md, "Nested (Bates et al.)"): ``sd_nested``, the
    standard deviation of the nested models' losses (the R code's ``sd``, before any
    design effect); ``sd_outer``, that of the outer models' losses (the losses whose
    mean is the cross-validation estimate); ``mse_hat_se``, the standard error of
    ``mse_hat`` over the repetitions (NaN with one); ``nested_gap``, the mean of the
    ``a`` terms (the nested estimate minus the outer model's error on the same fold).
    """
    n = len(plans[0])
    reps = len(plans)
    outer = values[: reps * k]
    pairs = values[reps * k :]
    a_terms, b_terms, ho, cv_means = [], [], [], []
    deff_num: list[float] = []
    deff_den: list[float] = []
    p = 0
    for r, f in enumerate(plans):
        # h[(a, b)]: values on fold a of the model trained without folds a and b
        h: dict[tuple[int, int], np.ndarray] = {}
        for a in range(k - 1):
            for b in range(a + 1, k):
                v, test = pairs[p], fits[reps * k + p].test
                p += 1
                h[(a, b)] = v[f[test] == a]
                h[(b, a)] = v[f[test] == b]
        rep_outer = outer[r * k : (r + 1) * k]
        for a in range(k):
            e_in = np.concatenate([h[(b, a)] for b in range(k) if b != a])
            e_out = rep_outer[a]
            a_terms.append(e_in.mean() - e_out.mean())
            if groups is None:
                b_terms.append(e_out.var(ddof=1) / len(e_out) if len(e_out) > 1 else 0.0)
            else:
                b_terms.append(mean_variance(e_out, groups[fits[r * k + a].test]))
        ho.append(np.concatenate(list(h.values())))
        rep_values = np.concatenate(rep_outer)
        cv_means.append(rep_values.mean())
        if groups is not None:
            where = np.concatenate([fits[r * k + a].test for a in range(k)])
            deff_num.append(mean_variance(rep_values, groups[where]))
            deff_den.append(mean_variance(rep_values))
    ho_all = np.concatenate(ho)
    outer_all = np.concatenate(outer)
    a_arr, b_arr = np.asarray(a_terms), np.asarray(b_terms)
    per_rep = (a_arr**2 - b_arr).reshape(reps, k).mean(1)
    mse_hat_se = float(per_rep.std(ddof=1) / np.sqrt(reps)) if reps > 1 else float("nan")
    mse_hat = float(np.mean(a_arr**2) - np.mean(b_arr))
    sd = float(ho_all.std(ddof=1))
    sd_nested_raw = sd
    sd_outer = float(outer_all.std(ddof=1))
    deff = 1.0
    if groups is not None and np.sum(deff_den) > 0:
        deff = max(1.0, float(np.sum(deff_num) / np.sum(deff_den)))
        sd *= np.sqrt(deff)
    n_sub = np.floor(n * (k - 1) / k)
    if sd > 0:
        infl = np.sqrt(max(0.0, mse_hat)) / (sd / np.sqrt(n_sub))
        infl = float(np.clip(infl, 1.0, np.sqrt(k)))
    else:
        infl = 1.0
    raw = float(ho_all.mean())
    cv_mean = float(np.mean(cv_means))
    bias = (raw - cv_mean) * (1 + ((k - 2) / k) ** 1.5)
    return {
        "estimate": raw - bias,
        "standard_error": float(sd / np.sqrt(n) * infl),
        "mse_hat": mse_hat,
        "inflation": infl,
        "bias": float(bias),
        "nested_mean": raw,
        "cv_mean": cv_mean,
        "design_effect": deff,
        "n_reps": reps,
        "sd_nested": sd_nested_raw,
        "sd_outer": sd_outer,
        "mse_hat_se": mse_hat_se,
        "nested_gap": float(a_arr.mean()),
    }


@reports_progress
@per_confidence_level
def cross_val_ci(
    estimator: Any,
    X: Any,
    y: Any,
    *,
    metric: str = "accuracy",
    method: str | None = None,
    cv: int | str = 5,
    n_repeats: int | None = None,
    test_size: float = 0.2,
    conditions: Any = None,
    stratify: bool | None = None,
    pos_label: Any = None,
    confidence_level: float | list[float] = 0.95,
    alternative: str = "two-sided",
    rng: Any = None,
    n_jobs: int | None = None,
    progress: bool = False,
    dropna: bool = False,
) -> CVResult:
    """Cross-validate a scikit-learn estimator: the estimate, an interval and its target.

    Parameters
    ----------
    estimator : scikit-learn estimator
        Cloned for every fit (a ``GridSearchCV`` makes this nested cross-validation of
        the whole tuning procedure; its choices are in ``best_params``).  An unset
        ``random_state`` is seeded from ``rng``.
    X : array-like or DataFrame, one row per sample
        Passed to the estimator as given (a pipeline may impute missing values).
    y : array-like, shape (n_samples,)
        Class labels, or numbers for a regression metric; no missing value.
    metric : str, default "accuracy"
        A built-in metric: ``accuracy``, ``error_rate``, ``balanced_accuracy``, ``mcc``,
        ``cohen_kappa``, ``f1``, ``roc_auc``, ``average_precision``, ``log_loss``,
        ``brier`` (classifiers) or ``mse``, ``mae``, ``rmse``, ``r2`` (regressors).
        ``method="nested"`` needs the mean of a per-sample value (accuracy, error_rate,
        log_loss, brier, mse, mae).
    method : {"corrected", "naive", "nested", "corrected-skew"}, optional
        Default: ``"nested"`` for leave-one-out and ``"corrected-skew"`` for random
        splits with a per-sample metric (the intervals the coverage study recommends
        there), else ``"corrected"``.  For k-fold with a per-sample metric the study
        recommends ``"nested"`` (it covered its target in every cell) at about three
        times the fits of ``"corrected"``, which is the cheaper default (0.920–0.975
        of its target, but conservative, 0.985–0.990, for flexible regressions): ask
        for ``"nested"`` when the fits are affordable.
        ``"corrected"``: Nadeau & Bengio's variance ``(1/J + n_test/n_train)·s²`` of the
        ``J`` fold scores, Student t with ``J - 1`` df; target ``"algorithm"``.
        ``"corrected-skew"`` (``cv="holdout"`` only; the one recommended for random
        splits): the same standard error, with Hall's (1992) skewness correction of the
        t interval; the skewness is the estimate's, from every sample's mean held-out
        value over the splits that held it out (``details["held_out"]``,
        ``details["skewness"]``), so the interval is longer on the side the metric is
        skewed to (the upper side for MSE).  For a metric that is not the mean of a
        per-sample value (AUC, F1, MCC, R², RMSE) there are no such values: it warns
        and gives the corrected interval.
        ``"naive"``: the fold scores' standard error ``s/√J`` as if they were
        independent; target ``"algorithm"``; it **under-covers** (the folds share
        training data), and is given for comparison only.
        ``"nested"``: Bates, Hastie & Tibshirani's (2024) nested cross-validation:
        the bias-corrected estimate with the standard error inflated by their nested
        estimate of the CV estimate's mean squared error about the error of the model
        refit on all data; target ``"refit"``, that model's metric on new data, as the
        authors design it (covered 0.932–0.980 in the study; the expected metric at
        ``n`` 0.953–0.995, see the module docstring).  The inflation is between 1 and
        √k (the authors' rule).  Costs
        ``n_repeats · (k(k-1)/2 + k)`` fits; the result also gives the other two
        intervals from its outer folds (:meth:`CVResult.interval`).
        With ``cv="loo"``: the leave-one-out estimate with its naive standard error
        ``s/√n`` times the inflation factor that ``n_repeats`` runs of nested 5-fold
        cross-validation (as above) measure on the same data; target ``"refit"``;
        ``n + n_repeats · 15`` fits (250 at n = 100), at least 10
        samples.  The corrected interval over-covers for leave-one-out (it assumes a
        correlation of ``1/(n-1)`` between left-out losses) and the naive one
        under-covers; docs/validation.md has the numbers.
    cv : int, "loo" or "holdout", default 5
        Number of folds; ``"loo"`` leave-one-out; ``"holdout"`` ``n_repeats`` random
        splits with ``test_size`` held out (repeated random splits).
    n_repeats : int, optional
        Repetitions with new random folds.  Default: 1 for a naive k-fold and for
        leave-one-out, else 10 (Bouckaert & Frank's 10×10 for ``"corrected"``).
        Leave-one-out with ``method="nested"``: the repetitions of its nested 5-fold
        runs (default 10); otherwise leave-one-out takes only 1.
    test_size : float, default 0.2
        Fraction held out by ``cv="holdout"``.
    conditions : array-like, shape (n_samples,), optional
        Group of every sample (patient, speaker, document): a group is never split
        across folds (group k-fold).
    stratify : bool, optional
        Keep the class proportions in every fold (default: True for class labels
        without ``conditions``).
    pos_label : optional
        The positive class of ``roc_auc``, ``average_precision``, ``f1``, ... (default 1
        for 0/1 labels).
    confidence_level : float or list of float, default 0.95
        Several levels give a tuple of results, one per level, from the same fits.
    alternative : {"two-sided", "less", "greater"}, default "two-sided"
    rng : None, int, numpy.random.Generator or numpy.random.SeedSequence
        One seed for the whole protocol: the folds (stream ``CV_SPLITS``) and the
        estimator's ``random_state`` (stream ``TRAINING``).
    n_jobs : int, optional
        Fit in parallel with joblib (-1: all cores).  Results do not depend on it.
    progress : bool, default False
        Show a progress bar of the model fits on stderr (after about 2 seconds, on a
        terminal only, never in CI; see :mod:`mlci.feedback`).
    dropna : bool, default False
        Drop samples whose ``y`` or condition is missing instead of refusing them, and
        the rows of ``X`` with a missing entry (without it, ``X`` goes to the estimator
        as it is); ``details["n_dropped"]`` says how many.

    Returns
    -------
    CVResult
        ``estimate``, ``confidence_interval``, ``target`` and ``target_description``,
        ``fold_scores``; ``details["nested"]`` holds the nested statistics (inflation,
        bias, estimated MSE; for leave-one-out those of its nested ``k``-fold runs, whose
        own ``estimate`` and ``standard_error`` are there too but are not the result's);
        with ``cv="holdout"`` and a per-sample metric, ``details["held_out"]`` holds
        every sample's mean held-out value and how often it was held out (``"mean"``,
        ``"count"``), and ``details["skewness"]`` the estimate's skewness used by
        ``"corrected-skew"``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X, y = make_classification(150, random_state=1)
    >>> r = cross_val_ci(GaussianNB(), X, y, method="nested", n_repeats=3, rng=0)
    >>> r.target, r.n_fits
    ('refit', 45)
    >>> r.target_description
    'accuracy of the model refit on all 150 samples, on new data'
    >>> r.interval(method="corrected").target
    'algorithm'

    Leave-one-out, with its default interval (the inflation from 2 nested 5-fold runs):

    >>> loo = cross_val_ci(GaussianNB(), X[:40], y[:40], cv="loo", n_repeats=2, rng=0)
    >>> loo.method, loo.n_fits, loo.n_train
    ('nested', 70, 39.0)
    """
    require_sklearn("cross_val_ci")
    spec = metric_spec(metric, pos_label)
    if method is None:  # docs/validation.md: k-fold gets the cheaper "corrected"
        kind = cv if isinstance(cv, str) else "kfold"
        method = {"loo": "nested", "holdout": "corrected-skew"}.get(kind, "corrected")
        if not spec.pointwise:
            method = "corrected"
    method = check_choice("method", method, CV_METHODS)
    require_pointwise(spec, method)
    level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    p = _prepare(
        (estimator,), X, y, spec, method, cv, n_repeats, test_size, conditions, stratify,
        rng, n_jobs, dropna,
    )  # fmt: skip
    if method != "nested":
        n_outer = len(p.fits)
    else:
        n_outer = p.data.n if p.kind == "loo" else p.reps * p.k
    scores, kernel, edges, results = _run(estimator, p, spec, n_outer)
    details: dict[str, Any] = {"n_dropped": p.data.n_dropped}
    if method == "nested":
        pw = pointwise_values(kernel)
        values = [pw[edges[i] : edges[i + 1]] for i in range(len(p.fits))]
        if p.nested_plans is None:
            details["nested"] = nested_statistics(p.plans, p.k, p.fits, values, p.data.groups)
        else:  # leave-one-out: the nested k-fold runs after its n fits
            details["nested"] = {
                **nested_statistics(p.nested_plans, p.k, p.fits[n_outer:], values[n_outer:]),
                "k": p.k,
            }
    if p.kind == "holdout" and spec.pointwise:
        details["held_out"] = held_out_means(p.fits, pointwise_values(kernel), p.data.n)
    best = [b for _, b in results[:n_outer]]
    outer = p.fits[:n_outer]
    base = CVResult(
        estimate=float(scores.mean()),
        confidence_interval=ConfidenceInterval(np.nan, np.nan),
        confidence_level=level,
        method=method,
        metric=spec.name,
        details=details,
        cv=p.kind,
        n_samples=p.data.n,
        n_splits=p.n_splits,
        n_repeats=p.reps,
        n_train=float(np.mean([len(f.train) for f in outer])),
        n_test=float(np.mean([len(f.test) for f in outer])),
        fold_scores=scores.reshape(p.reps, p.n_splits),
        n_fits=len(p.fits),
        best_params=tuple(best) if all(b is not None for b in best) else None,
        bounds=spec.bounds,
    )
    return _finish(base, method, level, alternative)


@dataclass(frozen=True)
class _Prepared:
    data: ProtocolData
    kind: str
    k: int
    reps: int
    plans: list[np.ndarray]
    fits: list[Fit]
    workers: int | None
    #: leave-one-out with method="nested": the folds of the nested k-fold runs (their
    #: fits follow the ``n`` leave-one-out fits in ``fits``)
    nested_plans: list[np.ndarray] | None = None

    @property
    def n_splits(self) -> int:
        return 1 if self.kind == "holdout" else (self.data.n if self.kind == "loo" else self.k)


def _prepare(
    estimators: tuple[Any, ...],
    X: Any,
    y: Any,
    spec: MetricSpec,
    method: str,
    cv: Any,
    n_repeats: Any,
    test_size: Any,
    conditions: Any,
    stratify: Any,
    rng: Any,
    n_jobs: Any,
    dropna: Any,
) -> _Prepared:
    """Validate the shared options and data, and lay out the folds and fits."""
    cv_kind, k, reps, test_size = _check_cv(cv, n_repeats, test_size, method)
    seed = check_rng_seed(rng)
    workers = check_n_jobs(n_jobs)
    names = ("estimator",) if len(estimators) == 1 else ("estimator_a", "estimator_b")
    for name, est in zip(names, estimators, strict=True):
        check_estimator(est, spec, name)
    if stratify is not None:
        stratify = check_flag("stratify", stratify)
        if stratify and spec.regression:
            raise ValueError(
                f"`stratify`=True keeps class proportions; {spec.name!r} is a regression metric."
            )
    data = read_protocol_data(X, y, spec, conditions=conditions, dropna=dropna)
    if data.groups is not None:
        if stratify:
            raise ValueError(
                "`stratify`=True cannot be combined with `conditions` (whole groups go to "
                "the folds); leave stratify unset."
            )
        if cv_kind != "kfold":
            raise ValueError(
                f"`conditions` needs k-fold cross-validation (`cv` an int); got {cv!r}."
            )
    strat = (not spec.regression and data.groups is None) if stratify is None else stratify
    if cv_kind == "loo" and method == "nested":
        return _prepare_loo_nested(data, k, reps, strat, seed, workers)
    kind, plans = _split_plan(data, cv_kind, k, reps, test_size, strat, seed)
    seeds = [fit_seed(seed, r) for r in range(reps)]
    fits = plan_fits(plans, kind, k, seeds, method == "nested")
    return _Prepared(data, kind, k, reps, plans, fits, workers)


def _prepare_loo_nested(
    data: ProtocolData,
    k: int,
    reps: int,
    strat: bool,
    seed: Any,
    workers: int | None,
) -> _Prepared:
    """Leave-one-out's ``n`` fits, then ``reps`` nested ``k``-fold runs (each
    ``k + k(k-1)/2`` fits) on the same data for the inflation of its standard error."""
    n = data.n
    if n < 2 * k:
        raise ValueError(
            f"`method`='nested' with `cv`='loo' measures the inflation of the standard error "
            f"by nested {k}-fold cross-validation, which needs at least {2 * k} samples (two "
            f"per fold); `X` and `y` hold {n}. Use method='corrected' (or 'naive')."
        )
    _, loo = _split_plan(data, "loo", 1, 1, 0.2, strat, seed)
    _, plans = _split_plan(data, "kfold", k, reps, 0.2, strat, seed)
    fits = plan_fits(loo, "loo", 1, [fit_seed(seed, 0)], False)
    inner = plan_fits(plans, "kfold", k, [fit_seed(seed, 1 + r) for r in range(reps)], True)
    fits += [dataclasses.replace(f, where=f"{f.where} of the nested {k}-fold runs") for f in inner]
    return _Prepared(data, "loo", k, 1, loo, fits, workers, nested_plans=plans)


def _run(
    estimator: Any, p: _Prepared, spec: MetricSpec, n_outer: int
) -> tuple[np.ndarray, Any, np.ndarray, list[tuple[Any, Any]]]:
    """Fit every fit of ``p``; the metric on the first ``n_outer`` test sets (an error
    naming the fold where it is undefined), the pooled kernel and its slice edges."""
    results = fit_all(estimator, p.data, spec, p.fits, n_jobs=p.workers)
    y_all = np.concatenate([p.data.y[f.test] for f in p.fits])
    kernel = pooled_kernel(spec, y_all, [r for r, _ in results])
    edges = np.concatenate([[0], np.cumsum([len(f.test) for f in p.fits])])
    slices = [(int(edges[i]), int(edges[i + 1])) for i in range(n_outer)]
    scores = set_scores(kernel, slices)
    bad = np.flatnonzero(~np.isfinite(scores))
    if bad.size:
        f = p.fits[bad[0]]
        cls = np.unique(p.data.y[f.test])
        why = f" (its test set holds only class {cls[0]!r})" if len(cls) == 1 else ""
        raise ValueError(
            f"The metric {spec.name!r} is undefined on {f.where}{why}; use stratified folds, "
            "fewer folds or more data."
        )
    return scores, kernel, edges, results


@reports_progress
@fill_doc
def cross_val_compare(
    estimator_a: Any,
    estimator_b: Any,
    X: Any,
    y: Any,
    *,
    metric: str = "accuracy",
    method: str = "corrected",
    cv: int | str = 10,
    n_repeats: int | None = None,
    test_size: float = 0.2,
    conditions: Any = None,
    stratify: bool | None = None,
    pos_label: Any = None,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    rng: Any = None,
    n_jobs: int | None = None,
    progress: bool = False,
    dropna: bool = False,
) -> TestResult:
    """Compare two learning algorithms on the same cross-validation folds.

    Both estimators are fitted on every training set of the same folds (the same
    ``random_state`` in each) and scored with an mlci metric.  ``method="corrected"``
    passes the fold differences A − B to :func:`mlci.corrected_resampled_ttest`
    (Nadeau & Bengio; Bouckaert & Frank's 10×10-fold by default), ``"naive"`` to
    :func:`mlci.kfold_cv_ttest` (fold differences treated as independent: an inflated
    type I error, for comparison only), and ``"nested"`` runs Bates, Hastie &
    Tibshirani's nested cross-validation (as :func:`cross_val_ci` does) on the
    per-sample differences of the two algorithms' values: a normal interval and test
    with the nested standard error.  The target is the difference between the expected
    metrics of the two algorithms trained on ``n_train`` samples (``"nested"``: between
    the two models refit on all ``n`` samples, Bates et al.'s target, as in
    :func:`cross_val_ci`).  In mlci's coverage study (docs/validation.md, five pairs of
    algorithms) both are conservative where the two algorithms are close: the corrected
    interval covered 0.977–1.000, the nested one 0.943–0.995 (0.965–0.998 of the
    algorithms at ``n``; the spread of the CV difference is smaller than even the
    per-sample naive standard error that floors the nested one).

    Parameters
    ----------
    estimator_a, estimator_b : scikit-learn estimators
    X, y, metric, cv, n_repeats, test_size, conditions, stratify, pos_label, rng, n_jobs,
    progress, dropna
        As in :func:`cross_val_ci` (``cv`` 10 by default; ``"loo"`` refused: one
        sample per fold gives no variance of a difference worth testing).
    method : {"corrected", "naive", "nested"}, default "corrected"
        ``"nested"`` needs a metric that is the mean of a per-sample value and
        ``n_repeats·(k(k−1)/2 + k)`` fits of each estimator.
    confidence_level : float, default 0.95
    %(alternative_test)s

    Returns
    -------
    TestResult
        ``estimate`` the mean difference A − B with its interval; ``details`` hold the
        fold score tables ``scores_a``, ``scores_b`` (repetitions × outer folds),
        ``n_train``, ``n_test``, the ``target``, and with ``"nested"`` the nested
        statistics (``details["nested"]``, as in :func:`cross_val_ci`).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = make_classification(150, random_state=0)
    >>> r = cross_val_compare(GaussianNB(), DecisionTreeClassifier(max_depth=2), X, y,
    ...                       cv=5, n_repeats=2, rng=0)
    >>> r.method, r.details["scores_a"].shape
    ('corrected-resampled-t', (2, 5))
    """
    require_sklearn("cross_val_compare")
    method = check_choice("method", method, ("naive", "corrected", "nested"))
    spec = metric_spec(metric, pos_label)
    require_pointwise(spec, method)
    level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    if isinstance(cv, str) and cv == "loo":
        raise ValueError("`cv`='loo' is not offered for comparisons; use k folds (e.g. 10).")
    p = _prepare(
        (estimator_a, estimator_b), X, y, spec, method, cv, n_repeats, test_size,
        conditions, stratify, rng, n_jobs, dropna,
    )  # fmt: skip
    n = len(p.fits) if method != "nested" else p.reps * p.k
    run_a, run_b = _run(estimator_a, p, spec, n), _run(estimator_b, p, spec, n)
    a = run_a[0].reshape(p.reps, p.n_splits)
    b = run_b[0].reshape(p.reps, p.n_splits)
    outer = p.fits[:n]
    n_train = float(np.mean([len(f.train) for f in outer]))
    n_test = float(np.mean([len(f.test) for f in outer]))
    if method == "naive":
        t = kfold_cv_ttest(a.ravel(), b.ravel(), confidence_level=level, alternative=alternative)
    else:
        t = corrected_resampled_ttest(
            a, b, n_train=max(1, round(n_train)), n_test=max(1, round(n_test)),
            confidence_level=level, alternative=alternative,
        )  # fmt: skip
    if method == "nested":
        # Bates et al.'s nested CV on the per-sample differences of the two algorithms'
        # values (both fitted on the same training sets, scored on the same samples)
        (_, kern_a, edges, _), (_, kern_b, _, _) = run_a, run_b
        diff = pointwise_values(kern_a) - pointwise_values(kern_b)
        values = [diff[edges[i] : edges[i + 1]] for i in range(len(p.fits))]
        nested = nested_statistics(p.plans, p.k, p.fits, values, p.data.groups)
        lo, hi = spec.bounds
        est, se = nested["estimate"], nested["standard_error"]
        ci = normal_interval(est, se, level, alternative, (lo - hi, hi - lo))
        z = est / se if se > 0 else (0.0 if est == 0 else np.copysign(np.inf, est))
        t = dataclasses.replace(
            t,
            statistic=float(z),
            pvalue=normal_pvalue(float(z), alternative),
            method="nested-cv",
            df=None,
            estimate=float(est),
            confidence_interval=ci,
            details={"standard_error": float(se), "nested": nested},
        )
    if method == "nested":  # Bates et al.'s target, as in cross_val_ci
        target = (
            f"difference A - B of the {spec.name} on new data of the two models refit on all "
            f"{p.data.n} samples"
        )
    else:
        target = (
            f"difference A - B of the expected {spec.name} of the two learning algorithms "
            f"trained on {n_train:.4g} samples"
        )
    return dataclasses.replace(
        t,
        details={
            **t.details,
            "scores_a": a,
            "scores_b": b,
            "n_train": n_train,
            "n_test": n_test,
            "cv": p.kind,
            "metric": spec.name,
            "target": target,
            "n_dropped": p.data.n_dropped,
        },
    )
