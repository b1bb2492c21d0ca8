"""What every evaluation protocol shares: reading ``X, y``, fitting clones of a
scikit-learn estimator on index sets (in parallel, with progress), predicting what the
metric needs, and scoring many prediction sets with one mlci metric kernel.

scikit-learn and joblib are optional dependencies, imported inside the functions that
use them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.sampler import Stream, block_generator
from ..feedback import counting
from ..inputs import (
    ArgSpec,
    check_choice,
    check_flag,
    engine_options,
    gather,
    missing_mask,
    positive_label,
)
from ..metrics import METRICS, AdditiveKernel, ConfusionKernel, Kernel, get_kernel, metric_info

__all__ = [
    "POINTWISE_METRICS",
    "REGRESSION_METRICS",
    "Fit",
    "MetricSpec",
    "ProtocolData",
    "fit_all",
    "metric_spec",
    "read_protocol_data",
    "require_sklearn",
    "take_rows",
]

#: metrics that are the mean of a per-sample value (a loss or a 0/1 correctness): the
#: nested cross-validation and the bootstrap estimators need these per-sample values
POINTWISE_METRICS = tuple(name for name, info in METRICS.items() if info.pointwise)
#: metrics of numeric targets (regression)
REGRESSION_METRICS = tuple(name for name, info in METRICS.items() if info.regression)
#: metrics an estimator's labels (``predict``) feed; the others take scores
_PROTOCOL_METRICS = (
    "accuracy",
    "error_rate",
    "balanced_accuracy",
    "mcc",
    "cohen_kappa",
    "f1",
    "roc_auc",
    "average_precision",
    "log_loss",
    "brier",
    "mse",
    "mae",
    "rmse",
    "r2",
)


def require_sklearn(what: str) -> None:
    """Raise an ImportError naming the extra when scikit-learn is missing."""
    try:
        import sklearn  # noqa: F401
    except ImportError:  # pragma: no cover - scikit-learn is installed with the test extra
        raise ImportError(
            f"{what} fits scikit-learn estimators; install scikit-learn "
            "(pip install 'mlci[sklearn]' or pip install scikit-learn)."
        ) from None


@dataclass(frozen=True)
class MetricSpec:
    """A built-in metric as a protocol uses it: its name, what the estimator must
    output (``"predict"``, ``"proba"`` or ``"score"``), its options and range."""

    name: str
    response: str
    params: dict[str, Any]
    bounds: tuple[float, float]
    pointwise: bool
    regression: bool


def metric_spec(metric: Any, pos_label: Any) -> MetricSpec:
    """Validate ``metric`` (a built-in name a protocol supports) and ``pos_label``."""
    if not isinstance(metric, str):
        raise TypeError(
            "`metric` must be the name of a built-in metric (one of "
            f"{', '.join(_PROTOCOL_METRICS)}); got {type(metric).__name__}."
        )
    info = metric_info(metric)  # unknown names: "Unknown metric ..." with suggestions
    check_choice("metric", info.name, _PROTOCOL_METRICS)
    if info.inputs[1] == "y_pred":
        response = "predict"
    elif info.name in ("log_loss", "brier"):
        response = "proba"
    else:
        response = "score"
    regression = info.regression
    if regression and pos_label is not None:
        raise ValueError(f"`pos_label` does not apply to the regression metric {info.name!r}.")
    params = {"pos_label": pos_label} if pos_label is not None else {}
    if info.name == "f1":
        params.setdefault("average", "binary")
    return MetricSpec(
        info.name,
        response,
        params,
        info.bounds,
        info.pointwise,
        regression,
    )


def take_rows(X: Any, idx: np.ndarray) -> Any:
    """Rows ``idx`` of ``X`` (pandas by position, numpy and scipy sparse by index)."""
    if hasattr(X, "iloc"):
        return X.iloc[idx]
    return X[idx]


@dataclass(frozen=True)
class ProtocolData:
    """``X`` (rows kept as given), ``y`` and the groups, after the gate."""

    X: Any
    y: np.ndarray
    groups: np.ndarray | None
    n_dropped: int
    pos_label: Any

    @property
    def n(self) -> int:
        return len(self.y)


def _rows(X: Any) -> Any:
    if X is None:
        raise ValueError("`X` is required; got None.")
    if hasattr(X, "iloc") or hasattr(X, "tocsr"):
        return X
    if hasattr(X, "to_numpy"):  # polars, pyarrow
        return np.asarray(X.to_numpy())
    arr = np.asarray(X)
    if arr.ndim == 0:
        raise ValueError("`X` must hold one row per sample; got a scalar.")
    return arr


def _missing_rows(X: Any) -> np.ndarray:
    """Rows of ``X`` with a missing entry (none for sparse matrices)."""
    if hasattr(X, "isna"):
        return np.asarray(np.asarray(X.isna().to_numpy()).reshape(X.shape[0], -1).any(axis=1))
    if hasattr(X, "tocsr"):
        return np.zeros(X.shape[0], dtype=bool)
    return missing_mask(np.asarray(X))


def read_protocol_data(
    X: Any,
    y: Any,
    spec: MetricSpec,
    *,
    conditions: Any = None,
    dropna: bool = False,
) -> ProtocolData:
    """Read ``X``, ``y`` (labels, or numbers for a regression metric) and ``conditions``
    through the gate; rows with a missing ``y`` or condition are refused (or dropped with
    ``dropna=True``, which also drops the rows of ``X`` with a missing entry).  Otherwise
    ``X`` goes to the estimator as it is (a pipeline may impute)."""
    dropna = check_flag("dropna", dropna)
    if y is None:
        raise ValueError("`y` is required; got None.")
    Xr = _rows(X)
    kind = "numbers" if spec.regression else "labels"
    if isinstance(conditions, list | tuple) and conditions and not np.isscalar(conditions[0]):
        raise ValueError(
            "`conditions` must be one array of group labels (samples of a group are never "
            "split across folds); nested conditions do not apply to cross-validation."
        )
    specs = {"y": ArgSpec(kind), "conditions": ArgSpec("groups")}
    values = {"y": y, "conditions": conditions}
    if dropna:  # rows of X with a missing entry are dropped too (jointly, and counted)
        specs["X"] = ArgSpec("numbers")
        values["X"] = np.where(_missing_rows(Xr), np.nan, 0.0)
    g = gather(specs, values, dropna=dropna, allow_empty=True)
    n_rows = Xr.shape[0]
    n_all = g.n_samples + g.n_dropped
    if n_rows != n_all:
        raise ValueError(
            f"`X` has {n_rows} rows but `y` has {n_all} entries; they must have one per sample."
        )
    if g.n_samples < 2:
        raise ValueError(
            f"`X` and `y` hold {g.n_samples} sample(s); an evaluation protocol needs many more."
        )
    if g.kept is not None:
        Xr = take_rows(Xr, g.kept)
    yv = g["y"]
    pos = None
    if (not spec.regression and spec.response != "predict") or "pos_label" in spec.params:
        pos = positive_label(yv, spec.params.get("pos_label"), name="y")
    return ProtocolData(Xr, yv, g["conditions"], g.n_dropped, pos)


def check_estimator(estimator: Any, spec: MetricSpec, name: str = "estimator") -> None:
    """``estimator`` is a scikit-learn estimator with what ``spec`` needs."""
    if not (hasattr(estimator, "fit") and hasattr(estimator, "get_params")):
        raise TypeError(
            f"`{name}` must be a scikit-learn estimator (with `fit` and `get_params`); "
            f"got {type(estimator).__name__}."
        )
    need = {"predict": ("predict",), "proba": ("predict_proba",)}.get(
        spec.response, ("predict_proba", "decision_function")
    )
    if not any(hasattr(estimator, m) for m in need):
        raise TypeError(
            f"`{name}` ({type(estimator).__name__}) has no {' or '.join(need)}, which the "
            f"metric {spec.name!r} needs."
        )


def check_n_jobs(n_jobs: Any) -> int | None:
    return engine_options(n_jobs=n_jobs).n_jobs


def seeded(estimator: Any, seed: int) -> Any:
    """A clone of ``estimator`` whose unset ``random_state`` parameters are ``seed``."""
    from sklearn.base import clone

    est = clone(estimator)
    params = est.get_params()
    fixed = {
        k: seed
        for k, v in params.items()
        if (k == "random_state" or k.endswith("__random_state")) and v is None
    }
    if fixed:
        est.set_params(**fixed)
    return est


def fit_seed(seed: np.random.SeedSequence, repetition: int) -> int:
    """The ``random_state`` of the fits of one repetition (the :attr:`Stream.TRAINING`
    stream): the same ``rng`` gives the same fits on every machine and core count."""
    return int(block_generator(seed, Stream.TRAINING, repetition).integers(0, 2**31 - 1))


@dataclass(frozen=True)
class Fit:
    """One fit of the protocol: train on ``train``, predict ``test``; ``where`` names it
    in messages (e.g. ``"fold 3 of repetition 1"``)."""

    train: np.ndarray
    test: np.ndarray
    seed: int
    where: str


def _predict(model: Any, X: Any, spec: MetricSpec, pos_label: Any, where: str) -> np.ndarray:
    if spec.response == "predict":
        return np.asarray(model.predict(X))
    classes = list(getattr(model, "classes_", []))
    if spec.response == "proba" or hasattr(model, "predict_proba"):
        p = np.asarray(model.predict_proba(X), dtype=float)
        if spec.response == "proba" and p.shape[1] > 2:
            return p
        if pos_label not in classes:
            raise ValueError(
                f"On {where}, the estimator was trained without the positive class "
                f"{pos_label!r} (its classes: {classes}); use stratified folds or fewer folds."
            )
        return p[:, classes.index(pos_label)]
    s = np.asarray(model.decision_function(X), dtype=float)
    if s.ndim > 1:
        raise ValueError(
            f"{spec.name!r} needs one score per sample; the estimator gave {s.shape[1]}."
        )
    return s if classes and classes[-1] == pos_label else -s


def _fit_one(estimator: Any, data: ProtocolData, spec: MetricSpec, fit: Fit) -> tuple[Any, Any]:
    y_train = data.y[fit.train]
    if not spec.regression and len(np.unique(y_train)) < 2:
        raise ValueError(
            f"The training set of {fit.where} holds a single class ({y_train[0]!r}); "
            "a classifier cannot be fitted. Use stratified folds, fewer folds or more data."
        )
    model = seeded(estimator, fit.seed)
    try:
        model.fit(take_rows(data.X, fit.train), y_train)
        pred = _predict(model, take_rows(data.X, fit.test), spec, data.pos_label, fit.where)
    except ValueError as exc:
        if str(exc).startswith(f"On {fit.where}"):
            raise
        raise ValueError(
            f"The estimator failed on {fit.where} (training on {len(fit.train)} samples, "
            f"testing on {len(fit.test)}): {type(exc).__name__}: {exc}"
        ) from exc
    except Exception as exc:
        raise RuntimeError(
            f"The estimator failed on {fit.where} (training on {len(fit.train)} samples, "
            f"testing on {len(fit.test)}): {type(exc).__name__}: {exc}"
        ) from exc
    best = getattr(model, "best_params_", None)
    return pred, (dict(best) if best is not None else None)


def fit_all(
    estimator: Any,
    data: ProtocolData,
    spec: MetricSpec,
    fits: Sequence[Fit],
    *,
    n_jobs: int | None,
) -> list[tuple[Any, Any]]:
    """Fit and predict every :class:`Fit` (in order), with joblib when ``n_jobs`` asks.

    The fits are counted on the active progress bar (:func:`mlci.feedback.counting`;
    the protocols' drivers open one for ``progress=True``)."""
    out: list[tuple[Any, Any]] = []
    if n_jobs is not None and n_jobs != 1:
        try:
            from joblib import Parallel, delayed
        except ImportError:  # pragma: no cover - joblib is an optional extra
            raise ImportError(
                "`n_jobs` fits in parallel with joblib; install it (pip install 'mlci[parallel]') "
                "or leave n_jobs=None."
            ) from None
        results = Parallel(n_jobs=n_jobs, return_as="generator")(
            delayed(_fit_one)(estimator, data, spec, f) for f in fits
        )
    else:
        results = (_fit_one(estimator, data, spec, f) for f in fits)
    with counting(len(fits), "fit") as advance:
        for r in results:
            out.append(r)
            advance(1)
    return out


def pooled_kernel(spec: MetricSpec, y: np.ndarray, preds: list[np.ndarray]) -> Kernel:
    """One kernel over every prediction set, concatenated (its keys are in that order)."""
    p = np.concatenate(preds, axis=0)
    return get_kernel(spec.name, (y, p), spec.params, names=("y", "predictions"))


def pointwise_values(kernel: Kernel) -> np.ndarray:
    """The metric of every single sample (its 0/1 correctness, its loss): the kernel on
    weight vectors with one sample each, i.e. ``evaluate(eye(m))[keys]``."""
    if isinstance(kernel, AdditiveKernel):
        per_atom = kernel.g(kernel.atoms)  # = evaluate(eye(m)), without the (m, m) matrix
    elif isinstance(kernel, ConfusionKernel):
        per_atom = kernel.evaluate(np.eye(kernel.m))
    else:  # pragma: no cover - only pointwise metrics come here
        raise TypeError(f"{kernel.name!r} is not the mean of per-sample values")
    return np.asarray(per_atom, dtype=float)[kernel.keys]


def set_scores(
    kernel: Kernel, slices: Sequence[tuple[int, int]], max_cells: int = 4_000_000
) -> np.ndarray:
    """The metric on each slice ``(start, end)`` of the kernel's samples (one prediction
    set each), from atom counts: ``(slices, m)`` weight matrices, in bounded chunks."""
    rows = max(1, max_cells // max(kernel.m, 1))
    out = []
    for s in range(0, len(slices), rows):
        part = slices[s : s + rows]
        w = np.zeros((len(part), kernel.m))
        for j, (a, b) in enumerate(part):
            w[j] = np.bincount(kernel.keys[a:b], minlength=kernel.m)
        out.append(np.asarray(kernel.evaluate(w), dtype=float).reshape(len(part)))
    return np.concatenate(out)
