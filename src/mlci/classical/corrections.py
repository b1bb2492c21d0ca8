"""Multiple-comparison corrections of p-values.

When several hypotheses are tested together (many pairs of systems, many data sets,
many metrics), the p-values must be adjusted so that the family-wise error rate
(Bonferroni, Holm, Hochberg) or the false-discovery rate (Benjamini–Hochberg,
Benjamini–Yekutieli) stays at the nominal level.  :func:`adjust_pvalues` returns the
adjusted p-values: reject hypothesis *i* at level ``alpha`` iff ``adjusted[i] <= alpha``.

References
----------
- Holm, S. (1979). A simple sequentially rejective multiple test procedure.
  *Scand. J. Statist.* 6, 65–70.
- Hochberg, Y. (1988). A sharper Bonferroni procedure for multiple tests of
  significance. *Biometrika* 75, 800–802.
- Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate.
  *J. R. Statist. Soc. B* 57, 289–300.
- Benjamini, Y. & Yekutieli, D. (2001). The control of the false discovery rate in
  multiple testing under dependency. *Ann. Statist.* 29, 1165–1188.
- Wright, S. P. (1992). Adjusted p-values for simultaneous inference.
  *Biometrics* 48, 1005–1013.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..inputs import check_choice
from .checks import ANY_NDIM, check_alpha, number_array

__all__ = ["CORRECTION_METHODS", "adjust_pvalues", "reject_hypotheses"]

#: Accepted values of ``correction`` (aliases map to the same procedure).
CORRECTION_METHODS = (
    "bonferroni",
    "holm",
    "hochberg",
    "bh",
    "fdr_bh",
    "benjamini-hochberg",
    "by",
    "fdr_by",
    "benjamini-yekutieli",
    "none",
)

_ALIASES = {
    "fdr_bh": "bh",
    "benjamini-hochberg": "bh",
    "fdr_by": "by",
    "benjamini-yekutieli": "by",
}


def _check_pvalues(pvalues: Any) -> np.ndarray:
    p = number_array("pvalues", pvalues, ndim=ANY_NDIM, what="p-values")
    if p.size == 0:
        raise ValueError("`pvalues` is empty; at least one p-value is needed.")
    if ((p < 0) | (p > 1)).any():
        bad = p[(p < 0) | (p > 1)]
        raise ValueError(
            f"`pvalues` must lie in [0, 1]; got {bad.size} value(s) outside, e.g. {bad[0]:g}."
        )
    return p


def _adjust_flat(p: np.ndarray, correction: str) -> np.ndarray:
    m = p.size
    if correction == "none":
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(p * m, 1.0)
    order = np.argsort(p, kind="stable")
    ps = p[order]
    rank = np.arange(1, m + 1)
    if correction == "holm":
        # step-down: adjusted p_(i) = max_{j <= i} (m - j + 1) p_(j)
        adj = np.maximum.accumulate((m - rank + 1) * ps)
    elif correction == "hochberg":
        # step-up: adjusted p_(i) = min_{j >= i} (m - j + 1) p_(j)
        adj = np.minimum.accumulate(((m - rank + 1) * ps)[::-1])[::-1]
    else:  # "bh" or "by"
        factor = 1.0 if correction == "bh" else float(np.sum(1.0 / rank))
        adj = np.minimum.accumulate((factor * m / rank * ps)[::-1])[::-1]
    adj = np.minimum(adj, 1.0)
    out = np.empty_like(adj)
    out[order] = adj
    return out


def adjust_pvalues(pvalues: Any, correction: str = "holm") -> np.ndarray:
    """Adjust p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array_like of float in [0, 1]
        The unadjusted p-values, any shape (all entries form one family).
    correction : str, default "holm"
        ``"bonferroni"``, ``"holm"`` (step-down, FWER, valid under any dependence),
        ``"hochberg"`` (step-up, FWER, valid for independent or positively dependent
        tests), ``"bh"`` (alias ``"fdr_bh"``, Benjamini–Hochberg false-discovery rate),
        ``"by"`` (alias ``"fdr_by"``, Benjamini–Yekutieli FDR under any dependence),
        or ``"none"``.

    Returns
    -------
    ndarray
        Adjusted p-values, same shape as ``pvalues``, capped at 1.  Reject hypothesis
        *i* at family level ``alpha`` iff ``adjusted[i] <= alpha``.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.005], correction="holm")
    array([0.03, 0.06, 0.06, 0.02])
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.005], correction="bh")
    array([0.02, 0.04, 0.04, 0.02])
    """
    correction = check_choice("correction", correction, CORRECTION_METHODS)
    p = _check_pvalues(pvalues)
    return _adjust_flat(p.ravel(), _ALIASES.get(correction, correction)).reshape(p.shape)


def reject_hypotheses(pvalues: Any, alpha: float = 0.05, correction: str = "holm") -> np.ndarray:
    """Which hypotheses are rejected at family level ``alpha`` after the correction.

    Parameters
    ----------
    pvalues : array_like of float in [0, 1]
        The unadjusted p-values.
    alpha : float, default 0.05
        Family-wise error rate (or false-discovery rate for ``"bh"``/``"by"``).
    correction : str, default "holm"
        As in :func:`adjust_pvalues`.

    Returns
    -------
    ndarray of bool
        ``adjust_pvalues(pvalues, correction) <= alpha``.

    Examples
    --------
    >>> reject_hypotheses([0.01, 0.04, 0.03, 0.005], alpha=0.05, correction="holm")
    array([ True, False, False,  True])
    """
    alpha = check_alpha(alpha)
    correction = check_choice("correction", correction, CORRECTION_METHODS)
    return adjust_pvalues(pvalues, correction=correction) <= alpha
