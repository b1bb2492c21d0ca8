"""The splits and fits of a cross-validation: fold ids, the split plan of every ``cv`` kind
(k-fold, stratified, grouped, repeated, leave-one-out, repeated random splits, nested),
the fits it needs, and the held-out values of one estimator (:func:`cross_val_ci` and
:func:`cross_val_compare` of :mod:`mlci.protocols.crossval` run these)."""

import dataclasses
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from ..engine.sampler import Stream, block_generator
from ..inputs import (
    check_choice,
    check_flag,
    check_positive_int,
    check_rng_seed,
)
from ._fitting import (
    Fit,
    MetricSpec,
    ProtocolData,
    check_estimator,
    check_n_jobs,
    fit_all,
    fit_seed,
    pooled_kernel,
    read_protocol_data,
    set_scores,
)

__all__ = ["LOO_NESTED_K", "fold_ids", "plan_fits"]

#: folds of the nested cross-validation that measures the inflation of leave-one-out's
#: standard error (``cv="loo"``, ``method="nested"``)
LOO_NESTED_K = 5


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
    dropna: Any,
) -> _Prepared:
    """Validate the shared options and data, and lay out the folds and fits."""
    cv_kind, k, reps, test_size = _check_cv(cv, n_repeats, test_size, method)
    seed = check_rng_seed(rng)
    workers = check_n_jobs(None)  # the configured threads (mlci.config_context)
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
