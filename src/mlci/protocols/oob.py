"""Out-of-bag evaluation of a fitted bagging ensemble or random forest, with an interval.

A forest fitted with ``oob_score=True`` holds, for every training sample, the prediction
of the trees whose bootstrap sample left it out (``oob_decision_function_`` for
classifiers, ``oob_prediction_`` for regressors; Breiman 1996).  :func:`oob_ci` scores
these predictions with an mlci metric and puts mlci's test-set bootstrap
(:func:`mlci.bootstrap_ci`) on them, as if they were predictions on a test set.

That interval treats the out-of-bag predictions as a fixed test set: it carries the
sampling variability of the evaluation samples, not the variability of the forest
between training sets, and the out-of-bag predictions of two samples share trees.
Its stated target is the metric of the fitted forest on new data.  **It does not hold
it**: in the coverage study of docs/validation.md (a 50-tree forest, n = 200, accuracy,
300 replications) the 95% interval covered the forest's accuracy on 20,000 fresh
samples in 0.893 of the replications (Monte-Carlo standard error 0.018) and the
expected accuracy of such forests in 0.903; for the MSE of a regression forest
(Friedman #1, 200 replications) 0.845 and 0.950.  The out-of-bag estimate is
pessimistic (each sample's prediction uses the ~37% of the trees that left it out:
−0.012 accuracy, +0.42 MSE here) and varies more between data sets than a test set of
that size (standard deviation 1.14 times the interval's standard error).  No interval
for the out-of-bag error with shown coverage is known to us; :func:`oob_ci` says so in a
warning at every call.
For an interval that holds, cross-validate the forest (:func:`mlci.cross_val_ci`,
``method="nested"``) or keep a test set.

References
----------
- Breiman, L. (1996). Out-of-bag estimation. Technical report, UC Berkeley.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..classical.checks import require
from ..engine.bootstrap import bootstrap_ci
from ..feedback import warn
from ..inputs import ArgSpec, check_flag, gather, positive_label
from ..results import BootstrapResult
from ._fitting import metric_spec

__all__ = ["OOB_WARNING", "oob_ci"]

#: the warning of every :func:`oob_ci` call (the study's numbers, docs/validation.md)
OOB_WARNING = (
    "oob_ci's interval treats the out-of-bag predictions as a test set; it is approximate: "
    "in mlci's coverage study (50-tree forests, n = 200) its 95% interval covered the "
    "forest's accuracy in 0.89 and its MSE in 0.85 of the replications (out-of-bag "
    "predictions use ~37% of the trees, so the estimate is pessimistic, and it varies more "
    "than a test set's). For an interval that holds, use cross_val_ci(method='nested') or "
    "a test set."
)


def _oob_predictions(model: Any, spec: Any, pos_label: Any) -> tuple[np.ndarray, Any]:
    if hasattr(model, "oob_decision_function_"):
        proba = np.asarray(model.oob_decision_function_, dtype=float)
        classes = np.asarray(model.classes_)
        if spec.regression:
            raise ValueError(
                f"`model` is a classifier; `metric`={spec.name!r} is a regression metric."
            )
        if spec.response == "predict":
            missing = np.isnan(proba).any(axis=1)
            pred = classes[np.argmax(np.where(np.isnan(proba), -1.0, proba), axis=1)]
            return pred, missing
        if spec.response == "proba" and proba.shape[1] > 2:
            return proba, np.isnan(proba).any(axis=1)
        pos = positive_label(classes, pos_label, name="model.classes_")
        col = proba[:, list(classes).index(pos)]
        return col, np.isnan(col)
    if hasattr(model, "oob_prediction_"):
        if not spec.regression:
            raise ValueError(f"`model` is a regressor; `metric`={spec.name!r} needs a classifier.")
        pred = np.asarray(model.oob_prediction_, dtype=float)
        if pred.ndim != 1:
            raise ValueError("`model` has several outputs; oob_ci scores one output.")
        return pred, np.isnan(pred)
    raise ValueError(
        f"`model` ({type(model).__name__}) holds no out-of-bag predictions: fit a "
        "RandomForest*, ExtraTrees* (bootstrap=True) or Bagging* estimator with "
        "oob_score=True first."
    )


def oob_ci(
    model: Any,
    y: Any,
    *,
    metric: str = "accuracy",
    pos_label: Any = None,
    conditions: Any = None,
    dropna: bool = False,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    method: str = "auto",
    alternative: str = "two-sided",
    rng: Any = None,
) -> BootstrapResult:
    """The out-of-bag metric of a fitted ensemble, with mlci's test-set bootstrap interval.

    Parameters
    ----------
    model : fitted scikit-learn ensemble
        A ``RandomForestClassifier``/``Regressor``, ``ExtraTrees*`` with
        ``bootstrap=True`` or ``Bagging*`` fitted with ``oob_score=True``.
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
        it out (``details["n_dropped"]``).
    n_resamples, confidence_level, method, alternative, rng
        As in :func:`mlci.bootstrap_ci`.

    Returns
    -------
    BootstrapResult
        ``details["target"]`` says what the interval is for.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> X, y = make_classification(200, random_state=0)
    >>> rf = RandomForestClassifier(50, oob_score=True, random_state=0).fit(X, y)
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     r = oob_ci(rf, y, rng=0)
    >>> bool(abs(r.estimate - rf.oob_score_) < 1e-12), caught[0].message.args[0][:21]
    (True, "oob_ci's interval tre")
    """
    dropna = check_flag("dropna", dropna)
    spec = metric_spec(metric, pos_label)
    require(model=model, y=y)
    pred, missing = _oob_predictions(model, spec, pos_label)
    if missing.any() and not dropna:
        raise ValueError(
            f"`model` has no out-of-bag prediction for {int(missing.sum())} sample(s) (first: "
            f"row {int(np.flatnonzero(missing)[0])}): they were in every tree's bootstrap "
            "sample. Use more trees, or dropna=True to leave them out."
        )
    g = gather(
        {
            "y": ArgSpec("numbers" if spec.regression else "labels"),
            "conditions": ArgSpec("groups"),
            "model": ArgSpec("numbers"),
        },
        {"y": y, "conditions": conditions, "model": np.where(missing, np.nan, 0.0)},
        dropna=dropna,
        allow_empty=True,
    )
    if g.n_samples + g.n_dropped != len(pred):
        raise ValueError(
            f"`y` has {g.n_samples + g.n_dropped} entries but `model` holds {len(pred)} "
            "out-of-bag predictions; pass the targets the model was fitted on."
        )
    if g.kept is not None:
        pred = pred[g.kept]
    r = bootstrap_ci(
        g["y"],
        pred,
        metric=spec.name,
        conditions=g["conditions"],
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        rng=rng,
        pos_label=pos_label,
        average="binary" if spec.name == "f1" else "default",
    )
    n_trees = len(getattr(model, "estimators_", ()))
    target = (
        f"{spec.name} of the fitted ensemble ({n_trees} trees) on new data; the interval "
        "treats the out-of-bag predictions as a test set and is approximate"
    )
    warn(OOB_WARNING)
    return dataclasses.replace(r, details={**r.details, "target": target, "n_dropped": g.n_dropped})
