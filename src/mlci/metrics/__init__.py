"""The registry of built-in metrics, and kernels for user-supplied metric functions.

``get_kernel(metric, data, params)`` binds a metric (a registered name or a callable)
to the data and returns a kernel that evaluates it on chunks of replicate weights.
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from ..inputs import ArgSpec, column, gather
from ._base import (
    AdditiveKernel,
    ConfusionKernel,
    ExactSums,
    Kernel,
    SampleWeightedKernel,
    check_sample_weight,
    safe_div,
    unique_rows,
    with_sample_weight,
)
from .additive import (
    brier_kernel,
    log_loss_kernel,
    mae_kernel,
    mean_kernel,
    mse_kernel,
    r2_kernel,
    weighted_mean_kernel,
)
from .agreement import agreement_kernel
from .calibration import (
    brier_decomposition_kernel,
    calibration_error_kernel,
    recalibration_kernel,
)
from .classification import CONFUSION_METRICS, RATE_METRICS, prepare_confusion
from .correlation import correlation_kernel
from .mt import bleu_kernel, chrf_kernel, wer_kernel
from .multiclass import StackedKernel, prepare_ranking, top_k_accuracy_kernel
from .ranking import AveragePrecisionKernel, RocAucKernel

__all__ = [
    "METRICS",
    "METRIC_ALIASES",
    "SCORE_STATISTICS",
    "AdditiveKernel",
    "AveragePrecisionKernel",
    "ConfusionKernel",
    "ExactSums",
    "FunctionKernel",
    "Kernel",
    "MetricInfo",
    "RocAucKernel",
    "SampleWeightedKernel",
    "StackedKernel",
    "check_sample_weight",
    "close_metric_names",
    "get_kernel",
    "higher_is_better",
    "list_metrics",
    "metric_info",
    "metric_params",
    "safe_div",
    "unique_rows",
    "weight_argument",
    "with_sample_weight",
]


@dataclass(frozen=True)
class MetricInfo:
    """A registered metric: its inputs, its options and how to bind it to data.

    ``kinds`` says how the input gate reads each input (see :class:`mlci.inputs.ArgSpec`);
    ``bounds`` is the metric's range (intervals stay inside it).  The facts the rest of
    mlci reads about a metric live here too: ``higher_is_better`` (None: no direction,
    e.g. a mean of values), ``pointwise`` (the mean of a per-sample value: a loss or a
    0/1 correctness), ``proportion`` (a rate's numerator and denominator counts, e.g.
    ``("tp", "p")``: true positives among the positives; ``"pp"``/``"pn"``: predicted
    positives/negatives) and ``regression`` (a metric of numeric targets).
    """

    name: str
    inputs: tuple[str, ...]
    options: tuple[str, ...]
    prepare: Callable[..., Kernel]
    description: str
    kinds: tuple[ArgSpec, ...] = ()
    bounds: tuple[float, float] = (-np.inf, np.inf)
    higher_is_better: bool | None = True
    pointwise: bool = False
    proportion: tuple[str, str] | None = None
    regression: bool = False


def _conf(name: str) -> Callable[..., Kernel]:
    return partial(prepare_confusion, name)


_CONF_OPTIONS = {
    "accuracy": (),
    "error_rate": (),
    "balanced_accuracy": ("adjusted",),
    "mcc": (),
    "cohen_kappa": ("weights",),
    "f1": ("pos_label", "average"),
    "fbeta": ("pos_label", "average", "beta"),
}
_CONF_DESCRIPTIONS = {
    "accuracy": "share of correct decisions (multilabel: every label right)",
    "error_rate": "share of wrong decisions (1 - accuracy)",
    "balanced_accuracy": "mean recall over the classes (adjusted=True: chance is 0)",
    "mcc": "Matthews correlation coefficient (multiclass form)",
    "cohen_kappa": "Cohen's kappa (weights: None, 'linear', 'quadratic')",
    "precision": "TP / (TP + FP)",
    "recall": "TP / (TP + FN), a.k.a. tpr, sensitivity",
    "tpr": "alias of recall",
    "sensitivity": "alias of recall",
    "specificity": "TN / (TN + FP), a.k.a. tnr",
    "tnr": "alias of specificity",
    "fpr": "FP / (FP + TN)",
    "fnr": "FN / (FN + TP)",
    "npv": "TN / (TN + FN)",
    "fdr": "FP / (FP + TP)",
    "f1": "harmonic mean of precision and recall",
    "fbeta": "F-beta score (option beta)",
}

_LABELS = ArgSpec("labels")
_LABEL_SETS = ArgSpec("labels", (1, 2))  # 2-d: multilabel indicator matrices
_NUMBERS = ArgSpec("numbers")
_SCORES = ArgSpec("numbers", (1, 2))  # 2-d refused by the kernel, with a hint
_PROBS = ArgSpec("numbers", (1, 2))
_UNIT = (0.0, 1.0)
_POSITIVE = (0.0, np.inf)

_MULTILABEL = ("accuracy", "error_rate", "f1", "fbeta", *RATE_METRICS)
_RANKING_OPTIONS = ("pos_label", "average", "multi_class", "labels")

METRICS: dict[str, MetricInfo] = {}
for _name in CONFUSION_METRICS:
    METRICS[_name] = MetricInfo(
        _name,
        ("y_true", "y_pred"),
        _CONF_OPTIONS.get(_name, ("pos_label", "average")),
        _conf(_name),
        _CONF_DESCRIPTIONS[_name],
        (_LABEL_SETS, _LABEL_SETS) if _name in _MULTILABEL else (_LABELS, _LABELS),
        (-1.0, 1.0) if _name in ("mcc", "cohen_kappa") else _UNIT,
    )
METRICS.update(
    {
        "roc_auc": MetricInfo(
            "roc_auc",
            ("y_true", "y_score"),
            _RANKING_OPTIONS,
            partial(prepare_ranking, RocAucKernel, "roc_auc"),
            "area under the ROC curve (ties count one half; multiclass: multi_class='ovr' "
            "or 'ovo'; multilabel)",
            (_LABEL_SETS, _SCORES),
            _UNIT,
        ),
        "average_precision": MetricInfo(
            "average_precision",
            ("y_true", "y_score"),
            _RANKING_OPTIONS,
            partial(prepare_ranking, AveragePrecisionKernel, "average_precision"),
            "area under the precision-recall curve, step-wise (scikit-learn's definition; "
            "per class for multiclass and multilabel)",
            (_LABEL_SETS, _SCORES),
            _UNIT,
        ),
        "top_k_accuracy": MetricInfo(
            "top_k_accuracy",
            ("y_true", "y_score"),
            ("k", "labels"),
            top_k_accuracy_kernel,
            "share of samples whose true class is among the k highest scores (option k=2)",
            (_LABELS, _PROBS),
            _UNIT,
        ),
        "log_loss": MetricInfo(
            "log_loss",
            ("y_true", "y_score"),
            ("pos_label", "labels"),
            log_loss_kernel,
            "mean negative log-likelihood of the true class (probabilities)",
            (_LABELS, _PROBS),
            _POSITIVE,
        ),
        "brier": MetricInfo(
            "brier",
            ("y_true", "y_score"),
            ("pos_label", "labels"),
            brier_kernel,
            "mean squared error of the predicted probabilities",
            (_LABELS, _PROBS),
            _UNIT,
        ),
        "mean": MetricInfo(
            "mean",
            ("values",),
            (),
            mean_kernel,
            "mean of per-sample values (loss, WER, 0/1 correctness)",
            (_NUMBERS,),
        ),
        "weighted_mean": MetricInfo(
            "weighted_mean",
            ("weights", "values"),
            (),
            weighted_mean_kernel,
            "sum(weight*value)/sum(weight), e.g. WER weighted by word counts",
            (_NUMBERS, _NUMBERS),
        ),
        "mae": MetricInfo(
            "mae",
            ("y_true", "y_pred"),
            (),
            mae_kernel,
            "mean absolute error",
            (_NUMBERS, _NUMBERS),
            _POSITIVE,
        ),
        "mse": MetricInfo(
            "mse",
            ("y_true", "y_pred"),
            (),
            mse_kernel,
            "mean squared error",
            (_NUMBERS, _NUMBERS),
            _POSITIVE,
        ),
        "rmse": MetricInfo(
            "rmse",
            ("y_true", "y_pred"),
            (),
            partial(mse_kernel, root=True),
            "root mean squared error",
            (_NUMBERS, _NUMBERS),
            _POSITIVE,
        ),
        "r2": MetricInfo(
            "r2",
            ("y_true", "y_pred"),
            (),
            r2_kernel,
            "coefficient of determination",
            (_NUMBERS, _NUMBERS),
            (-np.inf, 1.0),
        ),
    }
)

# corpus-level MT metrics over per-segment sacreBLEU statistics (mlci.mt makes them)
_STATS = ArgSpec("numbers", (2,))
METRICS.update(
    {
        "bleu": MetricInfo(
            "bleu",
            ("stats",),
            ("max_ngram_order", "smooth_method", "smooth_value", "effective_order"),
            bleu_kernel,
            "corpus BLEU (0-100) from per-segment sacreBLEU statistics (mlci.mt)",
            (_STATS,),
            (0.0, 100.0),
        ),
        "chrf": MetricInfo(
            "chrf",
            ("stats",),
            ("beta", "eps_smoothing"),
            chrf_kernel,
            "corpus chrF (0-100) from per-segment sacreBLEU statistics (mlci.mt)",
            (_STATS,),
            (0.0, 100.0),
        ),
        "wer": MetricInfo(
            "wer",
            ("words", "errors"),
            (),
            wer_kernel,
            "corpus WER: sum(errors) / sum(reference words), per-utterance counts",
            (_NUMBERS, _NUMBERS),
            _POSITIVE,
        ),
    }
)


# calibration, correlation and agreement (docs/calibration.md, docs/correlations.md,
# docs/agreement.md)
_BINNED = ("n_bins", "strategy", "mode", "pos_label", "labels")
_CALIBRATION = {
    "ece": "expected calibration error, sum over bins of n_b/n |mean y - mean p|, debiased "
    "as Kumar et al. 2019 (options n_bins=15, strategy='uniform'|'quantile', "
    "mode='positive'|'top_label'|'classwise', debias=True; False: the plug-in)",
    "ece_debiased": "Kumar et al. (2019) debiased l2 calibration error (same options as ece)",
    "mce": "maximum calibration error over the non-empty bins (same options as ece)",
}
for _name, _text in _CALIBRATION.items():
    METRICS[_name] = MetricInfo(
        _name,
        ("y_true", "y_score"),
        (*_BINNED, "debias") if _name == "ece" else _BINNED,
        partial(calibration_error_kernel, _name),
        _text,
        (_LABELS, _PROBS),
        _UNIT,
    )
for _part, _text in (
    ("slope", "slope b of the logistic recalibration logit P(y) = a + b logit(p) (1: calibrated)"),
    (
        "intercept",
        "intercept a of logit P(y) = a + logit(p), calibration-in-the-large (0: calibrated)",
    ),
):
    METRICS[f"calibration_{_part}"] = MetricInfo(
        f"calibration_{_part}",
        ("y_true", "y_score"),
        ("pos_label",),
        partial(recalibration_kernel, _part),
        _text,
        (_LABELS, _NUMBERS),
    )
for _part, _text in (
    ("reliability", "Murphy's reliability term of the Brier score (binned forecasts)"),
    ("resolution", "Murphy's resolution term of the Brier score (binned forecasts)"),
    ("uncertainty", "Murphy's uncertainty term of the Brier score, mean y (1 - mean y)"),
):
    _text += ", debiased as Ferro & Fricker 2012"
    METRICS[f"brier_{_part}"] = MetricInfo(
        f"brier_{_part}",
        ("y_true", "y_score"),
        ("n_bins", "strategy", "pos_label", "debias"),
        partial(brier_decomposition_kernel, _part),
        _text + " (options n_bins=10, strategy='uniform'|'quantile'|'unique', debias=True; "
        "False: the plug-in)",
        (_LABELS, _NUMBERS),
        _UNIT,
    )
for _name, _text in (
    ("pearson", "Pearson's correlation (e.g. metric scores against human scores)"),
    ("spearman", "Spearman's rank correlation (mid-ranks, as scipy)"),
    ("kendall_tau", "Kendall's tau-b (as scipy.stats.kendalltau)"),
):
    METRICS[_name] = MetricInfo(
        _name,
        ("y_true", "y_pred"),
        (),
        partial(correlation_kernel, _name),
        _text,
        (_NUMBERS, _NUMBERS),
        (-1.0, 1.0),
    )
_RATINGS = ArgSpec("any", (2,))
METRICS["fleiss_kappa"] = MetricInfo(
    "fleiss_kappa",
    ("ratings",),
    (),
    partial(agreement_kernel, "fleiss_kappa"),
    "Fleiss' kappa of an (n_items, n_raters) matrix of categories (items are the samples)",
    (_RATINGS,),
    (-1.0, 1.0),
)
METRICS["krippendorff_alpha"] = MetricInfo(
    "krippendorff_alpha",
    ("ratings",),
    ("level_of_measurement",),
    partial(agreement_kernel, "krippendorff_alpha"),
    "Krippendorff's alpha of an (n_items, n_raters) matrix (level_of_measurement="
    "'nominal'|'ordinal'|'interval'|'ratio'; missing ratings: mlci.agreement_ci)",
    (_RATINGS,),
    (-np.inf, 1.0),
)


# every registered metric's direction and facts (MetricInfo), after all registrations
#: the numerator and denominator counts of every rate, by the rate it is (RATE_METRICS)
_PROPORTIONS = {
    "recall": ("tp", "p"),
    "specificity": ("tn", "n"),
    "fpr": ("fp", "n"),
    "fnr": ("fn", "p"),
    "precision": ("tp", "pp"),
    "fdr": ("fp", "pp"),
    "npv": ("tn", "pn"),
}
_LOWER_IS_BETTER = (
    "error_rate",
    "fpr",
    "fnr",
    "fdr",
    "log_loss",
    "brier",
    "mae",
    "mse",
    "rmse",
    "wer",
    "ece",
    "ece_debiased",
    "mce",
    "brier_reliability",
)
#: no better direction: a plain mean, a calibration coefficient (1 and 0 are calibrated),
#: the outcome's own uncertainty
_NO_DIRECTION = (
    "mean",
    "weighted_mean",
    "calibration_slope",
    "calibration_intercept",
    "brier_uncertainty",
)
_POINTWISE = ("accuracy", "error_rate", "mse", "mae", "log_loss", "brier")
_REGRESSION = ("mse", "mae", "rmse", "r2")
for _name, _info in METRICS.items():
    METRICS[_name] = dataclasses.replace(
        _info,
        higher_is_better=None if _name in _NO_DIRECTION else _name not in _LOWER_IS_BETTER,
        pointwise=_name in _POINTWISE,
        proportion=_PROPORTIONS.get(RATE_METRICS.get(_name, "")),
        regression=_name in _REGRESSION,
    )

#: other spellings of registered metrics in score analysis (verification's tar/far...)
METRIC_ALIASES = {
    "ppv": "precision",
    "tar": "tpr",
    "frr": "fnr",
    "trr": "tnr",
    "far": "fpr",
    "class_accuracy": "accuracy",
    "auc": "roc_auc",
}


#: statistics of scores that are not registered metrics (score analysis, verification),
#: and whether a larger value is better
SCORE_STATISTICS: dict[str, bool | None] = {"eer": False, "eer_threshold": None}


def higher_is_better(name: str) -> bool | None:
    """Whether a larger value of the metric ``name`` (or of an alias, or of a statistic of
    :data:`SCORE_STATISTICS`) is better; None for a metric without a direction or an
    unknown name.

    Examples
    --------
    >>> higher_is_better("tar"), higher_is_better("eer"), higher_is_better("mean")
    (True, False, None)
    """
    name = METRIC_ALIASES.get(name, name)
    info = METRICS.get(name)
    return SCORE_STATISTICS.get(name) if info is None else info.higher_is_better


def list_metrics() -> list[str]:
    """Names of the built-in metrics.

    Examples
    --------
    >>> "roc_auc" in list_metrics()
    True
    """
    return sorted(METRICS)


def weight_argument(metric: str) -> str:
    """Which argument a per-sample weight column feeds for ``metric`` (the CLI's
    ``--weight``): ``"weights"``, the first input of ``weighted_mean``; else
    ``"sample_weight"`` (scikit-learn's per-sample weights, which every built-in takes).

    Examples
    --------
    >>> weight_argument("weighted_mean"), weight_argument("roc_auc")
    ('weights', 'sample_weight')
    """
    return "weights" if "weights" in _resolve(metric).inputs else "sample_weight"


def close_metric_names(name: str) -> list[str]:
    """The built-in names closest to a misspelt ``name`` (those about as close as the
    closest one), for "did you mean" hints.

    Examples
    --------
    >>> close_metric_names("acuracy")
    ['accuracy']
    """
    key = name.lower().replace("-", "_")
    close = difflib.get_close_matches(key, METRICS, n=3)
    if not close:
        return []
    sim = [difflib.SequenceMatcher(None, key, c).ratio() for c in close]
    return [c for c, r in zip(close, sim, strict=True) if r >= 0.9 * max(sim)]


def _resolve(name: str) -> MetricInfo:
    key = name.lower().replace("-", "_")
    if key not in METRICS:
        close = close_metric_names(key)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise ValueError(
            f"Unknown metric {name!r}.{hint} Built-in metrics: {', '.join(sorted(METRICS))}; "
            "or pass a callable `metric(y_true, y_pred, ...)`."
        )
    return METRICS[key]


def metric_info(metric: str) -> MetricInfo:
    """The registry entry of a built-in metric name (case and ``-``/``_`` insensitive)."""
    return _resolve(metric)


def metric_params(metric: Any, pos_label: Any, average: Any, metric_kwargs: Any) -> dict[str, Any]:
    """The keyword options of ``metric``: ``pos_label``/``average`` for built-ins, plus
    ``metric_kwargs`` (the one way every driver passes metric options).

    Examples
    --------
    >>> metric_params("f1", 1, "default", {"beta": 2})
    {'beta': 2, 'pos_label': 1}
    """
    if metric_kwargs is not None and not isinstance(metric_kwargs, Mapping):
        raise TypeError(
            f"`metric_kwargs` must be a dict of the metric's options; got "
            f"{type(metric_kwargs).__name__}."
        )
    params = dict(metric_kwargs or {})
    if callable(metric):
        if pos_label is not None or average != "default":
            raise ValueError(
                "`pos_label` and `average` are options of the built-in metrics; pass options "
                "of your own function in `metric_kwargs`."
            )
        return params
    if pos_label is not None:
        params["pos_label"] = pos_label
    if average != "default":
        params["average"] = average
    return params


def get_kernel(
    metric: str | Callable[..., Any],
    data: Sequence[Any],
    params: dict[str, Any],
    names: Sequence[str] | None = None,
    sample_weight: Any = None,
) -> Kernel:
    """Bind a metric (a registered name or a callable) to the data arrays.

    The arrays go through the input gate (:func:`mlci.inputs.gather`) with the kinds the
    metric declares, so a kernel only ever sees arrays of one native type with no
    missing value; callers that drop missing values do it before, jointly with their
    other per-sample arguments.

    Parameters
    ----------
    metric : str or callable
    data : sequence of array-likes
        The per-sample arrays, in the order the metric takes them.
    params : dict
        Metric options (``pos_label``, ``average``, ``beta``, ... for built-ins; passed as
        keyword arguments to a callable).
    names : sequence of str, optional
        How the arrays are named in error messages (default: the metric's input names,
        e.g. ``y_true``, ``y_pred``).
    sample_weight : array-like of shape (n_samples,), optional
        Per-sample weights, as scikit-learn's ``sample_weight``: non-negative, not all
        zero.  A bootstrap replicate's counts are multiplied by them (on atoms: the data
        is never copied).  A callable metric must then accept ``sample_weight``.

    Examples
    --------
    >>> k = get_kernel("accuracy", ([0, 1, 1], [0, 1, 0]), {})
    >>> float(k.evaluate(np.bincount(k.keys, minlength=k.m)[None, :].astype(float))[0])
    0.6666666666666666
    >>> k = get_kernel("accuracy", ([0, 1, 1], [0, 1, 0]), {}, sample_weight=[1, 1, 2])
    >>> float(k.evaluate(np.bincount(k.keys, minlength=k.m)[None, :].astype(float))[0])
    0.5
    """
    kernel = _bind(metric, data, params, names)
    if sample_weight is None:
        return kernel
    s = column("sample_weight", sample_weight, "numbers")
    s = check_sample_weight(s, len(kernel.keys))
    if isinstance(kernel, FunctionKernel) and not kernel.weighted:
        raise TypeError(
            f"`sample_weight` was given but the metric function {kernel.name!r} takes no "
            "`sample_weight` argument; add one (as scikit-learn's metrics have) or drop the "
            "weights."
        )
    return with_sample_weight(kernel, s)


def _bind(
    metric: str | Callable[..., Any],
    data: Sequence[Any],
    params: dict[str, Any],
    names: Sequence[str] | None,
) -> Kernel:
    """:func:`get_kernel` without weights."""
    if callable(metric):
        data = list(data)
        if not data:
            raise ValueError("At least one per-sample array is needed.")
        labels = list(names) if names is not None else [f"data[{i}]" for i in range(len(data))]
        specs = {nm: ArgSpec("any", (1, 2, 3)) for nm in labels}
        g = gather(specs, dict(zip(labels, data, strict=True)))
        return FunctionKernel(metric, list(g.arrays.values()), params)
    if not isinstance(metric, str):
        raise TypeError(
            f"`metric` must be a metric name (str) or a callable; got {type(metric).__name__}."
        )
    info = _resolve(metric)
    if len(data) != len(info.inputs):
        raise ValueError(
            f"Metric {info.name!r} takes {len(info.inputs)} per-sample array(s) "
            f"({', '.join(info.inputs)}); got {len(data)}."
        )
    given = dict(params)
    unknown = set(given) - set(info.options)
    if unknown:
        opts = ", ".join(info.options) if info.options else "none"
        raise ValueError(
            f"Option(s) {', '.join(f'`{u}`' for u in sorted(unknown))} do not apply to metric "
            f"{info.name!r} "
            f"(its options: {opts})."
        )
    labels = list(names) if names is not None else list(info.inputs)
    g = gather(dict(zip(labels, info.kinds, strict=True)), dict(zip(labels, data, strict=True)))
    kernel = info.prepare(*g.arrays.values(), **given)
    if "bounds" not in vars(kernel):  # a kernel may narrow or widen it for its data
        kernel.bounds = info.bounds
    return kernel


def _accepts_sample_weight(fn: Callable[..., Any]) -> bool:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    return "sample_weight" in sig.parameters


class FunctionKernel(Kernel):
    """Any user function ``metric(*data)``, called as the seed toolkit calls it.

    When the function accepts ``sample_weight`` (as scikit-learn's metrics do), each
    replicate is one call on the drawn samples with their counts as weights; otherwise
    the drawn samples are repeated by index.  Replicates on which the function raises a
    ``ValueError``/``ZeroDivisionError`` or returns NaN are counted as invalid.
    """

    work_factor = 2.0

    def __init__(self, fn: Callable[..., Any], data: Sequence[Any], params: dict[str, Any]) -> None:
        # the arrays come from the input gate (see get_kernel): aligned, no missing value
        arrays = [np.asarray(a) for a in data]
        self.fn = fn
        self.params = {k: v for k, v in params.items() if v is not None}
        self.arrays = arrays
        self.n = len(arrays[0])
        self.keys = np.arange(self.n, dtype=np.intp)
        self.m = self.n
        self.name = getattr(fn, "__name__", type(fn).__name__)
        self.weighted = _accepts_sample_weight(fn)
        self.errors: list[str] = []
        value = self._call(np.ones(self.n), strict=True)
        self.shape = value.shape

    def _call(self, w: np.ndarray, strict: bool = False) -> np.ndarray:
        if self.weighted:
            nz = np.flatnonzero(w)
            args = [a[nz] for a in self.arrays]
            kwargs = {**self.params, "sample_weight": w[nz]}
        else:
            idx = np.repeat(np.arange(self.n), np.asarray(np.rint(w), dtype=np.intp))
            args = [a[idx] for a in self.arrays]
            kwargs = self.params
        if strict:
            out = self.fn(*args, **kwargs)
        else:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out = self.fn(*args, **kwargs)
            except (ValueError, ZeroDivisionError, FloatingPointError) as exc:
                if len(self.errors) < 3:
                    self.errors.append(f"{type(exc).__name__}: {exc}")
                return np.full(getattr(self, "shape", ()), np.nan)
        try:
            return np.asarray(out, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(
                f"The metric function {self.name!r} must return a number or an array of "
                f"numbers; it returned {type(out).__name__}."
            ) from None

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        out = np.empty((w.shape[0], *self.shape))
        for r in range(w.shape[0]):
            val = self._call(w[r])
            if val.shape != self.shape:
                raise ValueError(
                    f"The metric function {self.name!r} returned shape {val.shape} on a "
                    f"replicate but {self.shape} on the data; its output shape must not depend "
                    "on the resample."
                )
            out[r] = val
        return out
