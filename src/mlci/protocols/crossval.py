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
from typing import Any

import numpy as np

from ..classical.pvalues import normal_pvalue
from ..feedback import reports_progress, warn
from ..inputs import (
    check_alternative,
    check_choice,
    check_confidence_level,
    confidence_levels,
    fill_doc,
    knobs_in_config,
)
from ..intervals.formulas import quantile, tails, wald_interval
from ..results import ConfidenceInterval, IntervalResult, TestResult, per_confidence_level
from ._fitting import (
    MetricSpec,
    metric_spec,
    pointwise_values,
    require_sklearn,
)
from .cv_statistics import held_out_means, mean_skewness, nested_statistics
from .cv_tests import corrected_resampled_ttest, kfold_cv_ttest
from .splits import _prepare, _run, fold_ids

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


@knobs_in_config
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
        rng, dropna,
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


@knobs_in_config
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
    X, y, metric, cv, n_repeats, test_size, conditions, stratify, pos_label, rng, dropna
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
        conditions, stratify, rng, dropna,
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
