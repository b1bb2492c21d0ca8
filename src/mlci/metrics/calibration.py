"""Calibration metrics: binned calibration errors, logistic recalibration, Brier decomposition.

Every binned metric is a function of three weighted sums per bin (count, sum of outcomes,
sum of predicted probabilities), so it is an :class:`~mlci.metrics._base.AdditiveKernel`:
a bootstrap replicate is a vector of counts, never a copy of the data.

Binning (``n_bins``, ``strategy``) is fixed on the data and held fixed across replicates:
the interval is for the calibration error *with these bins*.  ``"uniform"`` bins are
``(i/B, (i+1)/B]`` (the first one also holds 0), as scikit-learn's ``calibration_curve``
and Kumar et al.'s ``calibration`` package; ``"quantile"`` edges are the percentiles of
the predicted probabilities (``calibration_curve(strategy="quantile")``).

* ``ece``: expected calibration error, ``sum_b n_b/n |mean(y)_b - mean(p)_b|`` (Naeini
  et al. 2015; Guo et al. 2017).  ``mode="top_label"`` bins the confidence of the
  predicted class against its correctness (Guo et al.), ``"classwise"`` averages the
  one-vs-rest ECE of every class (Kull et al. 2019; Kumar et al.'s ``mode="marginal"``),
  ``"positive"`` bins P(positive class) against the positive outcome.
* ``ece_debiased``: Kumar, Liang & Ma (2019, "Verified uncertainty calibration",
  NeurIPS) debiased estimator of the l2 calibration error: per bin with at least two
  samples ``(mean(y) - mean(p))^2 - mean(y)(1 - mean(y)) / (n_b - 1)``, weighted by
  ``n_b/n``, then ``sqrt(max(., 0))`` (their ``get_calibration_error(p=2, debias=True)``).
* ``mce``: maximum calibration error over non-empty bins (Naeini et al. 2015).
* ``calibration_slope``, ``calibration_intercept``: logistic recalibration (Cox 1958; Van
  Calster et al. 2019, "Calibration: the Achilles heel of predictive analytics", BMC
  Medicine): the slope of ``logit P(y=1) = a + b logit(p)``, and the intercept ``a`` of
  ``logit P(y=1) = a + logit(p)`` (slope fixed at 1, "calibration-in-the-large").
* ``brier_reliability``, ``brier_resolution``, ``brier_uncertainty``: Murphy's (1973)
  decomposition ``Brier = REL - RES + UNC``, exact when the forecasts take one value per bin
  (``strategy="unique"``), otherwise up to the within-bin terms of Stephenson et al. (2008);
  by default with Ferro & Fricker's (2012, "A bias-corrected decomposition of the Brier
  score", QJRMS) bias corrections, which keep the identity (``debias=False``: Murphy's).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import FewConditionsWarning, IrregularEstimandWarning
from ..feedback import warn
from ..inputs import binary_target, check_flag, check_positive_int
from ._base import AdditiveKernel, Kernel, safe_div, unique_rows
from .binned import _binned_kernel, _BinnedKernel, _NoGradient
from .ece_l2 import L2_NEAR_ZERO, l2_auto_method, l2_near_zero_interval, l2_signal
from .multiclass import class_columns
from .recalibration import UnitMoments

__all__ = [
    "CALIBRATION_METRICS",
    "RecalibrationKernel",
    "bin_edges",
    "brier_decomposition_kernel",
    "calibration_bins",
    "calibration_error_kernel",
    "recalibration_kernel",
]

#: the binned calibration errors and what they compute
CALIBRATION_METRICS = ("ece", "ece_debiased", "mce")
_STRATEGIES = ("uniform", "quantile")
_MODES = ("auto", "positive", "top_label", "classwise")
#: warn when a calibration error is below this multiple of its expectation for a perfectly
#: calibrated model with the same bins (the bins' noise alone)
NEAR_ZERO_FACTOR = 2.0
#: most distinct forecast values for ``strategy="unique"`` (one bin each)
MAX_UNIQUE_BINS = 1000


def bin_edges(y_prob: np.ndarray, n_bins: int, strategy: str) -> np.ndarray:
    """Bin edges of probabilities: ``n_bins + 1`` values from 0 to 1 (``"uniform"``) or the
    percentiles of ``y_prob`` (``"quantile"``, as scikit-learn's ``calibration_curve``).

    Examples
    --------
    >>> bin_edges(np.array([0.1, 0.5, 0.9]), 2, "uniform").tolist()
    [0.0, 0.5, 1.0]
    """
    if strategy == "uniform":
        return np.linspace(0.0, 1.0, n_bins + 1)
    return np.percentile(y_prob, np.linspace(0.0, 100.0, n_bins + 1))


def calibration_bins(y_prob: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin of every probability: bin ``i`` is ``(edges[i], edges[i+1]]`` and the first bin
    also holds ``edges[0]`` (scikit-learn's ``calibration_curve`` rule)."""
    return np.searchsorted(edges[1:-1], y_prob).astype(np.intp)


def _check_options(n_bins: Any, strategy: Any, mode: Any = "auto") -> int:
    n_bins = check_positive_int("n_bins", n_bins)
    if strategy not in _STRATEGIES:
        raise ValueError(
            f"`strategy` must be one of {', '.join(map(repr, _STRATEGIES))}; got {strategy!r}."
        )
    if mode not in _MODES:
        raise ValueError(f"`mode` must be one of {', '.join(map(repr, _MODES))}; got {mode!r}.")
    return n_bins


def _check_probabilities(p: np.ndarray, name: str) -> None:
    if p.size and ((p < 0).any() or (p > 1).any()):
        raise ValueError(
            f"{name!r} needs probabilities in [0, 1] in `y_score`; found values from "
            f"{p.min():.4g} to {p.max():.4g}. Pass probabilities (e.g. predict_proba), not "
            "decision scores or logits."
        )


def _columns(
    name: str, y_true: Any, y_score: Any, pos_label: Any, labels: Any, mode: str
) -> tuple[np.ndarray, np.ndarray]:
    """The (probability, outcome) columns that are binned: arrays of shape (n, C)."""
    y = np.asarray(y_true)
    p = np.asarray(y_score, dtype=float)
    _check_probabilities(p, name)
    if p.ndim == 1 or p.shape[1] == 1:
        if mode in ("top_label", "classwise"):
            raise ValueError(
                f"mode={mode!r} needs one probability column per class in `y_score` "
                "(an (n, K) matrix); with one column of P(positive) use mode='positive'."
            )
        if labels is not None:
            raise ValueError(
                "`labels` applies to a matrix of class probabilities; with one column of "
                "P(positive) pass `pos_label`."
            )
        pos = binary_target(y, pos_label, metric=name)
        return p.reshape(-1, 1), pos.astype(float).reshape(-1, 1)
    if pos_label is not None:
        raise ValueError(
            f"`pos_label` does not apply to {name!r} with one probability column per class; "
            "the columns follow the sorted class labels (or `labels`)."
        )
    rows = p.sum(axis=1)
    if not np.allclose(rows, 1.0, rtol=0.0, atol=1e-3):
        raise ValueError(
            f"The rows of `y_score` must sum to 1 (class probabilities); they range from "
            f"{rows.min():.6g} to {rows.max():.6g}."
        )
    _, idx = class_columns(name, y, p, labels)
    k = p.shape[1]
    if mode == "positive":
        raise ValueError(
            f"mode='positive' needs one column of P(positive) in `y_score`; it has {k} "
            "columns: use mode='top_label' or 'classwise'."
        )
    if mode == "classwise":
        return p, (idx[:, None] == np.arange(k)[None, :]).astype(float)
    # top-label: the confidence of the predicted class (first highest column, as argmax)
    pred = np.argmax(p, axis=1)
    return p[np.arange(len(p)), pred][:, None], (pred == idx).astype(float)[:, None]


def _column_bins(p: np.ndarray, n_bins: int, strategy: str) -> np.ndarray:
    """Bin of every sample in every column of ``p`` (n, C): (n, C) integers."""
    out = [calibration_bins(q, bin_edges(q, n_bins, strategy)) for q in p.T]
    return np.stack(out, axis=1).reshape(p.shape)


def _bin_sums(s: np.ndarray, c: int, n_bins: int) -> tuple[np.ndarray, ...]:
    s = s.reshape(s.shape[0], c, n_bins, 3)
    return s[..., 0], s[..., 1], s[..., 2]


def _ece(c: int, n_bins: int) -> Any:
    def g(s: np.ndarray) -> np.ndarray:
        cnt, sy, sp = _bin_sums(s, c, n_bins)
        total = cnt.sum(axis=2)
        # an empty bin has sy = sp = 0: no division needed
        return safe_div(np.abs(sy - sp).sum(axis=2), total).mean(axis=1)

    return g


def _folded_excess(cnt: np.ndarray, sy: np.ndarray, sp: np.ndarray) -> np.ndarray:
    """Per bin ``n_b (E|N(d_b, s_b^2)| - |d_b|)``: the upward bias of ``n_b |ybar - pbar|``
    under a normal approximation of the bin's mean outcome (Kumar et al. 2019).

    ``d_b = ybar_b - pbar_b`` and ``s_b^2 = ybar_b (1 - ybar_b) / n_b``; the mean of a
    folded normal is ``s sqrt(2/pi) exp(-d^2 / 2 s^2) + d (1 - 2 Phi(-d/s))`` (Leone,
    Nelson & Nottingham 1961), the limit of Kumar et al.'s ``normal_debiased_ce`` as its
    Monte Carlo draws grow.  Zero for an empty bin or one whose outcomes are all equal.
    """
    # imported here: mlci.metrics is loaded by paths that must not pay for scipy
    # (`mlci mt compare --test paired-bs`, tests/mt/test_mt_cli.py)
    from scipy.special import ndtr

    ok = cnt > 0
    c = np.where(ok, cnt, 1.0)
    ybar = np.where(ok, sy / c, 0.0)
    d = np.where(ok, (sy - sp) / c, 0.0)
    s = np.sqrt(np.clip(ybar * (1.0 - ybar), 0.0, None) / c)
    pos = s > 0
    ss = np.where(pos, s, 1.0)
    z = d / ss
    fold = ss * np.sqrt(2.0 / np.pi) * np.exp(-0.5 * z * z) + d * (1.0 - 2.0 * ndtr(-z))
    return np.where(ok & pos, cnt * (fold - np.abs(d)), 0.0)


def _ece_normal_debiased(c: int, n_bins: int) -> Any:
    def g(s: np.ndarray) -> np.ndarray:
        cnt, sy, sp = _bin_sums(s, c, n_bins)
        total = cnt.sum(axis=2)
        excess = _folded_excess(cnt, sy, sp)
        return safe_div((np.abs(sy - sp) - excess).sum(axis=2), total).mean(axis=1)

    return g


def _mce(c: int, n_bins: int) -> Any:
    def g(s: np.ndarray) -> np.ndarray:
        cnt, sy, sp = _bin_sums(s, c, n_bins)
        gap = np.where(cnt > 0, np.abs(safe_div(sy - sp, cnt)), -np.inf)
        top = gap.max(axis=2)
        return np.where(np.isfinite(top), top, np.nan).mean(axis=1)

    return g


def _ece_debiased(c: int, n_bins: int) -> Any:
    def g(s: np.ndarray) -> np.ndarray:
        cnt, sy, sp = _bin_sums(s, c, n_bins)
        total = cnt.sum(axis=2)
        big = cnt >= 2
        ybar = safe_div(sy, cnt)
        gap2 = safe_div(sy - sp, cnt) ** 2
        term = np.where(big, gap2 - ybar * (1.0 - ybar) / np.where(big, cnt - 1.0, 1.0), 0.0)
        sq = safe_div((cnt * term).sum(axis=2), total)
        # Kumar et al.'s marginal mode: the mean over classes of each class's squared value
        return np.sqrt((np.maximum(sq, 0.0)).mean(axis=1))

    return g


def _calibrated_noise(total: np.ndarray, c: int, n_bins: int) -> tuple[float, float]:
    """Expected ECE and Brier reliability of a perfectly calibrated model with these bins:
    per bin ``mean |ybar - pbar| ~ sqrt(2/pi) sqrt(pbar (1 - pbar) / n_b)`` and ``E (ybar -
    pbar)^2 = pbar (1 - pbar) / n_b`` (normal approximation), weighted by ``n_b / n``."""
    cnt, _, sp = _bin_sums(total, c, n_bins)
    cnt, sp = cnt[0], sp[0]
    n = cnt.sum(axis=1)
    pbar = np.where(cnt > 0, safe_div(sp, cnt), 0.0)
    var = pbar * (1.0 - pbar)
    ece0 = (np.sqrt(2.0 / np.pi) * np.sqrt(var * cnt)).sum(axis=1) / n
    rel0 = var.sum(axis=1) / n
    return float(ece0.mean()), float(rel0.mean())


def _warn_near_zero(name: str, value: float, noise: float) -> None:
    if np.isfinite(value) and value < NEAR_ZERO_FACTOR * noise:
        warn(
            f"{name!r} is {value:.4g}, within {NEAR_ZERO_FACTOR:g} times what the bins' noise "
            f"alone gives a perfectly calibrated model ({noise:.4g}): near zero a binned "
            "calibration error is biased upward, and no interval is known to keep its level "
            "there (for a calibrated model the debiased ECE's interval covered about 0.6, "
            "the plug-in's 0; docs/calibration.md). Report the calibration slope and "
            "intercept, whose intervals hold for a calibrated model too; or use fewer bins.",
            IrregularEstimandWarning,
        )


#: ``method="auto"`` of the debiased ECE (:func:`mlci.engine.auto.choose_method` reads a
#: kernel's ``auto_method``): the normal interval with the bootstrap standard error of the
#: debiased estimator.  In the coverage study (docs/calibration.md, docs/validation.md)
#: it covered 0.928-0.978 for miscalibrated models (n = 200-2,000, 10 or 15 equal-width
#: or equal-mass bins; 0.943 and 0.958 pooled over 980 and 1,180 test sets of two
#: populations) where the plug-in ECE's studentized interval covered 0.84-0.92 and BCa, percentile
#: and basic intervals of the debiased estimator 0.69-0.92 (they follow its skewed,
#: bias-shifted bootstrap distribution).
DEBIASED_AUTO = (
    "normal",
    "normal: the debiased ECE with its bootstrap standard error (in mlci's coverage study "
    "it covered 0.93-0.98 for miscalibrated models, where the percentile, BCa and "
    "studentized intervals covered 0.69-0.92; docs/calibration.md)",
)


#: ``method="auto"`` of a paired difference of debiased ECEs in ``mlci.compare`` (each
#: system keeps :data:`DEBIASED_AUTO`), and the warning given with it: no interval of the
#: difference held its level in the coverage study (docs/calibration.md, "Paired ECE
#: differences").  The percentile interval came closest (0.913-0.990, mean 0.96 over
#: five cells): its replicates are centred on the difference of the plug-in ECEs, whose
#: biases largely cancel between two systems on the same bins' noise, and its width is
#: the bootstrap's; the normal interval around the difference of the debiased estimates
#: covered 0.85-0.93 (the corrections add variance to the difference that the bootstrap
#: misses: over- against under-confident, n = 2,000, true sd 0.0192, bootstrap 0.0174),
#: BCa 0.80-0.89, the plug-in's t interval 0.91-0.99.
DEBIASED_PAIRED_AUTO = (
    "percentile",
    "percentile of the paired replicates of the difference (no interval of an ECE "
    "difference held its level in mlci's coverage study; the percentile one came "
    "closest, 0.91-0.99, where the normal interval covered 0.85-0.93 and BCa 0.80-0.89; "
    "docs/calibration.md)",
)
DEBIASED_PAIRED_WARNING = (
    "No interval of a difference of ECEs held its level in mlci's coverage study: the "
    "percentile interval given covered 0.91-0.99 (the normal one 0.85-0.93, BCa "
    "0.80-0.89; docs/calibration.md, 'Paired ECE differences'). Read it as approximate; "
    "the systems' own intervals (normal) covered 0.89-0.95 in the same study."
)


#: ``method="auto"`` of the MCE: no interval held its level in the coverage study
#: (docs/calibration.md, "MCE"): the plug-in maximum over the bins is biased upward (the
#: largest of the bins' noisy gaps), the normal interval came closest (0.70-0.89), BCa
#: covered 0.35-0.81 and the percentile interval 0.01-0.45
MCE_AUTO = (
    "normal",
    "normal: the MCE with its bootstrap standard error (no interval held its level in "
    "mlci's coverage study; the normal one came closest, 0.70-0.89, where BCa covered "
    "0.35-0.81; docs/calibration.md)",
)
MCE_WARNING = (
    "No interval of 'mce' (the maximum calibration error) held its level in mlci's "
    "coverage study: the largest of the bins' gaps is biased upward by their noise, and "
    "the normal interval given covered 0.70-0.89, BCa 0.35-0.81 (docs/calibration.md). "
    "For an interval use 'ece' or the calibration slope and intercept; read the MCE "
    "with the reliability diagram (mlci.plotting.plot_reliability)."
)


L2_WARNING = (
    "No interval of 'ece_debiased' (the debiased l2 calibration error) held its level in "
    "mlci's coverage study: the normal interval given covered 0.89-0.99 for miscalibrated "
    "models, BCa 0.59-0.89 (docs/calibration.md). For an interval use 'ece' (the debiased "
    "l1 ECE: 0.93-0.98), or the calibration slope and intercept."
)


L2_NEAR_ZERO_WARNING = (
    f"The debiased square of 'ece_debiased' is within {L2_NEAR_ZERO:g} of its standard "
    "errors of 0, where a calibrated and a slightly miscalibrated model give alike test "
    "sets: the bootstrap intervals did not hold there in mlci's study (normal 0.85-0.89 "
    "for a calibrated model, BCa 0.55-0.61 for a slightly miscalibrated one); method='auto' "
    "gives the interval of the square (details['squared'], details['squared_se']), "
    "truncated at 0 and square-rooted, which covered 0.97-1.00 of both with one column of "
    "independent samples and equal-width bins (docs/validation.md, 'The default ROC band "
    "and the l2 ECE near 0')."
)


def calibration_error_kernel(
    name: str,
    y_true: Any,
    y_score: Any,
    *,
    n_bins: int = 15,
    strategy: str = "uniform",
    mode: str = "auto",
    pos_label: Any = None,
    labels: Any = None,
    debias: bool = True,
) -> AdditiveKernel:
    """Kernel of ``ece``, ``ece_debiased`` or ``mce`` (see the module docstring).

    ``mode="auto"``: ``"positive"`` for one column of P(positive), ``"top_label"`` for a
    matrix of class probabilities.  ``debias`` (``ece`` only): Kumar et al.'s (2019)
    normal-approximation debiasing of the l1 ECE (default), or the plug-in ECE of Naeini
    et al. and Guo et al. (``debias=False``); the kernel's ``details`` hold the plug-in
    value and the subtracted bias either way.
    """
    n_bins = _check_options(n_bins, strategy, mode)
    debias = check_flag("debias", debias)
    p0 = np.asarray(y_score, dtype=float)
    if mode == "auto":
        mode = "positive" if (p0.ndim == 1 or p0.shape[1] == 1) else "top_label"
    p, y = _columns(name, y_true, y_score, pos_label, labels, mode)
    c = p.shape[1]
    which = _column_bins(p, n_bins, strategy)
    kernel: AdditiveKernel
    if name == "ece":
        g = _ece_normal_debiased(c, n_bins) if debias else _ece(c, n_bins)
        kernel, total = _binned_kernel(_BinnedKernel, which, p, y, n_bins, g, "ece")
    else:
        g = _mce(c, n_bins) if name == "mce" else _ece_debiased(c, n_bins)
        kernel, total = _binned_kernel(_NoGradient, which, p, y, n_bins, g, name)
    plug_in = float(_ece(c, n_bins)(total)[0])
    if name == "ece" and debias:
        kernel.auto_method = DEBIASED_AUTO  # type: ignore[attr-defined]
        kernel.paired_auto_method = DEBIASED_PAIRED_AUTO  # type: ignore[attr-defined]
        kernel.paired_warning = DEBIASED_PAIRED_WARNING  # type: ignore[attr-defined]
        kernel.details = {  # type: ignore[attr-defined]
            "estimator": "debiased",
            "plug_in": plug_in,
            "bias": plug_in - float(kernel.g(total)[0]),
        }
    elif name == "ece":
        kernel.details = {"estimator": "plug-in", "plug_in": plug_in}  # type: ignore[attr-defined]
    elif name == "mce":
        kernel.auto_method = MCE_AUTO  # type: ignore[attr-defined]
        warn(MCE_WARNING, IrregularEstimandWarning)
    else:
        sq, sq_se = l2_signal(total, c, n_bins)
        snr = sq / sq_se if sq_se > 0 else float("nan")
        kernel.details = {"squared": sq, "squared_se": sq_se, "signal_to_noise": snr}  # type: ignore[attr-defined]
        kernel.auto_method = l2_auto_method(snr)  # type: ignore[attr-defined]
        # near 0, auto's interval of the square (one column, equal-width bins: as studied)
        near = l2_near_zero_interval(sq, sq_se) if c == 1 and strategy == "uniform" else None
        kernel.near_zero_interval = near  # type: ignore[attr-defined]
        warn(L2_WARNING if near is None else L2_NEAR_ZERO_WARNING, IrregularEstimandWarning)
    kernel.bounds = (0.0, 1.0)
    if name in ("ece", "mce"):
        ece0, _ = _calibrated_noise(total, c, n_bins)
        # the maximum's noise is larger than the mean's: compare the ECE in both cases
        _warn_near_zero(name if name == "ece" else "mce (the ECE of its bins)", plug_in, ece0)
    return kernel


#: ``method="auto"`` of the debiased reliability and resolution (Ferro & Fricker 2012):
#: the normal interval on the bootstrap standard error, for the reason of the debiased
#: ECE's (:data:`DEBIASED_AUTO`): the replicates are centred on the plug-in value (the
#: bootstrap world's truth), so the intervals read off their quantiles (percentile,
#: BCa, basic) carry the bias the estimator removed.  Coverage study in
#: docs/calibration.md ("Brier decomposition").
BRIER_DEBIASED_AUTO = (
    "normal",
    "normal: the debiased (Ferro & Fricker 2012) term with its bootstrap standard error (in "
    "mlci's coverage study the reliability's covered 0.942-0.945 where it is large next to "
    "the bins' noise and 0.97-0.995 near it, where the plug-in's studentized interval "
    "covered 0.875-0.942 and the debiased term's BCa 0.69-0.93; the resolution's "
    "0.940-0.967; docs/calibration.md)",
)


#: the debiased reliability's normal interval is conservative while the plug-in value is
#: below this multiple of the bins' noise (and above :data:`NEAR_ZERO_FACTOR` times it,
#: where the near-zero warning is given): in the coverage study it covered 0.970-0.975
#: with the plug-in at 2.3-4.6 times the noise (over-confident forecasts, n = 500 and
#: 2,000), and 0.945 at 11 times (f(p) = p^2, n = 500); docs/calibration.md
CONSERVATIVE_FACTOR = 8.0
RELIABILITY_CONSERVATIVE = (
    "'brier_reliability' (plug-in {value:.4g}) is within {factor:g} times what the bins' "
    "noise alone gives a perfectly calibrated model ({noise:.4g}): there the debiased "
    "reliability's normal interval is conservative (it covered 0.97-0.975 in mlci's "
    "coverage study, where the plug-in's studentized interval covered 0.875-0.93; "
    "docs/calibration.md). Its bootstrap standard error is inflated by the noise of the "
    "sample's own gaps; no interval kept its level there."
).replace("{factor:g}", f"{CONSERVATIVE_FACTOR:g}")


def _ff_corrections(cnt: np.ndarray, sy: np.ndarray, total: np.ndarray) -> tuple[Any, Any]:
    """Ferro & Fricker's (2012) bias corrections of Murphy's terms, per replicate:
    ``s = sum_b (n_b / n) ybar_b (1 - ybar_b) / (n_b - 1)`` over the bins with ``n_b >= 2``
    (the expected excess of ``(ybar_b - pbar_b)^2`` over the squared gap) and ``t = ybar (1
    - ybar) / (n - 1)``; as SpecsVerification's ``BrierDecomp(bias.corrected=TRUE)``
    (``corr.s``, ``corr.t``), without its shrinkage ``alpha`` that keeps REL at 0 or above."""
    big = cnt >= 2
    within = np.where(big, sy * (cnt - sy) / np.where(big, cnt * (cnt - 1.0), 1.0), 0.0)
    corr_s = safe_div(within.sum(axis=1), total)
    obar = safe_div(sy.sum(axis=1), total)
    corr_t = safe_div(obar * (1.0 - obar), total - 1.0)
    return corr_s, corr_t


def _brier_part(part: str, n_bins: int, debias: bool = False) -> Any:
    def g(s: np.ndarray) -> np.ndarray:
        cnt, sy, sp = _bin_sums(s, 1, n_bins)
        cnt, sy, sp = cnt[:, 0], sy[:, 0], sp[:, 0]
        total = cnt.sum(axis=1)
        obar = safe_div(sy.sum(axis=1), total)
        if part == "uncertainty":
            out = obar * (1.0 - obar)
        elif part == "reliability":
            ob = np.where(cnt > 0, safe_div(sy, cnt), 0.0)
            fb = np.where(cnt > 0, safe_div(sp, cnt), 0.0)
            out = safe_div((cnt * (fb - ob) ** 2).sum(axis=1), total)
        else:
            ob = np.where(cnt > 0, safe_div(sy, cnt), 0.0)
            out = safe_div((cnt * (ob - obar[:, None]) ** 2).sum(axis=1), total)
        if not debias:
            return out
        corr_s, corr_t = _ff_corrections(cnt, sy, total)
        if part == "reliability":
            return out - corr_s
        if part == "resolution":
            return out - corr_s + corr_t
        return out + corr_t

    return g


def brier_decomposition_kernel(
    part: str,
    y_true: Any,
    y_score: Any,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    pos_label: Any = None,
    debias: bool = True,
) -> AdditiveKernel:
    """Kernel of one term of Murphy's (1973) Brier decomposition (binary forecasts).

    ``part`` is ``"reliability"`` (``sum_b n_b (mean p_b - mean y_b)^2 / n``),
    ``"resolution"`` (``sum_b n_b (mean y_b - mean y)^2 / n``) or ``"uncertainty"``
    (``mean y (1 - mean y)``).  ``strategy="unique"`` makes every distinct forecast a bin
    (then ``REL - RES + UNC`` is the Brier score exactly); ``n_bins`` is then ignored.
    ``debias`` (default): Ferro & Fricker's (2012) corrections (:func:`_ff_corrections`):
    ``REL - s``, ``RES - s + t``, ``UNC + t``; the kernel's ``details`` hold the plug-in
    value and the correction.  The debiased reliability and resolution get the normal
    interval (:data:`BRIER_DEBIASED_AUTO`).
    """
    if strategy == "unique":
        n_bins = check_positive_int("n_bins", n_bins)
    else:
        n_bins = _check_options(n_bins, strategy)
    debias = check_flag("debias", debias)
    p = np.asarray(y_score, dtype=float)
    if p.ndim != 1 and p.shape[1] != 1:
        raise ValueError(
            f"'brier_{part}' is the decomposition of a binary forecast: `y_score` must be "
            f"one column of P(positive); got shape {p.shape}."
        )
    p = p.reshape(-1)
    _check_probabilities(p, f"brier_{part}")
    y = binary_target(np.asarray(y_true), pos_label, metric=f"brier_{part}").astype(float)
    if strategy == "unique":
        values, which = np.unique(p, return_inverse=True)
        if len(values) > MAX_UNIQUE_BINS:
            raise ValueError(
                f"strategy='unique' makes one bin per distinct forecast, but `y_score` has "
                f"{len(values)} distinct values (more than {MAX_UNIQUE_BINS}); use "
                "strategy='uniform' or 'quantile' with `n_bins`."
            )
        n_bins = len(values)
        which = which.reshape(-1, 1).astype(np.intp)
    else:
        which = _column_bins(p[:, None], n_bins, strategy)
    g = _brier_part(part, n_bins, debias)
    cls = _NoGradient if part == "uncertainty" else _BinnedKernel
    kernel, total = _binned_kernel(cls, which, p[:, None], y[:, None], n_bins, g, f"brier_{part}")
    plug_in = float(_brier_part(part, n_bins)(total)[0])
    # uncertainty, ybar (1 - ybar), has a zero derivative at ybar = 1/2: no linearization
    kernel.bounds = (0.0, 0.25) if part == "uncertainty" else (0.0, 1.0)
    if debias:
        if part != "uncertainty":
            kernel.auto_method = BRIER_DEBIASED_AUTO  # type: ignore[attr-defined]
        kernel.details = {  # type: ignore[attr-defined]
            "estimator": "debiased",
            "plug_in": plug_in,
            "bias": plug_in - float(g(total)[0]),
        }
    else:
        kernel.details = {"estimator": "plug-in", "plug_in": plug_in}  # type: ignore[attr-defined]
    if part == "reliability":
        _, rel0 = _calibrated_noise(total, 1, n_bins)
        _warn_near_zero("brier_reliability", plug_in, rel0)
        if debias and NEAR_ZERO_FACTOR * rel0 <= plug_in < CONSERVATIVE_FACTOR * rel0:
            warn(
                RELIABILITY_CONSERVATIVE.format(value=plug_in, noise=rel0), IrregularEstimandWarning
            )
    return kernel


def _logit(p: np.ndarray) -> np.ndarray:
    return np.log(p) - np.log1p(-p)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


#: ``method="auto"`` of the calibration slope and intercept
#: (:meth:`RecalibrationKernel.auto_method`): the t interval with the linearized standard
#: error (the sandwich one over independent samples, CR2 over conditions, with Kish's
#: degrees of freedom).  In the coverage study (docs/calibration.md,
#: ``scripts/recalibration_coverage.py``) it covered at least as often as the studentized
#: interval (the default before) in every cell, and needs no replicate's standard error.
RECALIBRATION_AUTO = (
    "t",
    "t: the linearized standard error (sandwich; CR2 over conditions) with Student's t "
    "quantiles; in mlci's coverage study it covered 0.93-0.97 for n = 200-5,000, iid and "
    "over conditions, at least as often as the studentized interval (docs/calibration.md)",
)


#: ``calibration_intercept`` warns (:class:`~mlci.FewConditionsWarning`, as the engine's
#: rule for few samples of a class) below this many samples of the rarer outcome: in the
#: coverage study every interval under-covered there (36 of the rarer outcome, n = 300: t
#: 0.920, studentized 0.915, percentile 0.922, basic 0.930; 60, n = 200: t 0.932,
#: studentized 0.925, percentile 0.927, 400 test sets each) and held from about 100 on
#: (0.945-0.965; docs/calibration.md).  The slope held in the same test sets (0.955-0.965).
MIN_EVENTS_INTERCEPT = 100


class RecalibrationKernel(Kernel):
    """Logistic recalibration ``logit P(y=1) = a + b logit(p)``, fitted by Newton's method
    on every replicate at once (weights = the replicate's counts).

    ``part="slope"``: ``b``; ``part="intercept"``: ``a`` with ``b`` fixed at 1 (an offset).
    Atoms are the distinct ``(y, p)`` pairs.  The derivative is exact: the fitted
    coefficients solve ``sum_i w_i x_i (y_i - mu_i) = 0``, so (implicit function theorem)
    ``d beta / d w_k = H^-1 x_k (y_k - mu_k)`` with ``H = sum_i w_i mu_i (1 - mu_i) x_i x_i'``.
    """

    work_factor = 12.0
    max_iter = 100
    tol = 1e-13
    #: Newton steps without line search before a replicate is refitted with it
    PLAIN_ITER = 30

    def __init__(self, y: np.ndarray, p: np.ndarray, part: str) -> None:
        pairs, keys = unique_rows(np.column_stack([y, p]))
        self.keys = keys.reshape(-1).astype(np.intp)
        self.m = len(pairs)
        self.y = pairs[:, 0]
        self.z = _logit(pairs[:, 1])
        self.part = part
        self.name = f"calibration_{part}"
        self._y2m1 = 2.0 * self.y - 1.0
        self._z2 = self.z * self.z
        # replicates start from the fit on the data: a few Newton steps from there
        self._start = np.array([0.0, 1.0])
        beta, ok = self._fit(np.bincount(self.keys, minlength=self.m)[None, :].astype(float))
        if ok[0]:
            self._start = beta[0]

    def _loglik(self, w: np.ndarray, beta: np.ndarray) -> np.ndarray:
        eta = beta[:, :1] + beta[:, 1:] * self.z
        # log sigmoid(eta) and log(1 - sigmoid(eta)) without overflow
        return (w * (self.y * eta - np.logaddexp(0.0, eta))).sum(axis=1)

    def _fit(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Coefficients ``(b, 2)`` (a, b) and the converged mask.

        Newton's method from the data's fit, without line search, on the replicates that
        have not converged yet (:data:`PLAIN_ITER` steps at most); a replicate on which it
        fails (no convergence, or an overflow) is fitted by :meth:`_fit_safeguarded`.  The
        log-likelihood is concave, so both converge to its one maximum, to the same
        tolerance.  Every sum runs over one replicate's row (``einsum``, no BLAS), so a
        replicate's value does not depend on the chunk it is in."""
        w = np.asarray(w, dtype=float)
        bsz = w.shape[0]
        beta = np.tile(self._start, (bsz, 1))
        done = np.zeros(bsz, dtype=bool)
        active = np.arange(bsz)
        wa = w
        with np.errstate(all="ignore"):
            for _ in range(self.PLAIN_ITER):
                sums = self._score_sums(wa, beta[active])
                step = self._newton_step(*sums)
                beta[active] += step
                ba = beta[active]
                small = np.abs(step).max(axis=1) <= self.tol * (1.0 + np.abs(ba).max(axis=1))
                small &= np.isfinite(ba).all(axis=1)
                done[active[small]] = True
                keep = ~small & np.isfinite(ba).all(axis=1)
                if not keep.any():
                    break
                if not keep.all():
                    active = active[keep]
                    wa = w[active]
        if not done.all():
            rows = np.flatnonzero(~done)
            beta[rows], ok = self._fit_safeguarded(w[rows])
            done[rows] = ok
        return beta, done

    def _score_sums(self, w: np.ndarray, beta: np.ndarray) -> tuple[Any, ...]:
        """The score ``(g0, g1)`` and Hessian ``(h00, h01, h11)`` sums at ``beta`` (b, 2)
        (the intercept's: ``g1``, ``h01``, ``h11`` are None)."""
        z = self.z
        # t = tanh(eta / 2): mu = (1 + t) / 2, y - mu = (2y - 1 - t) / 2 and
        # mu (1 - mu) = (1 - t^2) / 4
        t = np.multiply(beta[:, 1:], z)
        t += beta[:, :1]
        t *= 0.5
        np.tanh(t, out=t)
        r = np.subtract(self._y2m1, t)
        r *= w
        t *= t
        np.subtract(1.0, t, out=t)
        t *= w
        g0 = 0.5 * np.einsum("bm->b", r)
        h00 = 0.25 * np.einsum("bm->b", t)
        if self.part == "intercept":
            return g0, None, h00, None, None
        g1 = 0.5 * np.einsum("bm,m->b", r, z)
        h01 = 0.25 * np.einsum("bm,m->b", t, z)
        h11 = 0.25 * np.einsum("bm,m->b", t, self._z2)
        return g0, g1, h00, h01, h11

    def _newton_step(self, g0: Any, g1: Any, h00: Any, h01: Any, h11: Any) -> np.ndarray:
        if g1 is None:
            return np.column_stack([safe_div(g0, h00), np.zeros(len(g0))])
        det = h00 * h11 - h01 * h01
        return np.column_stack(
            [safe_div(h11 * g0 - h01 * g1, det), safe_div(h00 * g1 - h01 * g0, det)]
        )

    def _fit_safeguarded(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Coefficients ``(b, 2)`` (a, b) and the converged mask.

        Newton's method with step halving (a step that lowers the log-likelihood is halved
        up to 40 times), so that forecasts with extreme logits converge too."""
        w = np.asarray(w, dtype=float)
        bsz = w.shape[0]
        beta = np.tile(self._start, (bsz, 1))
        y, z = self.y, self.z
        small = np.zeros(bsz, dtype=bool)
        with np.errstate(all="ignore"):
            ll = self._loglik(w, beta)
            for _ in range(self.max_iter):
                eta = beta[:, :1] + beta[:, 1:] * z
                mu = _sigmoid(eta)
                r = w * (y - mu)
                v = w * mu * (1.0 - mu)
                if self.part == "intercept":
                    step = np.zeros((bsz, 2))
                    step[:, 0] = safe_div(r.sum(axis=1), v.sum(axis=1))
                else:
                    g0, g1 = r.sum(axis=1), (r * z).sum(axis=1)
                    h00, h01, h11 = v.sum(axis=1), (v * z).sum(axis=1), (v * z * z).sum(axis=1)
                    det = h00 * h11 - h01 * h01
                    step = np.column_stack(
                        [safe_div(h11 * g0 - h01 * g1, det), safe_div(h00 * g1 - h01 * g0, det)]
                    )
                step = np.where(np.isfinite(step), step, np.nan)
                for _ in range(40):
                    trial = beta + step
                    new = self._loglik(w, trial)
                    worse = ~(new >= ll - 1e-12 * np.abs(ll)) & np.isfinite(step).all(axis=1)
                    if not worse.any():
                        break
                    step = np.where(worse[:, None], step / 2.0, step)
                beta = trial
                ll = new
                small = np.abs(step).max(axis=1) <= self.tol * (1.0 + np.abs(beta).max(axis=1))
                if (small | ~np.isfinite(beta).all(axis=1)).all():
                    break
        return beta, small

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        beta, ok = self._fit(w)
        out = beta[:, 1] if self.part == "slope" else beta[:, 0]
        return np.where(ok, out, np.nan)

    def auto_method(self, plan: Any) -> tuple[str, str] | None:
        """``method="auto"``: the t interval on the linearized standard error
        (:data:`RECALIBRATION_AUTO`), where the linearization models the design
        (independent samples, or whole conditions resampled in one stage); otherwise None
        (the engine's rules: BCa)."""
        if (
            getattr(plan, "two_stage", False)
            or getattr(plan, "poisson", False)
            or getattr(plan, "stratum_of_sample", None) is not None
            or str(getattr(plan, "scheme", "")).startswith("nested")
            or not hasattr(plan, "unit_of_sample")
        ):
            return None
        return RECALIBRATION_AUTO

    def _moments(
        self, cell_unit: np.ndarray, cell_atom: np.ndarray, cell_count: np.ndarray, n_units: int
    ) -> tuple[UnitMoments, Any]:
        """The units' moments around the data's fit and the (unit x atom) count table."""
        from scipy import sparse  # lazily, as the other kernels' unit tables

        moments = UnitMoments(
            self.y, self.z, self._start, self.part == "slope",
            cell_unit, cell_atom, cell_count, n_units,
        )  # fmt: skip
        table = sparse.csr_matrix(
            (np.asarray(cell_count, dtype=float), (cell_unit, cell_atom)),
            shape=(int(n_units), self.m),
        )
        table.sum_duplicates()
        return moments, table

    def _unit_values(
        self, moments: UnitMoments, table: Any, u: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(values, beta, ok, inverse Hessian)`` of replicates drawing the units ``u``
        times, from the units' moments; the uncertified rows (``~ok``) are fitted on their
        samples (their ``beta`` and inverse Hessian are then unused)."""
        beta, ok, inv = moments.solve(moments.sums(u))
        values = beta[:, 1] if self.part == "slope" else beta[:, 0]
        if not ok.all():
            rows = np.flatnonzero(~ok)
            w = np.asarray((table.T @ u[rows].T).T)
            values = values.copy()
            values[rows] = self.evaluate(w)
        return values, beta, ok, inv

    def by_unit(self, unit_of_sample: np.ndarray, n_units: int) -> Kernel | None:
        """The same metric on one atom per unit (condition), for resampling whole units
        (as :meth:`~mlci.metrics.AdditiveKernel.by_unit`): each replicate is refitted from
        the units' moments (:mod:`mlci.metrics.recalibration`), to within 1e-12 of the fit
        on its samples (which replaces it where that is not certified).  None when there
        are at least as many units as atoms."""
        if n_units >= self.m:
            return None
        unit = np.asarray(unit_of_sample, dtype=np.intp)
        cells, count = np.unique(unit.astype(np.int64) * self.m + self.keys, return_counts=True)
        return _RecalibrationUnits(self, unit, n_units, cells // self.m, cells % self.m, count)

    def whole_units(
        self,
        cell_unit: np.ndarray,
        cell_atom: np.ndarray,
        cell_count: np.ndarray,
        n_units: int,
    ) -> Any:
        """The linearized intervals' fused form over whole units (conditions): ``f(U)``
        gives, for the units' draw counts ``U`` (b, n_units), the coefficient and every
        unit's summed gradient ``e' H^-1 sum_(i in c) x_i (y_i - mu_i)`` (b, n_units), from
        the units' moments (:mod:`mlci.metrics.recalibration`; the replicates that are not
        certified: from their samples).  None when there are at least as many units as
        atoms."""
        if n_units >= self.m:
            return None
        moments, table = self._moments(cell_unit, cell_atom, cell_count, n_units)

        def f(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            u = np.asarray(u, dtype=float)
            values, beta, ok, inv = self._unit_values(moments, table, u)
            d = beta - moments.beta0
            with np.errstate(all="ignore"):
                inner = moments.unit_scores(d[:, 0], d[:, 1], inv)
            if not ok.all():
                rows = np.flatnonzero(~ok)
                w = np.asarray((table.T @ u[rows].T).T)
                grad = self.gradient(w, values[rows])
                inner[rows] = np.asarray(table @ grad.T).T
            return values, inner

        return f

    def influence_moments(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The linearized intervals' fused form for independent samples: the coefficient,
        ``sum_i w_i g_i`` and ``sum_i w_i g_i^2`` of its gradient ``g`` (:meth:`gradient`)
        per replicate, from one fit and one more pass over the atoms (no (b, m) gradient):
        ``g_i = e' H^-1 x_i (y_i - mu_i)``, so ``sum w g = e' H^-1 S`` and ``sum w g^2 =
        e' H^-1 M H^-1 e`` with ``M = sum_i w_i (y_i - mu_i)^2 x_i x_i'``."""
        w = np.asarray(w, dtype=float)
        beta, ok = self._fit(w)
        values = np.where(ok, beta[:, 1] if self.part == "slope" else beta[:, 0], np.nan)
        z = self.z
        with np.errstate(all="ignore"):
            t = np.multiply(beta[:, 1:], z)
            t += beta[:, :1]
            t *= 0.5
            np.tanh(t, out=t)
            e = np.subtract(self._y2m1, t)  # 2 (y - mu)
            t *= t
            np.subtract(1.0, t, out=t)
            t *= w  # 4 w mu (1 - mu)
            r = e * w  # 2 w (y - mu)
            e *= r  # 4 w (y - mu)^2
            g0, m00 = 0.5 * np.einsum("bm->b", r), 0.25 * np.einsum("bm->b", e)
            h00 = 0.25 * np.einsum("bm->b", t)
            if self.part == "intercept":
                return values, g0 / h00, m00 / h00**2
            g1 = 0.5 * np.einsum("bm,m->b", r, z)
            m01, m11 = 0.25 * np.einsum("bm,m->b", e, z), 0.25 * np.einsum("bm,m->b", e, self._z2)
            h01 = 0.25 * np.einsum("bm,m->b", t, z)
            h11 = 0.25 * np.einsum("bm,m->b", t, self._z2)
            det = h00 * h11 - h01 * h01
            # c = second row of H^-1
            c0, c1 = -h01 / det, h00 / det
            s1 = c0 * g0 + c1 * g1
            s2 = c0 * c0 * m00 + 2.0 * c0 * c1 * m01 + c1 * c1 * m11
        return values, s1, s2

    def gradient(self, w: np.ndarray, values: np.ndarray) -> np.ndarray:
        beta, _ = self._fit(w)
        w = np.asarray(w, dtype=float)
        y, z = self.y, self.z
        with np.errstate(all="ignore"):
            mu = _sigmoid(beta[:, :1] + beta[:, 1:] * z)
            resid = y - mu
            v = w * mu * (1.0 - mu)
            if self.part == "intercept":
                return resid / v.sum(axis=1, keepdims=True)
            h00, h01, h11 = v.sum(axis=1), (v * z).sum(axis=1), (v * z * z).sum(axis=1)
            det = h00 * h11 - h01 * h01
            # second row of H^-1 times x_k = (1, z_k)
            row = (-h01[:, None] + h00[:, None] * z) / det[:, None]
            return row * resid


class _RecalibrationUnits(Kernel):
    """A :class:`RecalibrationKernel` with one atom per unit (see
    :meth:`RecalibrationKernel.by_unit`): weights ``w_c = u_c * n_c`` (the unit drawn
    ``u_c`` times, with its ``n_c`` samples), constant within each unit (a one-stage
    condition bootstrap and its delete-one-condition jackknife); no gradient (the
    linearized intervals use :meth:`RecalibrationKernel.whole_units`)."""

    def __init__(
        self,
        base: RecalibrationKernel,
        unit_of_sample: np.ndarray,
        n_units: int,
        cell_unit: np.ndarray,
        cell_atom: np.ndarray,
        cell_count: np.ndarray,
    ) -> None:
        self.base = base
        self.keys = unit_of_sample
        self.m = int(n_units)
        self.n_per_unit = np.bincount(unit_of_sample, minlength=self.m).astype(float)
        self._parts = base._moments(cell_unit, cell_atom, cell_count, n_units)
        self.name = base.name
        self.shape = base.shape
        self.bounds = base.bounds
        self.work_factor = 4.0 * self._parts[0].n_cols / max(self.m, 1) + 4.0

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        n = self.n_per_unit
        u = np.asarray(w, dtype=float) / np.where(n > 0, n, 1.0)
        return self.base._unit_values(*self._parts, u)[0]

    def gradient(self, w: np.ndarray, values: np.ndarray) -> np.ndarray | None:
        return None


def recalibration_kernel(
    part: str, y_true: Any, y_score: Any, *, pos_label: Any = None
) -> RecalibrationKernel:
    """Kernel of ``calibration_slope`` or ``calibration_intercept`` (binary forecasts)."""
    name = f"calibration_{part}"
    p = np.asarray(y_score, dtype=float)
    if p.ndim != 1 and p.shape[1] != 1:
        raise ValueError(
            f"{name!r} recalibrates a binary forecast: `y_score` must be one column of "
            f"P(positive); got shape {p.shape}."
        )
    p = p.reshape(-1)
    _check_probabilities(p, name)
    if ((p == 0) | (p == 1)).any():
        raise ValueError(
            f"{name!r} regresses on logit(p), which is infinite at p = 0 or 1; `y_score` has "
            f"{int(((p == 0) | (p == 1)).sum())} such value(s). Clip them first, e.g. "
            "np.clip(y_score, 1e-6, 1 - 1e-6), and say so."
        )
    y = binary_target(np.asarray(y_true), pos_label, metric=name).astype(float)
    if y.min() == y.max():
        raise ValueError(f"{name!r} needs both outcomes in `y_true`; it holds only one.")
    kernel = RecalibrationKernel(y, p, part)
    kernel.bounds = (-np.inf, np.inf)
    few = int(min(y.sum(), len(y) - y.sum()))
    if part == "intercept" and few < MIN_EVENTS_INTERCEPT:
        warn(
            f"'calibration_intercept' with {few} samples of the rarer outcome: below "
            f"{MIN_EVENTS_INTERCEPT}, no interval held its level in mlci's coverage study "
            "(36 and 60 of the rarer outcome: the default t interval covered 0.920 and 0.932, "
            "studentized 0.915 and 0.925, BCa and percentile 0.92-0.93; docs/calibration.md). "
            "Treat the interval as optimistic, or collect more samples.",
            FewConditionsWarning,
        )
    return kernel
