"""Agreement between raters: Fleiss' kappa and Krippendorff's alpha, on replicate weights.

Ratings come as an ``(n_items, n_raters)`` matrix, a missing rating marked by the mask
``rated`` (False).  Both coefficients are functions of per-item category counts ``n_uc``
(how many raters put item ``u`` in category ``c``):

* Fleiss (1971), as statsmodels' ``fleiss_kappa(method="fleiss")``: every item rated by
  the same ``r`` raters; ``P_u = (sum_c n_uc^2 - r) / (r (r - 1))``, ``p_c = sum_u n_uc /
  (N r)``, ``kappa = (mean P_u - sum_c p_c^2) / (1 - sum_c p_c^2)``.
* Krippendorff (2011, "Computing Krippendorff's alpha-reliability"), as the
  ``krippendorff`` package: the coincidences ``o_ck = sum_u n_uc (n_uk - [c = k]) / (m_u -
  1)`` over items with ``m_u >= 2`` ratings, ``n_c = sum_k o_ck``, ``n = sum_c n_c`` and
  ``alpha = 1 - (n - 1) sum o_ck delta_ck / sum n_c n_k delta_ck`` with the squared
  difference ``delta`` of the level of measurement: nominal ``[c != k]``, interval ``(v_c -
  v_k)^2``, ratio ``((v_c - v_k) / (v_c + v_k))^2``, ordinal ``(sum_{g=c..k} n_g - (n_c +
  n_k) / 2)^2``.

Resampling items multiplies an item's counts; resampling raters (a rater drawn twice
is two raters who agree) weighs every rater's ratings: ``n_uc = sum_r d_r [v_ur = c]``,
which is exactly the coefficient of the matrix with that rater's column repeated.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..inputs import missing_mask
from ._base import AdditiveKernel, Kernel, safe_div

__all__ = [
    "AGREEMENT_LEVELS",
    "AgreementGridKernel",
    "agreement_kernel",
    "encode_ratings",
    "fleiss_from_counts",
    "krippendorff_from_coincidences",
]

AGREEMENT_LEVELS = ("nominal", "ordinal", "interval", "ratio")


def encode_ratings(
    ratings: Any, level: str, metric: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(codes, rated, values)``: category index of every rating (0 where missing), the
    mask of given ratings, and the sorted distinct values (the categories)."""
    r = np.asarray(ratings)
    if r.ndim != 2:
        raise ValueError(
            f"`ratings` must be a 2-d matrix (n_items, n_raters), one row per item and one "
            f"column per rater; got shape {r.shape}."
        )
    if r.shape[0] < 1 or r.shape[1] < 2:
        raise ValueError(
            f"{metric!r} needs at least one item and two raters; `ratings` has shape {r.shape}."
        )
    if level not in AGREEMENT_LEVELS:
        raise ValueError(
            f"`level_of_measurement` must be one of {', '.join(map(repr, AGREEMENT_LEVELS))}; "
            f"got {level!r}."
        )
    rated = ~missing_mask(r.reshape(-1)).reshape(r.shape) if r.dtype.kind in "fcO" else None
    if rated is None:
        rated = np.ones(r.shape, dtype=bool)
    given = r[rated]
    if given.size == 0:
        raise ValueError("`ratings` holds no rating (every entry is missing).")
    if level != "nominal" or given.dtype.kind == "O":
        try:
            given = given.astype(float)
        except (TypeError, ValueError):
            if level != "nominal":
                raise TypeError(
                    f"level={level!r} needs numeric ratings; `ratings` holds "
                    f"{type(given[0]).__name__} values. Use level='nominal' for categories."
                ) from None
            given = given.astype(str)
    if given.dtype.kind == "f" and not np.isfinite(given).all():
        raise ValueError("`ratings` contains infinite values; a rating must be finite.")
    values, codes_given = np.unique(given, return_inverse=True)
    if level == "ratio" and (values < 0).any():
        raise ValueError("level='ratio' needs non-negative ratings (a ratio scale has a zero).")
    codes = np.zeros(r.shape, dtype=np.intp)
    codes[rated] = codes_given.reshape(-1)
    return codes, rated, values


def _delta(level: str, values: np.ndarray, n_c: np.ndarray) -> np.ndarray:
    """Squared differences ``delta_ck`` (V, V), or (b, V, V) for ordinal (marginals ``n_c``)."""
    v = len(values)
    if level == "nominal":
        return 1.0 - np.eye(v)
    if level == "interval":
        return (values[:, None] - values[None, :]) ** 2
    if level == "ratio":
        s = values[:, None] + values[None, :]
        return safe_div(values[:, None] - values[None, :], s) ** 2
    cum = np.cumsum(n_c, axis=-1)
    # sum_{g = min..max} n_g - (n_c + n_k) / 2
    lo = np.minimum.outer(np.arange(v), np.arange(v))
    hi = np.maximum.outer(np.arange(v), np.arange(v))
    before = np.where(lo > 0, np.take(cum, np.maximum(lo - 1, 0), axis=-1), 0.0)
    span = np.take(cum, hi, axis=-1) - before
    half = (n_c[..., :, None] + n_c[..., None, :]) / 2.0
    return (span - half) ** 2


def krippendorff_from_coincidences(o: np.ndarray, level: str, values: np.ndarray) -> np.ndarray:
    """Alpha of coincidence matrices ``o`` (b, V, V); NaN where undefined."""
    n_c = o.sum(axis=2)
    n = n_c.sum(axis=1)
    delta = _delta(level, values, n_c)
    d_o = (o * delta).sum(axis=(1, 2))
    d_e = (n_c[:, :, None] * n_c[:, None, :] * delta).sum(axis=(1, 2))
    return 1.0 - safe_div((n - 1.0) * d_o, d_e)


def fleiss_from_counts(counts: np.ndarray, item_w: np.ndarray) -> np.ndarray:
    """Fleiss' kappa of per-item category counts ``counts`` (b, U, V), item weights (b, U)."""
    r = counts.sum(axis=2)  # raters per item (equal by construction)
    p_u = safe_div((counts**2).sum(axis=2) - r, r * (r - 1.0))
    tot = item_w.sum(axis=1)
    p_bar = safe_div((item_w * p_u).sum(axis=1), tot)
    p_c = safe_div((item_w[:, :, None] * counts).sum(axis=1), (item_w * r).sum(axis=1)[:, None])
    p_e = (p_c**2).sum(axis=1)
    return safe_div(p_bar - p_e, 1.0 - p_e)


def _onehot(codes: np.ndarray, rated: np.ndarray, v: int) -> np.ndarray:
    """(U, R, V) indicator of every given rating's category."""
    out = np.zeros((*codes.shape, v))
    u, r = np.nonzero(rated)
    out[u, r, codes[u, r]] = 1.0
    return out


def _check_fleiss(rated: np.ndarray) -> None:
    if not rated.all():
        raise ValueError(
            "'fleiss_kappa' needs every item rated by every rater (Fleiss 1971 assumes the "
            f"same number of ratings per item); `ratings` has {int((~rated).sum())} missing "
            "rating(s). Use 'krippendorff_alpha', which allows missing ratings."
        )


def agreement_kernel(
    metric: str, ratings: Any, *, level_of_measurement: str = "nominal"
) -> AdditiveKernel:
    """Kernel of ``fleiss_kappa`` or ``krippendorff_alpha`` with the items as samples.

    Every item's contribution is a fixed vector (its coincidences, or its agreement and
    category counts), so the kernel is additive: one atom per distinct rating pattern.
    """
    level = level_of_measurement
    if metric == "fleiss_kappa" and level != "nominal":
        raise ValueError(
            "'fleiss_kappa' is for nominal categories; `level_of_measurement` must be 'nominal'."
        )
    codes, rated, values = encode_ratings(ratings, level, metric)
    v = len(values)
    onehot = _onehot(codes, rated, v)
    counts = onehot.sum(axis=1)  # (U, V)
    if metric == "fleiss_kappa":
        _check_fleiss(rated)
        r = float(rated.shape[1])
        p_u = ((counts**2).sum(axis=1) - r) / (r * (r - 1.0))
        phi = np.column_stack([p_u, counts, np.ones(len(p_u))])

        def g(s: np.ndarray) -> np.ndarray:
            tot = s[:, -1]
            p_e = (safe_div(s[:, 1:-1], (r * tot)[:, None]) ** 2).sum(axis=1)
            return safe_div(safe_div(s[:, 0], tot) - p_e, 1.0 - p_e)

        kernel = AdditiveKernel(phi, g, (), "fleiss_kappa")
        kernel.bounds = (-1.0, 1.0)
        return kernel
    m_u = counts.sum(axis=1)
    pairable = m_u >= 2
    if not pairable.any():
        raise ValueError(
            "'krippendorff_alpha' needs items with at least two ratings; no item of `ratings` "
            "has two."
        )
    o_u = (counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(v)) / np.where(
        pairable, m_u - 1.0, 1.0
    )[:, None, None]
    o_u[~pairable] = 0.0

    def g_alpha(s: np.ndarray) -> np.ndarray:
        return krippendorff_from_coincidences(s.reshape(-1, v, v), level, values)

    kernel = AdditiveKernel(o_u.reshape(len(o_u), -1), g_alpha, (), "krippendorff_alpha")
    kernel.bounds = (-np.inf, 1.0)
    return kernel


class AgreementGridKernel(Kernel):
    """Fleiss' kappa or Krippendorff's alpha with one atom per (item, rater) cell.

    A replicate's cell weights are the product of the items' and the raters' counts
    (resampling items, raters or both): the kernel reads an item's count as its cells'
    mean weight and a rater's as theirs (exact for multinomial counts, which sum to the
    number of items and of raters).
    """

    def __init__(self, metric: str, ratings: Any, level: str = "nominal") -> None:
        if metric == "fleiss_kappa" and level != "nominal":
            raise ValueError("'fleiss_kappa' is for nominal categories; `level` must be 'nominal'.")
        codes, rated, values = encode_ratings(ratings, level, metric)
        if metric == "fleiss_kappa":
            _check_fleiss(rated)
        self.metric = metric
        self.level = level
        self.values = values
        self.nu, self.nr = codes.shape
        self.v = len(values)
        self.onehot = _onehot(codes, rated, self.v)
        self.m = self.nu * self.nr
        self.keys = np.arange(self.m, dtype=np.intp)
        self.name = metric
        self.bounds = (-1.0, 1.0) if metric == "fleiss_kappa" else (-np.inf, 1.0)
        self.work_factor = 4.0 + self.v * self.v / self.nr + self.v

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float).reshape(-1, self.nu, self.nr)
        item_w = w.mean(axis=2)
        rater_w = w.mean(axis=1)
        counts = np.einsum("br,urv->buv", rater_w, self.onehot)
        if self.metric == "fleiss_kappa":
            return fleiss_from_counts(counts, item_w)
        m_u = counts.sum(axis=2)
        ok = m_u >= 1.5  # two or more (weighted) ratings
        scale = item_w * np.where(ok, 1.0 / np.where(ok, m_u - 1.0, 1.0), 0.0)
        o = np.einsum("bu,buc,buk->bck", scale, counts, counts)
        o -= np.einsum("bu,buc->bc", scale, counts)[:, :, None] * np.eye(self.v)
        return krippendorff_from_coincidences(o, self.level, self.values)
