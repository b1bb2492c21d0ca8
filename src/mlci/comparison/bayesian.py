"""Bayesian comparison of two systems with a region of practical equivalence (ROPE).

Instead of a p-value, the posterior probabilities that A is better by more than the ROPE,
that the two are practically equivalent (the difference within ``[-rope, rope]``), and
that B is better (Benavoli, Corani, Demšar & Zaffalon 2017, "Time for a change").

:func:`correlated_bayesian_ttest`
    One data set, scores from (repeated) k-fold cross-validation: the correlated
    Bayesian t-test of Corani & Benavoli (2015).  The folds share training data, so the
    fold differences are correlated with ``rho = 1 / k`` (Nadeau & Bengio 2003); with the
    matching improper prior the posterior of the mean difference is a Student t with
    ``n - 1`` degrees of freedom, location the mean difference and scale
    ``sqrt((1/n + rho/(1 - rho)) s^2)``.  Its probabilities are exact (t's CDF).
:func:`bayesian_signed_rank_test`
    Several data sets, one mean score per data set: the Bayesian signed-rank test
    (Benavoli et al. 2014; 2017, sec. 4), the Dirichlet process posterior over the
    distribution of differences with prior strength ``s`` (default 0.5) on a
    pseudo-observation at 0.  The probabilities are estimated from ``n_samples`` draws
    of the Dirichlet weights (Monte Carlo standard error at most ``0.5 / sqrt(n_samples)``).

The hierarchical model (Corani et al. 2017) is not offered: it needs an MCMC sampler (the
reference implementation uses Stan), which mlci does not depend on.

Both give a :class:`BayesianComparison`; :meth:`BayesianComparison.plot` draws the
posterior density with the ROPE (t-test) or the posterior on the probability simplex
(signed-rank), as ``baycomp`` does.

References
----------
- Corani, G. & Benavoli, A. (2015). A Bayesian approach for comparing cross-validated
  algorithms on multiple data sets. *Machine Learning* 100, 285-304.
- Benavoli, A., Corani, G., Mangili, F., Zaffalon, M. & Ruggeri, F. (2014). A Bayesian
  Wilcoxon signed-rank test based on the Dirichlet process. *ICML*, 1026-1034.
- Benavoli, A., Corani, G., Demšar, J. & Zaffalon, M. (2017). Time for a change: a
  tutorial for comparing multiple classifiers through Bayesian analysis. *JMLR* 18(77).
- Nadeau, C. & Bengio, Y. (2003). Inference for the generalization error. *Machine
  Learning* 52, 239-281.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from ..classical.checks import number_array
from ..inputs import check_nonnegative, check_positive_int, check_rng_seed
from ..results import Result, format_value, plain

__all__ = ["BayesianComparison", "bayesian_signed_rank_test", "correlated_bayesian_ttest"]

#: what `rope` must be, said in its error messages
_ROPE_HINT = " (on the scores' scale, e.g. 0.01)"


@dataclass(frozen=True, kw_only=True, repr=False)
class BayesianComparison(Result):
    """Posterior probabilities that A is better, that A and B are practically
    equivalent, and that B is better.

    Attributes
    ----------
    variant : str
        ``"correlated t"`` or ``"signed-rank"``.
    estimate : float
        The mean difference ``a - b``.
    rope : float
        Half-width of the region of practical equivalence (0: none).
    p_a_better, p_rope, p_b_better : float
        Posterior probabilities; they sum to 1 (``p_rope`` is 0 without a ROPE).
        "Better" follows ``higher_is_better``.
    higher_is_better : bool
    posterior : dict
        Correlated t: ``df``, ``loc`` and ``scale`` of the Student t posterior of the
        mean difference.  Signed-rank: ``samples``, an ``(n_samples, 3)`` array of
        posterior draws of (P(a better), P(rope), P(b better)) over the data sets, and
        ``standard_error``, the Monte Carlo standard error of each probability.
    details : dict
        ``n``, ``rho`` / ``prior_strength``, ``n_runs``.

    Examples
    --------
    >>> import mlci
    >>> a = [0.81, 0.79, 0.84, 0.80, 0.83, 0.82, 0.80, 0.81, 0.82, 0.83]
    >>> b = [0.80, 0.80, 0.82, 0.81, 0.82, 0.80, 0.79, 0.80, 0.80, 0.81]
    >>> r = mlci.correlated_bayesian_ttest(a, b, rope=0.01)
    >>> r.posterior["df"], round(r.p_a_better, 4), round(r.p_rope, 4)
    (9, 0.5, 0.4978)
    """

    variant: str
    a: str = "a"
    b: str = "b"
    estimate: float
    rope: float
    p_a_better: float
    p_rope: float
    p_b_better: float
    higher_is_better: bool
    posterior: Mapping[str, Any]
    details: Mapping[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return (
            f"BayesianComparison({self.variant!r}, {self.a} - {self.b}: "
            f"{format_value(self.estimate)}, rope={format_value(self.rope)}, "
            f"P({self.a} better)={format_value(self.p_a_better)}, "
            f"P(rope)={format_value(self.p_rope)}, "
            f"P({self.b} better)={format_value(self.p_b_better)})"
        )

    def rows(self) -> list[dict[str, Any]]:
        """One row: ``variant``, ``a``, ``b``, ``estimate``, ``rope``, the three
        probabilities."""
        return [
            plain(
                {
                    "variant": self.variant,
                    "a": self.a,
                    "b": self.b,
                    "estimate": self.estimate,
                    "rope": self.rope,
                    "p_a_better": self.p_a_better,
                    "p_rope": self.p_rope,
                    "p_b_better": self.p_b_better,
                }
            )
        ]

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain values (the posterior draws left out)."""
        out = super().to_dict()
        out["posterior"] = {k: v for k, v in out["posterior"].items() if k != "samples"}
        return out

    def plot(self, *, ax: Any = None) -> Any:
        """The posterior with the ROPE (see :func:`mlci.plotting.plot_posterior`).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Default: the current axes.
        """
        from ..plotting import plot_posterior

        return plot_posterior(self, ax=ax)


# --------------------------------------------------------------------------- checks
def _paired(scores_a: Any, scores_b: Any) -> tuple[np.ndarray, np.ndarray]:
    out = [
        number_array(name, x, ndim=(1, 2), what="scores")
        for name, x in (("scores_a", scores_a), ("scores_b", scores_b))
    ]
    if out[0].shape != out[1].shape:
        raise ValueError(
            f"`scores_a` and `scores_b` must have the same shape (paired); got {out[0].shape} "
            f"and {out[1].shape}."
        )
    return out[0], out[1]


def _hib(higher_is_better: Any) -> bool:
    if not isinstance(higher_is_better, bool | np.bool_):
        raise TypeError(f"`higher_is_better` must be True or False; got {higher_is_better!r}.")
    return bool(higher_is_better)


def _oriented(p_pos: float, p_rope: float, p_neg: float, hib: bool) -> tuple[float, ...]:
    """(P(a better), P(rope), P(b better)) from the probabilities of d > rope, in the
    ROPE and d < -rope."""
    return (p_pos, p_rope, p_neg) if hib else (p_neg, p_rope, p_pos)


# --------------------------------------------------------------------------- t-test
def correlated_bayesian_ttest(
    scores_a: Any,
    scores_b: Any,
    *,
    rope: float = 0.0,
    n_runs: int = 1,
    rho: float | None = None,
    higher_is_better: bool = True,
) -> BayesianComparison:
    """The correlated Bayesian t-test on cross-validated scores (Corani & Benavoli 2015).

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (n,) or (n_runs, n_folds)
        The two systems' scores on the same folds (of ``n_runs`` repetitions of k-fold
        cross-validation; a 2-D table gives ``n_runs`` by its rows).
    rope : float, default 0
        Half-width of the region of practical equivalence, on the scores' scale.
    n_runs : int, default 1
        Repetitions of the cross-validation in a 1-D ``scores_a`` (its length must be a
        multiple).  Ignored (taken from the shape) for a 2-D table.
    rho : float, optional
        Correlation of the fold differences, in [0, 1); by default ``1 / k`` with
        ``k = n / n_runs`` folds (the test fraction, Nadeau & Bengio 2003).
    higher_is_better : bool, default True

    Returns
    -------
    BayesianComparison
        ``posterior``: ``df = n - 1``, ``loc`` = mean difference, ``scale`` =
        ``sqrt((1/n + rho/(1 - rho)) var(d))`` (``var`` with ``n - 1``).

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(0.85, 0.02, (10, 10))  # 10 runs of 10-fold cross-validation
    >>> r = mlci.correlated_bayesian_ttest(a, a - 0.015 + rng.normal(0, 0.01, (10, 10)), rope=0.01)
    >>> round(r.p_a_better, 3), round(r.p_rope, 3), round(r.p_b_better, 3)
    (0.949, 0.051, 0.0)
    """
    a, b = _paired(scores_a, scores_b)
    rope = check_nonnegative("rope", rope, hint=_ROPE_HINT)
    hib = _hib(higher_is_better)
    if a.ndim == 2:
        n_runs = a.shape[0]
    else:
        n_runs = check_positive_int("n_runs", n_runs)
        if a.size % n_runs:
            raise ValueError(
                f"The {a.size} scores do not split into `n_runs`={n_runs} runs of equal "
                "size; pass the number of repetitions of the cross-validation."
            )
    d = (a - b).ravel()
    n = d.size
    if n < 2:
        raise ValueError(f"`scores_a` and `scores_b` need at least 2 paired scores; got {n}.")
    k = n / n_runs
    if rho is None:
        if k < 2:
            raise ValueError("One fold per run: pass `rho` (the test fraction) explicitly.")
        rho = 1.0 / k
    elif (
        isinstance(rho, bool)
        or not isinstance(rho, int | float | np.number)
        or not (0.0 <= float(rho) < 1.0)
    ):
        raise ValueError(f"`rho` must be a number in [0, 1) (the test fraction); got {rho!r}.")
    rho = float(rho)
    mean = float(d.mean())
    var = float(d.var(ddof=1)) * (1.0 / n + rho / (1.0 - rho))
    df = n - 1
    scale = float(np.sqrt(var))
    if scale == 0.0:  # every difference equal: a point mass
        p_pos, p_neg = float(mean > rope), float(mean < -rope)
        if rope == 0.0 and mean == 0.0:
            p_pos = p_neg = 0.5
    else:
        p_pos = float(stats.t.sf(rope, df, loc=mean, scale=scale))
        p_neg = float(stats.t.cdf(-rope, df, loc=mean, scale=scale))
    p_in = max(0.0, 1.0 - p_pos - p_neg)
    pa, pr, pb = _oriented(p_pos, p_in, p_neg, hib)
    return BayesianComparison(
        variant="correlated t",
        estimate=mean,
        rope=rope,
        p_a_better=pa,
        p_rope=pr,
        p_b_better=pb,
        higher_is_better=hib,
        posterior={"df": df, "loc": mean, "scale": scale},
        details={"n": n, "n_runs": int(n_runs), "rho": rho},
    )


# --------------------------------------------------------------------------- signed-rank
def bayesian_signed_rank_test(
    scores_a: Any,
    scores_b: Any,
    *,
    rope: float = 0.0,
    prior_strength: float = 0.5,
    n_samples: int = 50000,
    higher_is_better: bool = True,
    rng: Any = None,
) -> BayesianComparison:
    """The Bayesian signed-rank test across data sets (Benavoli et al. 2014, 2017).

    The differences ``z_i = a_i - b_i`` of ``n`` data sets, plus a pseudo-observation
    ``z_0 = 0`` of weight ``prior_strength``, get Dirichlet weights
    ``w ~ Dir(s, 1, ..., 1)``; each draw gives
    ``P(a better) = sum_ij w_i w_j [z_i + z_j > 2 rope]`` (ties count 1/2), likewise
    for B, the rest in the ROPE.  The result's probabilities are the shares of draws in
    which each of the three is the largest (as in the paper and ``baycomp``).

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (n_datasets,)
        Mean scores of the two systems on each data set.
    rope : float, default 0
    prior_strength : float, default 0.5
        ``s``, the weight of the prior pseudo-observation at 0 (Benavoli et al.).
    n_samples : int, default 50000
        Posterior draws.
    higher_is_better : bool, default True
    rng : None, int, Generator or SeedSequence

    Returns
    -------
    BayesianComparison
        ``posterior["samples"]``: the draws, columns (a better, rope, b better).

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(1)
    >>> a = rng.uniform(0.7, 0.9, 20)
    >>> r = mlci.bayesian_signed_rank_test(a, a - 0.02, rope=0.01, rng=0)
    >>> round(r.p_a_better, 2)
    1.0
    """
    a, b = _paired(scores_a, scores_b)
    if a.ndim != 1:
        raise ValueError("`scores_a` must be 1-D: one mean score per data set.")
    rope = check_nonnegative("rope", rope, hint=_ROPE_HINT)
    hib = _hib(higher_is_better)
    if isinstance(prior_strength, bool) or not isinstance(prior_strength, int | float | np.number):
        raise TypeError(f"`prior_strength` must be a positive number; got {prior_strength!r}.")
    s = float(prior_strength)
    if not np.isfinite(s) or s <= 0:
        raise ValueError(
            f"`prior_strength` must be a positive number (0.5); got {prior_strength!r}."
        )
    n_samples = check_positive_int("n_samples", n_samples)
    gen = np.random.default_rng(check_rng_seed(rng))
    z = np.concatenate(([0.0], a - b))
    sums = z[:, None] + z[None, :]

    def heaviside(x: np.ndarray, t: float) -> np.ndarray:
        return (x > t) + 0.5 * (x == t)

    above = heaviside(sums, 2 * rope)
    below = heaviside(-sums, 2 * rope)
    alpha = np.ones(z.size)
    alpha[0] = s
    samples = np.empty((n_samples, 3))
    step = max(1, 2_000_000 // (z.size * z.size))
    for start in range(0, n_samples, step):
        w = gen.dirichlet(alpha, min(step, n_samples - start))
        pos = np.einsum("si,ij,sj->s", w, above, w)
        neg = np.einsum("si,ij,sj->s", w, below, w)
        samples[start : start + len(w)] = np.column_stack((pos, 1.0 - pos - neg, neg))
    if not hib:
        samples = samples[:, ::-1]
    if rope == 0.0:
        samples[:, 1] = 0.0
    winner = np.argmax(samples, axis=1)
    pa, pr, pb = np.bincount(winner, minlength=3) / n_samples
    se = float(np.sqrt(0.25 / n_samples))
    return BayesianComparison(
        variant="signed-rank",
        estimate=float(np.mean(a - b)),
        rope=rope,
        p_a_better=float(pa),
        p_rope=float(pr),
        p_b_better=float(pb),
        higher_is_better=hib,
        posterior={"samples": samples, "standard_error": se},
        details={"n": int(a.size), "prior_strength": s, "n_samples": n_samples},
    )
