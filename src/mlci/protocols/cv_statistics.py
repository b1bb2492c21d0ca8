"""Statistics of the held-out values of a cross-validation: the variance of a mean (with
groups), the held-out mean of every sample, the nested cross-validation's inflation of the
standard error (Bates, Hastie & Tibshirani 2024), and the skewness of a weighted mean."""

import numpy as np

from ._fitting import (
    Fit,
)

__all__ = ["held_out_means", "mean_skewness", "mean_variance", "nested_statistics"]


def mean_skewness(values: np.ndarray, weights: np.ndarray) -> float:
    """The skewness of the weighted mean ``Σ w_i v_i`` (weights summing to one) of
    independent values: ``m3·Σw³ / (m2·Σw²)^(3/2)``, with ``m2`` and ``m3`` the
    (bias-adjusted) second and third central moments of ``values`` around the weighted
    mean; for equal weights the sample skewness over ``√n``.  0 for fewer than three
    values or no spread.

    Examples
    --------
    >>> v = np.array([0.1, 0.2, 0.4, 2.0])
    >>> from scipy import stats
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
