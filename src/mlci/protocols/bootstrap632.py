"""The bootstrap estimators of prediction error: out-of-bag (leave-one-out bootstrap),
.632 and .632+ (Efron & Tibshirani 1997), with the delta-method standard error.

The estimator is fitted on ``B`` bootstrap samples of the data (drawn by the engine's iid
plan on the :attr:`~mlci.engine.sampler.Stream.TRAINING` stream) and every sample is
scored by the models whose bootstrap sample left it out:

- ``Err1`` (``variant="oob"``): the mean over samples of their mean out-of-bag loss,
  the leave-one-out bootstrap ``Err^(1)`` of Efron & Tibshirani (1997, eq. 6-7);
- ``.632``: ``0.368·err + 0.632·Err1``, with ``err`` the apparent (training) loss;
- ``.632+``: the weight of ``Err1`` raised with the relative overfitting rate
  ``R = (Err1 - err) / (gamma - err)``, ``gamma`` the no-information loss (eq. 27-32).

The standard error is Efron & Tibshirani's nonparametric delta method for ``Err1``
(eq. 35-39) with the Monte-Carlo (internal) variance of the ``B`` bootstraps removed by a
jackknife over the bootstraps (eq. 42-43), scaled to the .632/.632+ estimate by the ratio
of the estimates, as in the function ``boot632`` of Bates et al.'s R package ``nestedcv``
(github.com/stephenbates19/nestedcv, R/632.R).  Targets: the expected loss of the
learning algorithm trained on ``n`` samples for .632 and .632+, on about ``0.632·n``
samples for the out-of-bag ``Err1`` (each of its models saw about 63% of the distinct
samples; Efron & Tibshirani 1997, section 3).

Coverage (the study of docs/validation.md, accuracy, n = 100, logistic regression and
k-NN; the same data sets with B = 200 and B = 1000 bootstraps): the .632+ interval
covered the algorithm at ``n`` in 0.917–0.920 of 300 replications with B = 200, and in
0.932 ± 0.013 (logistic regression) and 0.938 ± 0.012 (k-NN) of 400 with B = 1000; .632
in 0.913–0.927 and 0.922–0.945; the ``Err1`` interval its own target in 0.923–0.940
(B = 200) and 0.965–0.968 (B = 1000).  With B = 200 the delta-method standard error is
right on average but noisy: the Monte-Carlo ("internal") variance it removes is larger
than the variance it keeps.  Hence the default of 1000 bootstraps, and a warning for
.632/.632+ with fewer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.resampling import make_plan
from ..engine.sampler import Stream, stream_seed
from ..feedback import reports_progress, warn
from ..inputs import (
    check_alternative,
    check_choice,
    check_confidence_level,
    check_positive_int,
    check_rng_seed,
    knobs_in_config,
)
from ..results import IntervalResult, per_confidence_level
from ._fitting import (
    Fit,
    check_estimator,
    check_n_jobs,
    fit_all,
    fit_seed,
    metric_spec,
    pointwise_values,
    pooled_kernel,
    read_protocol_data,
    require_sklearn,
)
from .crossval import normal_interval, reread_normal, target_text

__all__ = ["BOOTSTRAP_VARIANTS", "BootstrapErrorResult", "bootstrap632_ci", "oob_standard_error"]

BOOTSTRAP_VARIANTS = ("632+", "632", "oob")
_SCORES = ("accuracy",)  # higher is better: computed as the loss 1 - accuracy
#: the warning of the .632 and .632+ variants (the study's numbers, docs/validation.md)
BOOTSTRAP_WARNING = (
    "The .{variant} interval with n_bootstraps={b} is approximate: its standard error is "
    "noisy with fewer than 1000 bootstraps; in mlci's coverage study (accuracy, n = 100) "
    "the 95% interval covered its target in 0.917-0.920 of the replications with 200 "
    "bootstraps and in 0.932-0.938 with 1000. Use n_bootstraps >= 1000."
)


@dataclass(frozen=True, kw_only=True, repr=False)
class BootstrapErrorResult(IntervalResult):
    """A bootstrap estimate of prediction error (out-of-bag, .632 or .632+).

    Attributes (in addition to :class:`~mlci.IntervalResult`'s)
    ----------------------------------------------------------
    variant : {"632+", "632", "oob"}
    target, target_description : str
        ``"algorithm"``: the expected metric of the learning algorithm trained on
        ``n_samples`` samples (.632, .632+) or about ``0.632·n_samples`` (``"oob"``).
    n_samples, n_bootstraps : int
    apparent : float
        The metric of the model fitted on all data, on the same data.
    oob : float
        The leave-one-out bootstrap estimate ``Err1`` (in the metric's scale).
    no_information : float
        ``gamma``: the metric when inputs and labels are paired at random.
    relative_overfitting : float
        ``R`` in [0, 1] (.632+ only; 0 otherwise).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X, y = make_classification(80, random_state=0)
    >>> r = bootstrap632_ci(GaussianNB(), X, y, variant="oob", n_bootstraps=30, rng=0)
    >>> r.variant, r.target, r.target_description
    ('oob', 'algorithm', 'expected accuracy of the learning algorithm trained on 50.56 samples')
    """

    variant: str = "632+"
    target: str = "algorithm"
    target_description: str = ""
    n_samples: int = 0
    n_bootstraps: int = 0
    apparent: float = float("nan")
    oob: float = float("nan")
    no_information: float = float("nan")
    relative_overfitting: float = 0.0
    bounds: tuple[float, float] = (-np.inf, np.inf)

    def interval(
        self,
        method: str | None = None,
        confidence_level: Any = None,
        alternative: str | None = None,
    ) -> Any:
        """The interval at another confidence level (a sequence gives a tuple) or
        alternative, from the same estimate and standard error (no refitting).

        Parameters
        ----------
        method : {"delta"}, optional
            The only interval of this result (a normal interval with the delta-method
            standard error).
        confidence_level : float or sequence of float, optional
        alternative : {"two-sided", "less", "greater"}, optional

        Returns
        -------
        BootstrapErrorResult, or tuple of them (one per level)

        Examples
        --------
        >>> from sklearn.datasets import make_classification
        >>> from sklearn.naive_bayes import GaussianNB
        >>> X, y = make_classification(80, random_state=0)
        >>> r = bootstrap632_ci(GaussianNB(), X, y, variant="oob", n_bootstraps=30, rng=0)
        >>> r.interval(confidence_level=0.9).confidence_level
        0.9
        """
        return reread_normal(
            self,
            method,
            confidence_level,
            alternative,
            methods=(self.method,),
            refusal=f"bootstrap632_ci's interval is {self.method!r} (normal, with the "
            "delta-method standard error) and has no replicates to read another from.",
        )

    def _tail(self) -> list[str]:
        return [
            f"variant={self.variant!r}",
            f"target={self.target!r} ({self.target_description})",
            f"n_bootstraps={self.n_bootstraps}",
        ]

    def rows(self) -> list[dict[str, Any]]:
        """:meth:`IntervalResult.rows` with the variant, target, apparent, oob and
        no-information values."""
        extra = {
            "variant": self.variant,
            "target": self.target,
            "n_bootstraps": self.n_bootstraps,
            "apparent": self.apparent,
            "oob": self.oob,
            "no_information": self.no_information,
        }
        return [{**r, **extra} for r in super().rows()]


def oob_standard_error(counts: np.ndarray, losses: np.ndarray) -> tuple[float, float, float]:
    """Efron & Tibshirani's (1997) delta-method standard error of the leave-one-out
    bootstrap ``Err1``, and that standard error with the internal (Monte-Carlo) variance
    of the bootstraps removed.

    Parameters
    ----------
    counts : ndarray, shape (B, n)
        ``N_i^b``: how often sample ``i`` is in bootstrap sample ``b``.
    losses : ndarray, shape (B, n)
        ``Q_i^b``: the loss of the model of bootstrap ``b`` on sample ``i`` (used where
        ``N_i^b = 0``).

    Returns
    -------
    (err1, se, se_adjusted)
        ``se`` from eq. 35-39: ``sqrt(sum_i D_i^2)``, ``D_i = (2 + 1/(n-1)) (E_i -
        Err1)/n + e_n cov_b(N_i^b, q^b)``, ``q^b = sum_i I_i^b Q_i^b / n``,
        ``e_n = (1 - 1/n)^-n``; ``se_adjusted = sqrt(se^2 - se_internal^2)`` (eq. 42-43,
        NaN when negative), ``se_internal`` the jackknife over bootstraps of the ``D_i``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> c = rng.multinomial(20, np.full(20, 1 / 20), size=50)
    >>> err1, se, adj = oob_standard_error(c, (rng.random((50, 20)) < 0.3).astype(float))
    >>> bool(0 < se < 0.2)
    True
    """
    b_count, n = counts.shape
    out = counts == 0
    ql = np.where(out, losses, 0.0)
    s_i, n_i = ql.sum(axis=0), out.sum(axis=0)
    e_i = s_i / n_i
    err1 = float(e_i.mean())
    e_n = (1 - 1 / n) ** (-n)
    q = ql.sum(axis=1) / n
    cb = counts - counts.mean(axis=0)
    cov = cb.T @ (q - q.mean()) / (b_count - 1)
    c1 = 2 + 1 / (n - 1)
    d = c1 * (e_i - err1) / n + e_n * cov
    se = float(np.sqrt(np.sum(d**2)))
    # the same with each bootstrap left out in turn (all at once: rows = left-out b)
    s_b = s_i[None, :] - ql
    n_b = n_i[None, :] - out
    with np.errstate(invalid="ignore", divide="ignore"):
        e_ib = s_b / n_b
    e_b = e_ib.mean(axis=1, keepdims=True)
    sum_c, sum_q, t = counts.sum(axis=0), q.sum(), counts.T @ q
    m_c = (sum_c[None, :] - counts) / (b_count - 1)
    m_q = (sum_q - q) / (b_count - 1)
    cov_b = (t[None, :] - counts * q[:, None] - (b_count - 1) * m_c * m_q[:, None]) / (b_count - 2)
    d_b = c1 * (e_ib - e_b) / n + e_n * cov_b
    internal = np.sum(d_b.var(axis=0, ddof=1) * (b_count - 1) ** 2 / b_count)
    adj = se**2 - internal
    return err1, se, float(np.sqrt(adj)) if np.isfinite(adj) and adj > 0 else float("nan")


@knobs_in_config
@reports_progress
@per_confidence_level
def bootstrap632_ci(
    estimator: Any,
    X: Any,
    y: Any,
    *,
    metric: str = "accuracy",
    variant: str = "632+",
    n_bootstraps: int = 1000,
    pos_label: Any = None,
    confidence_level: float | list[float] = 0.95,
    alternative: str = "two-sided",
    rng: Any = None,
    dropna: bool = False,
) -> BootstrapErrorResult:
    """Out-of-bag, .632 or .632+ bootstrap estimate of prediction error, with an interval.

    Parameters
    ----------
    estimator : scikit-learn estimator
        Cloned and fitted on ``n_bootstraps`` bootstrap samples and once on all data (an
        unset ``random_state`` is seeded from ``rng``).
    X : array-like or DataFrame, one row per sample
    y : array-like, shape (n_samples,)
        Class labels, or numbers for ``mse``/``mae``.
    metric : {"accuracy", "error_rate", "log_loss", "brier", "mse", "mae"}
        The mean of a per-sample loss (accuracy is handled as the loss ``1 - accuracy``
        and reported as accuracy).
    variant : {"632+", "632", "oob"}, default "632+"
        ``"oob"``: the leave-one-out bootstrap ``Err1`` (pessimistic for training size
        ``n``: each model saw about 63% of the distinct samples; its interval is for
        the algorithm at ``0.632·n`` and holds there in the study); ``"632"``: Efron's
        (1983) blend with the apparent error (optimistic for overfitting learners);
        ``"632+"``: Efron & Tibshirani's (1997) correction for overfitting.  With
        fewer than 1000 bootstraps the .632 and .632+ intervals under-cover (0.917–0.920
        with 200 in the study) and warn.
    n_bootstraps : int, default 1000
        Bootstrap fits (≥ 10).  The standard error needs many: with 200 its Monte-Carlo
        noise made the .632/.632+ intervals under-cover in the study (0.917–0.920), with
        1000 they held (0.932–0.938); fewer than 1000 warns for these variants.
    pos_label : optional
        The positive class for a one-column ``log_loss``/``brier``.
    confidence_level : float or list of float, default 0.95
        Several levels give a tuple of results, one per level, from the same fits.
    alternative : {"two-sided", "less", "greater"}
    rng : None, int, numpy.random.Generator or numpy.random.SeedSequence
        Seed of the bootstrap samples and of the estimator's ``random_state``.
    dropna : bool, default False
        Drop samples with a missing ``y`` (or ``X`` entry) instead of refusing them.

    Returns
    -------
    BootstrapErrorResult
        ``estimate`` with a normal interval ``estimate ± z·se`` (``se`` the
        delta-method standard error, see :func:`oob_standard_error`),
        ``details["standard_error_unadjusted"]`` the standard error before the internal
        variance is removed, ``details["standard_error_oob"]`` the standard error of the
        out-of-bag estimate ``Err1`` that the others are scaled from.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X, y = make_classification(80, random_state=0)
    >>> r = bootstrap632_ci(GaussianNB(), X, y, variant="oob", n_bootstraps=30, rng=0)
    >>> bool(r.confidence_interval.low < r.estimate < r.confidence_interval.high)
    True
    """
    require_sklearn("bootstrap632_ci")
    variant = check_choice("variant", variant, BOOTSTRAP_VARIANTS)
    spec = metric_spec(metric, pos_label)
    if not spec.pointwise:
        raise ValueError(
            f"`metric`={spec.name!r}: the bootstrap estimators need the mean of a per-sample "
            "loss (accuracy, error_rate, log_loss, brier, mse, mae)."
        )
    b_count = check_positive_int("n_bootstraps", n_bootstraps, minimum=10)
    level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    seed = check_rng_seed(rng)
    workers = check_n_jobs(None)  # the configured threads (mlci.config_context)
    check_estimator(estimator, spec)
    data = read_protocol_data(X, y, spec, dropna=dropna)
    n = data.n
    plan = make_plan(n, n_resamples=b_count, rng=stream_seed(seed, Stream.TRAINING))
    counts = plan.weights_for().all_replicates().astype(np.intp)
    every = np.arange(n)
    fits = [
        Fit(np.repeat(every, counts[b]), every, fit_seed(seed, b), f"bootstrap sample {b + 1}")
        for b in range(b_count)
    ]
    fits.append(Fit(every, every, fit_seed(seed, b_count), "the fit on all data"))
    results = fit_all(estimator, data, spec, fits, n_jobs=workers)
    preds = [p for p, _ in results]
    kernel = pooled_kernel(spec, np.tile(data.y, b_count + 1), preds)
    values = pointwise_values(kernel).reshape(b_count + 1, n)
    flip = spec.name in _SCORES
    losses = 1.0 - values if flip else values
    # a sample in every bootstrap sample has no out-of-bag loss: left out of Err1
    # (Efron & Tibshirani 1997, after eq. 7), and counted
    usable = (counts == 0).any(axis=0)
    if usable.sum() < 2:
        raise ValueError(
            f"Fewer than two samples are out of bag in some of the {b_count} bootstrap "
            "samples; use more `n_bootstraps`."
        )
    err1, se1, se_adj = oob_standard_error(counts[:, usable], losses[:b_count, usable])
    apparent = float(losses[b_count].mean())
    gamma = _no_information(spec, data.y, preds[-1])
    err1p = min(err1, gamma)
    if variant == "oob":
        est, r_over = err1, 0.0
    elif variant == "632":
        est, r_over = 0.368 * apparent + 0.632 * err1, 0.0
    else:
        ok = err1 > apparent and gamma > apparent
        r_over = float((err1p - apparent) / (gamma - apparent)) if ok else 0.0
        w = 0.632 / (1 - 0.368 * r_over)
        est = (1 - w) * apparent + w * err1p
    if variant != "oob" and b_count < 1000:
        warn(BOOTSTRAP_WARNING.format(variant=variant, b=b_count))
    se_base = se_adj if np.isfinite(se_adj) else se1
    se = se_base * (est / err1) if err1 > 0 else se_base
    lo_b, hi_b = spec.bounds
    if flip:  # report accuracy: estimate and interval of 1 - loss
        alt = {"less": "greater", "greater": "less"}.get(alternative, alternative)
        ci_loss = normal_interval(est, se, level, alt, (1 - hi_b, 1 - lo_b))
        ci = type(ci_loss)(1 - ci_loss.high, 1 - ci_loss.low)
        show_est, show_err1, show_app, show_gamma = 1 - est, 1 - err1, 1 - apparent, 1 - gamma
    else:
        ci = normal_interval(est, se, level, alternative, spec.bounds)
        show_est, show_err1, show_app, show_gamma = est, err1, apparent, gamma
    return BootstrapErrorResult(
        estimate=float(show_est),
        confidence_interval=ci,
        confidence_level=level,
        method="delta",
        alternative=alternative,
        standard_error=float(se),
        metric=spec.name,
        details={
            "n_dropped": data.n_dropped,
            "standard_error_unadjusted": float(se1 * (est / err1) if err1 > 0 else se1),
            "standard_error_oob": float(se_base),
            "internal_variance_removed": bool(np.isfinite(se_adj)),
            "n_never_out_of_bag": int(n - usable.sum()),
        },
        variant=variant,
        target="algorithm",
        target_description=target_text(
            "algorithm", spec.name, n, 0.632 * n if variant == "oob" else n
        ),
        n_samples=n,
        n_bootstraps=b_count,
        apparent=float(show_app),
        oob=float(show_err1),
        no_information=float(show_gamma),
        bounds=(float(spec.bounds[0]), float(spec.bounds[1])),
        relative_overfitting=float(r_over),
    )


def _no_information(spec: Any, y: np.ndarray, pred: np.ndarray) -> float:
    """``gamma``: the mean loss over all ``n²`` pairs of a label and a prediction of the
    model fitted on all data (Efron & Tibshirani 1997, eq. 27); for 0/1 loss
    ``sum_k p_k (1 - q_k)`` from the class and prediction frequencies."""
    n = len(y)
    if spec.name in ("accuracy", "error_rate"):
        classes, yi = np.unique(np.concatenate([y, pred]), return_inverse=True)
        p = np.bincount(yi[:n], minlength=len(classes)) / n
        q = np.bincount(yi[n:], minlength=len(classes)) / n
        return float(np.sum(p * (1 - q)))
    total, rows = 0.0, max(1, 2_000_000 // n)
    for s in range(0, n, rows):
        e = min(n, s + rows)
        reps = (e - s,) + (1,) * (pred.ndim - 1)
        kernel = pooled_kernel(spec, np.repeat(y[s:e], n), [np.tile(pred, reps)])
        total += float(pointwise_values(kernel).sum())
    return total / n**2
