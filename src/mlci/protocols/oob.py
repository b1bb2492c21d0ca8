"""Out-of-bag evaluation of a fitted bagging ensemble or random forest, with an interval.

A forest fitted with ``oob_score=True`` holds, for every training sample, the prediction
of the trees whose bootstrap sample left it out (``oob_decision_function_`` for
classifiers, ``oob_prediction_`` for regressors; Breiman 1996).  Two things keep that
out-of-bag metric from being a test set's, both measured in the coverage study of
docs/validation.md (50-tree forests, n = 200):

- it is **pessimistic** for the fitted forest: each sample's prediction is the vote of
  the ~37% of the trees that left it out, not of all of them (−0.010 accuracy, +0.42
  MSE in the study);
- it **varies more** than a test set's metric: the samples share their out-of-bag trees,
  so the Monte-Carlo noise of a finite forest does not average out over the samples.

:func:`oob_ci` with the training data ``X`` (recommended) corrects both.
Every tree's prediction on every training sample is recomputed
(:func:`tree_predictions`, checked against the model's own out-of-bag predictions):

- **the estimate** is the out-of-bag metric extrapolated to all ``B`` trees: the metric
  is recomputed with random subsets of each sample's out-of-bag trees (fractions 1/4 to
  1 of them), fitted as ``a + c·k^-p`` in the number ``k`` of trees per vote and read
  at ``k = B`` (:func:`oob_extrapolation`).  ``p = 1`` for averaged predictions (the MSE
  of an average of ``k`` trees is the bias term plus exactly ``variance/k``) and
  ``p = 1/2`` for votes (labels): the error of a ``k``-tree vote fell like ``1/√k``, not
  ``1/k``, over 2–50 trees (the forests' own trees on fresh data), and on 200 data sets
  the ``1/k`` fit left −0.010 of the −0.015 bias in accuracy, the ``1/√k`` fit −0.002
  (``scripts/oob_variants.py``);
- **the standard error** adds the Monte-Carlo variance of the finite forest to the
  test-set one: ``se² = se_test² + se_trees²``, ``se_test`` from mlci's test-set bootstrap
  of the out-of-bag predictions (:func:`mlci.bootstrap_ci`), ``se_trees`` the spread of
  the out-of-bag metric when the trees are resampled with replacement
  (:func:`oob_member_bootstrap`, Lopes 2019's bootstrap over an ensemble's members);
  the interval is ``estimate ± z·se``.

Its stated target, as for the other resampling protocols, is the algorithm at ``n``: the
metric on new data of forests of the fitted one's configuration trained on ``n``
samples.  In the coverage study (400 replications per cell) it covered that accuracy in
0.938 (Monte-Carlo standard error 0.012; with 200 trees 0.943 ± 0.012) and that MSE in
0.975 ± 0.008 (200 trees: 0.965 ± 0.009).  Of the fitted forest itself it covered the
accuracy in 0.940 and 0.930, but the MSE in only **0.910** (± 0.014) and **0.887**
(± 0.016): the fitted forest's own MSE varies between training sets, uncorrelated with
the estimate, and one data set holds no measure of that spread without refitting.  So
the MSE and the metrics the study did not measure warn; accuracy and error rate do not.
Without ``X`` the interval is the test-set bootstrap of the plain out-of-bag predictions:
it covered the fitted forest in 0.895 and 0.823 in the same study (0.905 and 0.863 with
200 trees), the algorithm in 0.895 and 0.932 (0.920 and 0.958); it warns at every call.
Standard errors that were tried and failed: Efron's (1992) jackknife-after-bootstrap
(the out-of-bag metric without the trees that contain sample ``j``: with 50 trees each
pair of samples shares ~7 trees, and the Monte-Carlo noise made its standard error ten
times too large) and Efron & Tibshirani's (1997) delta method on the per-tree losses
(:func:`mlci.protocols.bootstrap632.oob_standard_error`; it is for the mean per-tree
loss, not the vote, and its Monte-Carlo adjustment was undefined in half the data sets
with 50 trees).

References
----------
- Breiman, L. (1996). Out-of-bag estimation. Technical report, UC Berkeley.
- Lopes, M. E. (2019). Estimating the algorithmic variance of randomized ensembles via
  the bootstrap. The Annals of Statistics 47(2), 1088–1112 (arXiv:1907.08742).
- Efron, B. (1992). Jackknife-after-bootstrap standard errors and influence functions.
  JRSS B 54(1), 83–127.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..classical.checks import require
from ..engine.bootstrap import bootstrap_ci
from ..engine.replicate_loop import run_replicates
from ..engine.sampler import RootStreamSampler, stream_seed
from ..feedback import warn
from ..inputs import (
    ArgSpec,
    check_choice,
    check_flag,
    check_rng_seed,
    gather,
    old_call,
    positive_label,
    renamed,
)
from ..results import BootstrapResult, per_confidence_level
from ._fitting import _missing_rows, _rows, metric_spec, pointwise_values, pooled_kernel, set_scores
from .crossval import normal_interval, reread_normal

__all__ = [
    "OOB_FRACTIONS",
    "OOB_WARNING",
    "MemberSampler",
    "OOBResult",
    "oob_ci",
    "oob_extrapolation",
    "oob_member_bootstrap",
    "tree_predictions",
]

#: the warning of every :func:`oob_ci` call without ``X`` (the study's numbers,
#: docs/validation.md)
OOB_WARNING = (
    "oob_ci's interval treats the out-of-bag predictions as a test set without `X`; it is "
    "approximate: in mlci's coverage study (50-tree forests, n = 200) its 95% interval "
    "covered the forest's accuracy in 0.895 and its MSE in 0.823 of the replications "
    "(out-of-bag predictions use ~37% of the trees, so the estimate is pessimistic, and it "
    "varies more than a test set's). Pass the training data as X= for the corrected "
    "interval (it covered 0.938-0.943 for accuracy, 0.965-0.975 for the MSE)."
)
#: the metrics whose corrected interval held in the study (docs/validation.md): no warning
_MEASURED = ("accuracy", "error_rate")
#: the warning of the corrected interval of the MSE (docs/validation.md)
OOB_MSE_WARNING = (
    "oob_ci's interval for the MSE is for the expected MSE of forests like this one "
    "trained on n samples (its 95% interval covered it in 0.975 and 0.965 of 400 "
    "replications in mlci's coverage study, n = 200, 50 and 200 trees); this fitted "
    "forest's own MSE it covered in only 0.910 and 0.887 (that MSE varies between "
    "training sets more than one data set can measure without refitting)."
)
#: the warning of the corrected interval of the metrics the study did not measure
OOB_UNMEASURED = (
    "oob_ci's corrected interval for {metric!r} is approximate: mlci's coverage study "
    "measured it for accuracy (it held) and the MSE (0.887-0.910) only."
)


@dataclass(frozen=True, kw_only=True, repr=False)
class OOBResult(BootstrapResult):
    """:func:`oob_ci`'s corrected result (with ``X``): the extrapolated out-of-bag metric
    and its normal interval with ``se² = se_test² + se_members²``.

    ``bootstrap_distribution`` holds the test-set bootstrap of the plain out-of-bag
    predictions (where ``se_test`` comes from), not replicates of the estimate: an interval
    read from those replicates would leave out the members' variance and, for the
    percentile-type methods, the extrapolation.  :meth:`interval` therefore gives the same
    normal interval at another confidence level or alternative and refuses other methods.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from mlci import oob_ci
    >>> X, y = make_classification(200, random_state=0)
    >>> rf = RandomForestClassifier(50, oob_score=True, random_state=0).fit(X, y)
    >>> r = oob_ci(rf, X, y, rng=0)
    >>> r90 = r.interval(confidence_level=0.9)
    >>> bool(r90.confidence_interval.high - r90.confidence_interval.low
    ...      < r.confidence_interval.high - r.confidence_interval.low)
    True
    """

    def interval(
        self,
        method: str | None = None,
        confidence_level: Any = None,
        alternative: str | None = None,
        variant: str = "mlci",
    ) -> Any:
        """The interval at another confidence level (a sequence gives a tuple) or
        alternative, from the same estimate and standard error.

        Parameters
        ----------
        method : {"oob-extrapolated", "normal"}, optional
            The only interval this result supports (``"normal"`` is the same one).
        confidence_level : float or sequence of float, optional
        alternative : {"two-sided", "less", "greater"}, optional
        variant : {"mlci"}, default "mlci"
            As in :meth:`BootstrapResult.interval`, whose signature this keeps: the
            normal interval of this result has no other convention (``"boot"`` and
            ``"survey"`` re-read replicates, which it does not use).

        Returns
        -------
        OOBResult, or tuple of OOBResult (one per level)
        """
        check_choice("variant", variant, ("mlci",))
        return reread_normal(
            self,
            method,
            confidence_level,
            alternative,
            methods=(self.method, "normal"),
            refusal="oob_ci's corrected result has replicates from the test-set bootstrap of "
            "the plain out-of-bag predictions, without the members' variance or the "
            "extrapolation. Its interval is normal (method='oob-extrapolated' or 'normal'); "
            "for a bootstrap interval of the plain out-of-bag metric call oob_ci without X.",
        )


def _never_out_of_bag(model: Any, n: int) -> np.ndarray:
    """The samples that were in every member's bootstrap sample (no out-of-bag
    prediction).  scikit-learn's forests store 0 for them, not NaN (a row of zero
    probabilities, a regression prediction of 0), so they are found from the members'
    bootstrap samples where the model has them."""
    samples = getattr(model, "estimators_samples_", None)
    if samples is None:
        return np.zeros(n, dtype=bool)
    out_of_bag = np.zeros(n, dtype=bool)
    for ix in samples:
        drawn = np.zeros(n, dtype=bool)
        drawn[np.asarray(ix)[np.asarray(ix) < n]] = True
        out_of_bag |= ~drawn
    return ~out_of_bag


def _oob_predictions(model: Any, spec: Any, pos_label: Any) -> tuple[np.ndarray, Any]:
    if hasattr(model, "oob_decision_function_"):
        proba = np.asarray(model.oob_decision_function_, dtype=float)
        classes = np.asarray(model.classes_)
        if spec.regression:
            raise ValueError(
                f"`estimator` is a classifier; `metric`={spec.name!r} is a regression metric."
            )
        # NaN (bagging) or a row of zero probabilities (forests): no out-of-bag vote
        missing = np.isnan(proba).any(axis=1) | ~(np.nansum(proba, axis=1) > 0)
        missing |= _never_out_of_bag(model, len(proba))
        if spec.response == "predict":
            pred = classes[np.argmax(np.where(np.isnan(proba), -1.0, proba), axis=1)]
            return pred, missing
        if spec.response == "proba" and proba.shape[1] > 2:
            return proba, missing
        pos = positive_label(classes, pos_label, name="model.classes_")
        col = proba[:, list(classes).index(pos)]
        return col, missing
    if hasattr(model, "oob_prediction_"):
        if not spec.regression:
            raise ValueError(
                f"`estimator` is a regressor; `metric`={spec.name!r} needs a classifier."
            )
        pred = np.asarray(model.oob_prediction_, dtype=float)
        if pred.ndim != 1:
            raise ValueError("`estimator` has several outputs; oob_ci scores one output.")
        return pred, np.isnan(pred) | _never_out_of_bag(model, len(pred))
    raise ValueError(
        f"`estimator` ({type(model).__name__}) holds no out-of-bag predictions: fit a "
        "RandomForest*, ExtraTrees* (bootstrap=True) or Bagging* estimator with "
        "oob_score=True first."
    )


def tree_predictions(model: Any, X: Any) -> tuple[np.ndarray, np.ndarray]:
    """Every member's prediction on the training rows, and how often each row was in its
    bootstrap sample.

    Parameters
    ----------
    model : fitted scikit-learn bagging ensemble or random forest
    X : array-like, shape (n_samples, n_features)
        The data the model was fitted on, in the same order.

    Returns
    -------
    (predictions, counts)
        ``predictions``: shape ``(B, n)`` for a regressor, ``(B, n, n_classes)`` (class
        probabilities, the columns of ``model.classes_``) for a classifier; ``counts``:
        shape ``(B, n)``, from ``model.estimators_samples_``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> X, y = make_classification(60, random_state=0)
    >>> rf = RandomForestClassifier(10, oob_score=True, random_state=0).fit(X, y)
    >>> p, c = tree_predictions(rf, X)
    >>> p.shape, c.shape, int(c.sum(axis=1)[0])
    ((10, 60, 2), (10, 60), 60)
    """
    members = list(getattr(model, "estimators_", ()))
    samples = getattr(model, "estimators_samples_", None)
    if not members or samples is None:
        raise ValueError(
            f"`model` ({type(model).__name__}) has no fitted members with their bootstrap "
            "samples (estimators_, estimators_samples_): fit a RandomForest*, ExtraTrees* "
            "(bootstrap=True) or Bagging* estimator first."
        )
    features = getattr(model, "estimators_features_", None)
    if hasattr(X, "tocsr"):
        Xa = X.tocsr()
    else:
        Xa = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X)
    if Xa.ndim != 2 or Xa.dtype.kind not in "biuf":
        raise ValueError(
            "`X` must be the numeric training data, one row per sample; got an array of "
            f"{Xa.ndim} dimension(s) and dtype {Xa.dtype}."
        )
    n = Xa.shape[0]
    classes = getattr(model, "classes_", None)
    preds = []
    for b, est in enumerate(members):
        xb = Xa if features is None else Xa[:, features[b]]
        if classes is None:
            preds.append(np.asarray(est.predict(xb), dtype=float))
            continue
        k = len(classes)
        out = np.zeros((n, k))
        if hasattr(est, "predict_proba"):
            proba = np.asarray(est.predict_proba(xb), dtype=float)
            cols = np.arange(k) if proba.shape[1] == k else np.asarray(est.classes_, dtype=int)
            out[:, cols] = proba
        else:  # members without probabilities vote (as scikit-learn's bagging does)
            out[np.arange(n), np.asarray(est.predict(xb), dtype=int)] = 1.0
        preds.append(out)
    counts = np.array([np.bincount(np.asarray(ix), minlength=n)[:n] for ix in samples])
    if counts.shape[1] != n or any(np.asarray(ix).max(initial=-1) >= n for ix in samples):
        raise ValueError(
            f"`X` has {n} rows but `model` was fitted on more; pass the data it was fitted on."
        )
    return np.asarray(preds), counts


def _labels_or_scores(mean: np.ndarray, spec: Any, classes: Any, pos_label: Any) -> np.ndarray:
    """The metric's input from mean member predictions (..., n[, k]): as oob_ci reads
    scikit-learn's out-of-bag predictions."""
    if classes is None:
        return mean
    if spec.response == "predict":
        return np.asarray(classes)[np.argmax(mean, axis=-1)]
    if spec.response == "proba" and mean.shape[-1] > 2:
        return mean
    pos = positive_label(classes, pos_label, name="model.classes_")
    return mean[..., list(classes).index(pos)]


def _scores(spec: Any, y: np.ndarray, sets: np.ndarray) -> np.ndarray:
    """The metric of each prediction set (``sets[s]`` predicts ``y``)."""
    s_count = sets.shape[0]
    flat = sets.reshape((s_count * len(y), *sets.shape[2:]))
    kernel = pooled_kernel(spec, np.tile(y, s_count), [flat])
    if spec.pointwise:
        return pointwise_values(kernel).reshape(s_count, len(y)).mean(axis=1)
    return set_scores(kernel, [(i * len(y), (i + 1) * len(y)) for i in range(s_count)])


#: fractions of each sample's out-of-bag members whose votes extrapolate the metric
OOB_FRACTIONS = (0.25, 1 / 3, 0.5, 0.75, 1.0)


def oob_extrapolation(
    predictions: np.ndarray,
    oob: np.ndarray,
    score: Any,
    *,
    power: float,
    n_subsets: int = 20,
    rng: Any = None,
) -> tuple[float, float, float]:
    """The out-of-bag metric extrapolated from votes of fewer members to all ``B``.

    Each sample's out-of-bag prediction averages its ``m_i`` out-of-bag members (about
    ``0.37·B``), not all ``B`` members of the ensemble.  The metric is computed again
    with random subsets of ``k_i = round(f·m_i)`` of each sample's out-of-bag members
    for the fractions ``f`` of :data:`OOB_FRACTIONS` (``n_subsets`` random subsets
    each), fitted by least squares as ``a + c·mean_i(k_i^-power)`` and read at ``B``:
    ``a + c·B^-power``.

    Parameters
    ----------
    predictions : ndarray, shape (B, n) or (B, n, k)
        The members' predictions (see :func:`tree_predictions`).
    oob : ndarray of bool, shape (B, n)
        Whether member ``b`` left sample ``i`` out of its bootstrap sample (every sample
        needs at least one).
    score : callable
        ``score(mean_predictions)`` -> ndarray of the metric of each set, for
        ``mean_predictions`` of shape ``(S, n[, k])``.
    power : float
        1 for the mean of a smooth loss of averaged predictions (the variance term of
        the MSE of an average of ``k`` members is exactly ``c/k``); 0.5 for votes
        (labels): measured in mlci's study (see docs/validation.md).
    n_subsets : int, default 20
    rng : seed

    Returns
    -------
    (extrapolated, at_full_oob, slope)
        The metric at ``B`` members, the plain out-of-bag metric, and ``c``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> p = rng.normal(size=(40, 30))
    >>> oob = rng.random((40, 30)) < 0.4
    >>> oob[0] = True
    >>> def mse(mean):  # the truth is 0: the MSE of a mean of k members is 1/k
    ...     return (mean**2).mean(axis=1)
    >>> est, plain, c = oob_extrapolation(p, oob, mse, power=1.0, rng=0)
    >>> bool(abs(c - 1) < 0.5), bool(est < plain)
    (True, True)
    """
    gen = np.random.default_rng(rng)
    b_count = predictions.shape[0]
    oob = np.asarray(oob, dtype=bool)
    m = oob.sum(axis=0)
    if (m == 0).any():
        raise ValueError("every sample needs at least one out-of-bag member.")
    xs, sets = [], []
    for f in OOB_FRACTIONS:
        k = np.maximum(1, np.round(f * m)).astype(int)
        for _ in range(1 if f == 1.0 else n_subsets):
            if f == 1.0:
                chosen = oob
            else:
                # each sample's k_i out-of-bag members with the smallest random keys
                # (k_i <= m_i, so the k_i-th smallest key is finite)
                key = np.where(oob, gen.random(oob.shape), np.inf)
                kth = np.take_along_axis(np.sort(key, axis=0), k[None, :] - 1, axis=0)
                chosen = key <= kth
            sets.append(_member_mean(predictions, chosen))
            xs.append(float(np.mean(k.astype(float) ** -power)))
    ys = np.asarray(score(np.asarray(sets)), dtype=float)
    slope, intercept = np.polyfit(np.asarray(xs), ys, 1)
    return float(intercept + slope * b_count**-power), float(ys[-1]), float(slope)


def _member_mean(predictions: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """The mean prediction of the chosen members of each sample (chosen: (B, n))."""
    w = chosen.astype(float)
    total = np.einsum("bn,bn...->n...", w, predictions)
    count = w.sum(axis=0)
    return total / count.reshape(count.shape + (1,) * (predictions.ndim - 2))


def oob_member_bootstrap(
    predictions: np.ndarray,
    oob: np.ndarray,
    score: Any,
    *,
    n_resamples: int = 200,
    rng: Any = None,
) -> np.ndarray:
    """The out-of-bag metric with the ensemble's members resampled (with replacement):
    its spread is the Monte-Carlo variability of the out-of-bag metric that comes from
    the finite number of members, given the data.

    A sample none of whose out-of-bag members was drawn keeps its out-of-bag prediction.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> p, oob = rng.normal(size=(50, 20)), rng.random((50, 20)) < 0.4
    >>> d = oob_member_bootstrap(p, oob, lambda mean: (mean**2).mean(axis=1), rng=0)
    >>> d.shape
    (200,)
    """
    b_count = predictions.shape[0]
    oob = np.asarray(oob, dtype=bool)
    full = _member_mean(predictions, oob)
    masked = predictions * oob.reshape(oob.shape + (1,) * (predictions.ndim - 2))
    shape = (1,) * (predictions.ndim - 2)

    def evaluate(w: np.ndarray) -> np.ndarray:
        total = np.tensordot(w, masked, axes=(1, 0))  # (R, n[, k])
        count = (w @ oob).reshape((len(w), oob.shape[1], *shape))
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = total / count
        mean = np.where(count > 0, mean, full[None])
        return np.asarray(score(mean), dtype=float)

    sampler = MemberSampler(b_count, n_resamples, rng)
    return run_replicates(
        evaluate,
        sampler,
        (),
        bytes_per_row=8.0 * (b_count + 3 * masked[0].size),
        threads=False,  # `score` may be any function
    )


class MemberSampler(RootStreamSampler):
    """The ensemble's members drawn with replacement (multinomial counts over ``m``).

    One block of all ``n_resamples`` replicates, drawn from the generator of ``rng``
    itself (:class:`~mlci.engine.sampler.RootStreamSampler`): the draws
    :func:`oob_member_bootstrap` has always made, so that a seed gives the same numbers
    as before it ran in the engine's replicate loop
    (:func:`mlci.engine.bootstrap.run_replicates`).
    """

    def __init__(self, m: int, n_resamples: int, rng: Any) -> None:
        self.m = int(m)
        self.n_resamples = int(n_resamples)
        self.block_size = self.n_resamples
        self.root = rng  # a seed or a Generator

    def draw(self, rng: np.random.Generator, b: int, out: np.ndarray | None = None) -> np.ndarray:
        w = rng.multinomial(self.m, np.full(self.m, 1 / self.m), size=b).astype(float)
        if out is None:
            return w
        out[...] = w
        return out


def _old_order(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """``oob_ci(model, y[, X=X])`` (before issue 23) as ``oob_ci(estimator, X, y)``."""
    if len(args) != 2 or "y" in kwargs or np.ndim(args[1]) > 1:
        return None
    kwargs = dict(kwargs)
    return (args[0], kwargs.pop("X", None), args[1]), kwargs


@renamed(model="estimator")
@old_call(
    _old_order,
    "oob_ci(model, y, X=X) is deprecated: the order is oob_ci(estimator, X, y), as "
    "cross_val_ci's (X=None for the uncorrected interval).",
)
@per_confidence_level
def oob_ci(
    estimator: Any,
    X: Any,
    y: Any,
    *,
    metric: str = "accuracy",
    pos_label: Any = None,
    conditions: Any = None,
    dropna: bool = False,
    n_resamples: int = 1000,
    confidence_level: float | list[float] = 0.95,
    method: str = "auto",
    alternative: str = "two-sided",
    rng: Any = None,
) -> BootstrapResult:
    """The out-of-bag metric of a fitted ensemble, with an interval for the metric on new
    data of ensembles like it (the algorithm at ``n``).

    With the training data ``X`` (recommended), the metric is extrapolated from the
    out-of-bag votes (each of about 37% of the members) to all the ensemble's members
    (:func:`oob_extrapolation`) and the interval is ``estimate ± z·se`` with
    ``se² = se_test² + se_members²``: ``se_test`` the standard error of mlci's test-set
    bootstrap of the out-of-bag predictions (:func:`mlci.bootstrap_ci`), ``se_members``
    the spread of the out-of-bag metric when the members are resampled
    (:func:`oob_member_bootstrap`).  Its stated target (``details["target"]``) is the
    algorithm at ``n``: the metric on new data of ensembles of this configuration
    trained on ``n`` samples.  In mlci's coverage study (n = 200, 400 replications per
    cell) it covered that accuracy in 0.938 (50 trees) and 0.943 (200 trees), that MSE
    in 0.975 and 0.965; the fitted forest's own accuracy in 0.940 and 0.930, its own MSE
    in only 0.910 and 0.887: it warns for the MSE and for the metrics the study did not
    measure.  Without ``X``: the test-set bootstrap interval of the plain out-of-bag
    predictions, which under-covers (0.823–0.905 of the fitted forest; it warns).

    Parameters
    ----------
    estimator : fitted scikit-learn ensemble
        A ``RandomForestClassifier``/``Regressor``, ``ExtraTrees*`` with
        ``bootstrap=True`` or ``Bagging*`` fitted with ``oob_score=True``.  (``model``
        is its deprecated name.)
    X : array-like, shape (n_samples, n_features), or None
        The data the model was fitted on, in the same order: needed for the members'
        own predictions (refused if they do not reproduce the model's out-of-bag
        predictions).  None: the uncorrected interval (approximate; it warns).  The
        order ``estimator, X, y`` is :func:`mlci.cross_val_ci`'s; the old
        ``oob_ci(model, y, X=X)`` still works, with a FutureWarning.
    y : array-like, shape (n_samples,)
        The targets the model was fitted on, in the same order.
    metric : str, default "accuracy"
        A built-in metric (as in :func:`mlci.cross_val_ci`): labels from the class of
        highest out-of-bag probability, scores from the positive class's column.
    pos_label : optional
        The positive class of ``roc_auc``, ``f1``, ... (default 1 for 0/1 labels).
    conditions : array-like, optional
        Resample whole groups (see :func:`mlci.bootstrap_ci`).
    dropna : bool, default False
        A sample that was in every tree's bootstrap sample has no out-of-bag prediction
        (scikit-learn warns and gives NaN): refused unless ``dropna=True``, which leaves
        it out (``details["n_dropped"]``), as it leaves out samples with a missing ``y``,
        condition or entry of ``X``.
    n_resamples, confidence_level, alternative, rng
        As in :func:`mlci.bootstrap_ci`.
    method : str, default "auto"
        Without ``X``: the bootstrap interval's method (as in :func:`mlci.bootstrap_ci`).
        With ``X`` the interval is normal: ``"auto"`` or ``"normal"``.

    Returns
    -------
    BootstrapResult (without ``X``) or OOBResult (with ``X``; a tuple of them for a list
    of confidence levels)
        ``details["target"]`` says what the interval is for; with ``X`` also
        ``details["oob"]`` (the plain out-of-bag metric), ``"se_test"``,
        ``"se_members"`` and ``"n_members"``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> X, y = make_classification(200, random_state=0)
    >>> rf = RandomForestClassifier(50, oob_score=True, random_state=0).fit(X, y)
    >>> r = oob_ci(rf, X, y, rng=0)
    >>> bool(abs(r.details["oob"] - rf.oob_score_) < 1e-12), r.method
    (True, 'oob-extrapolated')
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     r = oob_ci(rf, None, y, rng=0)
    >>> bool(abs(r.estimate - rf.oob_score_) < 1e-12), caught[0].message.args[0][:21]
    (True, "oob_ci's interval tre")
    """
    model = estimator
    dropna = check_flag("dropna", dropna)
    spec = metric_spec(metric, pos_label)
    require(estimator=model, y=y)
    pred, missing = _oob_predictions(model, spec, pos_label)
    if missing.any() and not dropna:
        raise ValueError(
            f"`estimator` has no out-of-bag prediction for {int(missing.sum())} sample(s) (first: "
            f"row {int(np.flatnonzero(missing)[0])}): they were in every tree's bootstrap "
            "sample. Use more trees, or dropna=True to leave them out."
        )
    specs = {
        "y": ArgSpec("numbers" if spec.regression else "labels"),
        "conditions": ArgSpec("groups"),
        "model": ArgSpec("numbers"),
    }
    values = {"y": y, "conditions": conditions, "model": np.where(missing, np.nan, 0.0)}
    if X is not None and dropna:  # rows of X with a missing entry are dropped too
        specs["X"] = ArgSpec("numbers")
        values["X"] = np.where(_missing_rows(_rows(X)), np.nan, 0.0)
    g = gather(specs, values, dropna=dropna, allow_empty=True)
    if g.n_samples + g.n_dropped != len(pred):
        raise ValueError(
            f"`y` has {g.n_samples + g.n_dropped} entries but `estimator` holds {len(pred)} "
            "out-of-bag predictions; pass the targets the model was fitted on."
        )
    corrected = X is not None
    if corrected:
        if method not in ("auto", "normal"):
            raise ValueError(
                f"`method`={method!r}: with `X` the interval is normal; use method='auto' "
                "or 'normal' (or leave out `X` for the test-set bootstrap's methods)."
            )
        members, counts = tree_predictions(model, X)
        if members.shape[1] != len(pred):
            raise ValueError(
                f"`X` has {members.shape[1]} rows but `estimator` holds {len(pred)} out-of-bag "
                "predictions; pass the data the model was fitted on."
            )
        seed = check_rng_seed(rng)
        # the three children seed.spawn(3) gives a fresh seed, without advancing its counter
        boot_seed, extra_seed, member_seed = (stream_seed(seed, k) for k in range(3))
    kept = np.flatnonzero(~missing) if g.kept is None else np.asarray(g.kept)
    pred = pred[kept]
    r = bootstrap_ci(
        g["y"],
        pred,
        metric=spec.name,
        conditions=g["conditions"],
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method="auto" if corrected else method,
        alternative=alternative,
        rng=boot_seed if corrected else rng,
        pos_label=pos_label,
        average="binary" if spec.name == "f1" else "default",
    )
    n_trees = len(getattr(model, "estimators_", ()))
    if not corrected:
        target = (
            f"the algorithm at n: {spec.name} on new data of ensembles of this configuration "
            f"({n_trees} members); the interval treats the out-of-bag predictions as a test "
            "set and is approximate"
        )
        warn(OOB_WARNING)
        return dataclasses.replace(
            r, details={**r.details, "target": target, "n_dropped": g.n_dropped}
        )
    members, oob = members[:, kept], counts[:, kept] == 0
    classes = getattr(model, "classes_", None)
    own = _labels_or_scores(_member_mean(members, oob), spec, classes, pos_label)
    same = (
        np.array_equal(own, pred)
        if own.dtype.kind not in "fc"
        else np.allclose(own, pred, rtol=1e-6, atol=1e-9)
    )
    if not same:
        raise ValueError(
            "`X` does not reproduce `estimator`'s out-of-bag predictions: pass the data the "
            "model was fitted on, in the same order (and the same columns)."
        )
    y_kept = np.asarray(g["y"])

    def score(mean: np.ndarray) -> np.ndarray:
        return _scores(spec, y_kept, _labels_or_scores(mean, spec, classes, pos_label))

    # votes (labels): 1/sqrt(k) measured; averaged predictions (scores, regression): 1/k
    power = 0.5 if spec.response == "predict" and not spec.regression else 1.0
    estimate, plain, _ = oob_extrapolation(members, oob, score, power=power, rng=extra_seed)
    spread = oob_member_bootstrap(members, oob, score, rng=member_seed)
    se_members = float(np.std(spread, ddof=1))
    se_test = float(r.standard_error)
    se = float(np.hypot(se_test, se_members))
    # r's level: the one level of this call (@per_confidence_level runs one at a time)
    ci = normal_interval(estimate, se, r.confidence_level, alternative, spec.bounds)
    target = (
        f"the algorithm at n: {spec.name} on new data of ensembles of this configuration "
        f"({n_trees} members) trained on n = {len(y_kept)} samples; the study measured "
        "its coverage of the fitted ensemble too (docs/protocols.md)"
    )
    if spec.name == "mse":
        warn(OOB_MSE_WARNING)
    elif spec.name not in _MEASURED:
        warn(OOB_UNMEASURED.format(metric=spec.name))
    fields = {f.name: getattr(r, f.name) for f in dataclasses.fields(r) if f.init}
    fields.update(
        estimate=estimate,
        confidence_interval=ci,
        standard_error=se,
        method="oob-extrapolated",
        bias=float(plain - estimate),
        details={
            **r.details,
            "method_reason": "normal: the out-of-bag metric extrapolated to all members, "
            "se² = se_test² + se_members²",
            "target": target,
            "n_dropped": g.n_dropped,
            "oob": plain,
            "se_test": se_test,
            "se_members": se_members,
            "n_members": n_trees,
        },
    )
    return OOBResult(**fields)
