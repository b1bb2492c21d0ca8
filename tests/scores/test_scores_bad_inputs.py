"""Bad inputs to every public function of mlci.scores: refused by mlci with a message that
names the argument (never a numpy/pandas traceback, never a silent result), or dropped
with ``dropna=True`` and counted in ``details["n_dropped"]``.

Three matrices: the bootstrap options of every driver, the per-sample design arrays
(``conditions``, ``strata``) of every driver that takes them, and the per-sample data of
every constructor or function that takes arrays.  ``DRIVERS`` and ``DATA_FUNCTIONS`` must
list every public function of the area (checked by ``test_every_public_function_listed``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import mlci
import mlci.scores.auc as auc_mod
import mlci.scores.confusion as confusion_mod
import mlci.scores.curves as curves_mod
import mlci.scores.groups as groups_mod
import mlci.scores.operating_point as op_mod
import mlci.scores.scores as scores_mod
import mlci.scores.trials as trials_mod
import mlci.scores.verification as verification_mod
from mlci import ConfusionMatrix, Scores, pointwise_cm
from mlci.scores.curves import (
    auc_ci,
    det_curve,
    operating_point_ci,
    partial_auc,
    pr_curve,
    roc_band,
    roc_curve,
    roc_with_ci,
)
from mlci.scores.groups import metric_by_group
from mlci.scores.trials import EerKernel, trial_bootstrap_ci, trial_weights
from mlci.scores.verification import (
    cllr,
    cllr_ci,
    dcf_ci,
    detection_cost,
    eer_ci,
    min_cllr,
    min_detection_cost,
)

# few replicates keep these checks fast (20 at 95%, 199 at 99%: under one replicate
# expected beyond a bound); FewResamplesWarning is tested in tests/engine/test_guards.py
pytestmark = pytest.mark.filterwarnings("ignore::mlci.FewResamplesWarning")

N = 144
_rng = np.random.default_rng(0)
Y = np.r_[np.ones(N // 2, int), np.zeros(N // 2, int)]
X = Y + _rng.normal(0, 1, N)
# 24 speakers (at least 20 conditions, so that no FewConditionsWarning is due), 3
# sessions each
SPK = np.tile(np.arange(24), N // 24)
SES = np.repeat(np.arange(N // 24), 24) % 3
SC = Scores.from_labels(Y, X)
CMX = ConfusionMatrix(Y, (X > 0.5).astype(int))
FRAME = pd.DataFrame({"y": Y, "s": X, "g": np.tile(["a", "b"], N // 2), "spk": SPK})

# trials: 40 recordings of 20 speakers
_T_SPK = np.repeat(np.arange(20), 2)
_T_IDS = np.array([f"r{i}" for i in range(40)])
_E, _T = np.triu_indices(40, k=1)
T_LAB = _T_SPK[_E] == _T_SPK[_T]
T_SC = _rng.normal(2.0 * T_LAB, 1.0)
T_SPK_OF = dict(zip(_T_IDS, _T_SPK, strict=True))
T_E, T_T = _T_IDS[_E], _T_IDS[_T]

FAST = {"n_resamples": 20, "rng": 0, "method": "percentile"}


def _drivers() -> dict[str, object]:
    """Every bootstrap driver of the area, as ``f(**options)``."""
    return {
        "Scores.bootstrap_ci": lambda **kw: SC.bootstrap_ci("fnr", threshold=0.5, **kw),
        "eer_ci": lambda **kw: eer_ci(SC, **kw),
        "dcf_ci": lambda **kw: dcf_ci(SC, 0.1, **kw),
        "cllr_ci": lambda **kw: cllr_ci(SC, **kw),
        "auc_ci": lambda **kw: auc_ci(SC, **kw),
        "roc_band": lambda **kw: roc_band(SC, [0.1, 0.5], **kw),
        "roc_with_ci": lambda **kw: roc_with_ci(SC, fnr=[0.1, 0.5], **kw),
        "operating_point_ci": lambda **kw: operating_point_ci(SC, at=0.2, **kw),
        "ConfusionMatrix.bootstrap_ci": lambda **kw: CMX.bootstrap_ci("accuracy", **kw),
        "metric_by_group": lambda **kw: metric_by_group(
            "y", "s", groups="g", data=FRAME, threshold=0.5, **kw
        ).to_frame(),
        "trial_bootstrap_ci": lambda **kw: trial_bootstrap_ci(
            T_LAB, T_SC, enroll_ids=T_E, test_ids=T_T, speaker_of=T_SPK_OF, **kw
        ),
    }


DRIVERS = _drivers()
#: drivers that take per-sample ``conditions=`` and ``strata=`` (the joint bootstrap of
#: trials draws speakers from ``speaker_of`` instead)
DESIGN_DRIVERS = [k for k in DRIVERS if k != "trial_bootstrap_ci"]

BAD_OPTIONS = [
    ({"confidence_level": 95}, "confidence_level", ValueError),
    ({"confidence_level": 1.5}, "confidence_level", ValueError),
    ({"confidence_level": 0.0}, "confidence_level", ValueError),
    ({"confidence_level": "0.95"}, "confidence_level", TypeError),
    ({"alternative": "one-sided"}, "alternative", ValueError),
    ({"method": "student"}, "method", ValueError),
    ({"n_resamples": 0}, "n_resamples", ValueError),
    ({"n_resamples": 10.5}, "n_resamples", TypeError),
    ({"rng": "seed"}, "rng", TypeError),
    ({"rng": -1}, "rng", ValueError),
    ({"dropna": "yes"}, "dropna", TypeError),
]


def _name_of(result) -> str:
    return type(result).__name__


@pytest.mark.parametrize("driver", list(DRIVERS))
def test_driver_runs_with_valid_options(driver):
    res = DRIVERS[driver](confidence_level=0.95, alternative="two-sided", **FAST)
    assert _name_of(res) in ("BootstrapResult", "EERResult", "CurveBand", "tuple", "DataFrame")


@pytest.mark.parametrize("driver", list(DRIVERS))
@pytest.mark.parametrize("bad,name,exc", BAD_OPTIONS, ids=[f"{b}" for b, _, _ in BAD_OPTIONS])
def test_driver_refuses_bad_options(driver, bad, name, exc):
    kw = {**FAST, **bad}
    with pytest.raises(exc, match=f"`{name}`"):
        DRIVERS[driver](**kw)


@pytest.mark.parametrize("driver", list(DRIVERS))
@pytest.mark.parametrize("alternative", ["less", "greater"])
def test_driver_one_sided_intervals_end_at_the_range(driver, alternative):
    if driver in ("roc_band", "roc_with_ci"):
        pytest.skip("a band's pointwise intervals: checked in test_curves")
    res = DRIVERS[driver](alternative=alternative, **FAST)
    if isinstance(res, pd.DataFrame):
        edge = res.low if alternative == "less" else res.high
        assert np.all(edge == (0.0 if alternative == "less" else 1.0))
        return
    first = res.eer if hasattr(res, "eer") else res[0] if isinstance(res, tuple) else res
    assert first.alternative == alternative
    low, high = first.confidence_interval
    if alternative == "less":
        assert np.all(np.asarray(low) == first_bound(first, 0))
    else:
        assert np.all(np.asarray(high) == first_bound(first, 1))


def first_bound(res, i):
    # the range of the statistics of the drivers above
    if res.metric in ("min_dcf", "actual_dcf", "cllr"):
        return (0.0, np.inf)[i]
    return (0.0, 1.0)[i]


def _na_series(kind: str, base: np.ndarray) -> object:
    """``base`` with its first two entries missing, in one of the ways data arrive."""
    if kind == "nan":
        out = base.astype(float)
        out[:2] = np.nan
        return out
    if kind == "none-object":
        out = base.astype(object)
        out[:2] = None
        return out
    if kind == "nan-object":
        out = base.astype(str).astype(object)
        out[:2] = np.nan
        return out
    if kind == "pd.NA":
        return pd.Series(base.astype(str), dtype="string").mask(np.arange(len(base)) < 2)
    if kind == "pandas-object-None":
        s = pd.Series(base.astype(str), dtype=object)
        s[:2] = None
        return s
    if kind == "polars-null":
        return pl.Series([None, None, *base[2:].astype(str).tolist()])
    raise AssertionError(kind)


NA_KINDS = ["nan", "none-object", "nan-object", "pd.NA", "pandas-object-None", "polars-null"]


@pytest.mark.parametrize("driver", DESIGN_DRIVERS)
@pytest.mark.parametrize("kind", NA_KINDS)
@pytest.mark.parametrize("arg", ["conditions", "strata"])
def test_missing_design_values_refused_or_dropped(driver, kind, arg):
    values = _na_series(kind, SPK if arg == "conditions" else SES)
    with pytest.raises(ValueError, match=f"`{arg}` has 2 missing value"):
        DRIVERS[driver](**{arg: values}, **FAST)
    res = DRIVERS[driver](**{arg: values}, dropna=True, **FAST)
    if isinstance(res, pd.DataFrame):
        assert res.attrs["n_dropped"] == 2
        return
    first = res.eer if hasattr(res, "eer") else res.result if hasattr(res, "result") else res
    first = first[0] if isinstance(first, tuple) else first
    assert first.details["n_dropped"] == 2
    assert first.n_samples == N - 2


@pytest.mark.parametrize("driver", DESIGN_DRIVERS)
def test_design_arrays_wrong_length_refused(driver):
    with pytest.raises(ValueError, match="`conditions`"):
        DRIVERS[driver](conditions=SPK[:-1], **FAST)
    with pytest.raises(ValueError, match="`strata`"):
        DRIVERS[driver](strata=SES[:-3], **FAST)
    with pytest.raises(ValueError, match="`conditions`"):
        DRIVERS[driver](conditions=[], **FAST)


@pytest.mark.parametrize("driver", DESIGN_DRIVERS)
def test_nested_conditions_work_and_refuse_missing_levels(driver):
    res = DRIVERS[driver](conditions=[SPK, SES], **FAST)
    if not isinstance(res, pd.DataFrame):
        first = res.eer if hasattr(res, "eer") else res.result if hasattr(res, "result") else res
        first = first[0] if isinstance(first, tuple) else first
        assert first.scheme == "nested(2 levels; resampled: 1)"
        assert first.n_conditions == 24
    bad = SES.astype(object)
    bad[7] = None
    with pytest.raises(ValueError, match=r"`conditions\[1\]` has 1 missing value"):
        DRIVERS[driver](conditions=[SPK, bad], **FAST)
    with pytest.raises(ValueError, match="`stratify=True`"):
        DRIVERS[driver](conditions=[SPK, SES], **_design(driver, stratify=True), **FAST)


@pytest.mark.parametrize("driver", DESIGN_DRIVERS)
def test_design_flags_and_choices(driver):
    # the fields themselves are checked by mlci.Resampling (tests/inputs/test_resampling_design.py)
    with pytest.raises(TypeError, match=r"`resampling` must be a mlci\.Resampling"):
        DRIVERS[driver](resampling={"stratify": True}, **FAST)
    with pytest.raises(ValueError, match="`two_stage=True` needs `conditions`"):
        DRIVERS[driver](**_design(driver, two_stage=True), **FAST)


def _design(driver, **fields):
    """The resampling details of ``driver``'s call: a Resampling (every design driver
    takes one)."""
    return {"resampling": mlci.Resampling(**fields)}


# ----------------------------------------------------------------------------- data
def _data_functions() -> dict[str, tuple[object, dict[str, object]]]:
    """Every function that takes per-sample arrays: ``(f(**arrays), arrays)``, by kind."""
    return {
        "Scores": (
            lambda pos, neg, **kw: Scores(pos, neg, **kw),
            {"pos": X[Y == 1], "neg": X[Y == 0]},
        ),
        "Scores.from_labels": (
            lambda y_true, y_score, **kw: Scores.from_labels(y_true, y_score, **kw),
            {"y_true": Y, "y_score": X},
        ),
        "ConfusionMatrix": (
            lambda y_true, y_pred, **kw: ConfusionMatrix(y_true, y_pred, **kw),
            {"y_true": Y, "y_pred": (X > 0.5).astype(int)},
        ),
        "pointwise_cm": (
            lambda y_true, y_score, **kw: pointwise_cm(y_true, y_score, 0.5, **kw),
            {"y_true": Y, "y_score": X},
        ),
        "metric_by_group": (
            lambda y_true, y_score, groups, **kw: metric_by_group(
                y_true, y_score, groups=groups, threshold=0.5, **kw, **FAST
            ).to_frame(),
            {"y_true": Y, "y_score": X, "groups": FRAME.g.to_numpy()},
        ),
        "trial_bootstrap_ci": (
            lambda y_true, y_score, enroll_ids, test_ids, **kw: trial_bootstrap_ci(
                y_true,
                y_score,
                enroll_ids=enroll_ids,
                test_ids=test_ids,
                speaker_of=T_SPK_OF,
                **kw,
                **FAST,
            ),
            {"y_true": T_LAB.astype(int), "y_score": T_SC, "enroll_ids": T_E, "test_ids": T_T},
        ),
        "EerKernel": (
            lambda y_true, y_score, **kw: EerKernel(y_true, y_score, **kw),
            {"y_true": Y, "y_score": X},
        ),
        "trial_weights": (
            lambda enroll_ids, test_ids, **kw: trial_weights(
                enroll_ids, test_ids, speaker_of=T_SPK_OF, n_resamples=3, rng=0, **kw
            ),
            {"enroll_ids": T_E, "test_ids": T_T},
        ),
    }


DATA_FUNCTIONS = _data_functions()
_DATA_ARGS = [(f, a) for f, (_, arrays) in DATA_FUNCTIONS.items() for a in arrays]
#: functions that take ``dropna``
_DROPNA = {
    "Scores",
    "Scores.from_labels",
    "ConfusionMatrix",
    "metric_by_group",
    "trial_bootstrap_ci",
}


def _with_missing(value: np.ndarray, kind: str) -> object:
    """``value`` (numbers or strings) with entries 1 and 3 missing."""
    if kind == "nan":
        out = value.astype(float) if value.dtype.kind in "biuf" else value.astype(object)
        out[[1, 3]] = np.nan
        return out
    if kind == "None":
        out = value.astype(object)
        out[[1, 3]] = None
        return out
    if kind == "pd.NA":
        dtype = (
            "Float64"
            if value.dtype.kind == "f"
            else "Int64"
            if value.dtype.kind in "biu"
            else "string"
        )
        s = pd.Series(value, dtype=dtype)
        s[[1, 3]] = pd.NA
        return s
    if kind == "polars-null":
        vals = value.tolist()
        vals[1] = vals[3] = None
        return pl.Series(vals)
    raise AssertionError(kind)


@pytest.mark.parametrize("func,arg", _DATA_ARGS)
@pytest.mark.parametrize("kind", ["nan", "None", "pd.NA", "polars-null"])
def test_missing_data_named_or_dropped(func, arg, kind):
    f, arrays = DATA_FUNCTIONS[func]
    bad = {**arrays, arg: _with_missing(np.asarray(arrays[arg]), kind)}
    with pytest.raises(ValueError, match=f"`{arg}` has 2 missing value"):
        f(**bad)
    if func not in _DROPNA:
        return
    res = f(**bad, dropna=True)
    if isinstance(res, pd.DataFrame):
        assert res.attrs["n_dropped"] == 2
    elif isinstance(res, Scores | ConfusionMatrix):
        assert res.n_dropped == 2
    else:
        assert res.details["n_dropped"] == 2


@pytest.mark.parametrize("func,arg", _DATA_ARGS)
def test_mismatched_lengths_named(func, arg):
    f, arrays = DATA_FUNCTIONS[func]
    if func == "Scores":
        pytest.skip("pos and neg have their own lengths")
    bad = {**arrays, arg: np.asarray(arrays[arg])[:-1]}
    with pytest.raises(ValueError, match="one entry per sample") as info:
        f(**bad)
    assert f"`{arg}` has {len(arrays[arg]) - 1}" in str(info.value)


@pytest.mark.parametrize("func,arg", _DATA_ARGS)
def test_empty_scalar_and_2d_named(func, arg):
    f, arrays = DATA_FUNCTIONS[func]
    with pytest.raises(ValueError, match="is empty"):
        f(**{k: np.asarray(v)[:0] for k, v in arrays.items()})
    with pytest.raises(ValueError, match=f"`{arg}`"):
        f(**{**arrays, arg: np.asarray(arrays[arg])[0]})
    with pytest.raises(ValueError, match=f"`{arg}`"):
        f(**{**arrays, arg: np.asarray(arrays[arg])[:, None].repeat(2, axis=1)})


SCORE_ARGS = [(f, a) for f, a in _DATA_ARGS if a in ("pos", "neg", "y_score")]


@pytest.mark.parametrize("func,arg", SCORE_ARGS)
def test_scores_must_be_numbers(func, arg):
    f, arrays = DATA_FUNCTIONS[func]
    words = np.array(["high"] * len(arrays[arg]))
    with pytest.raises(TypeError, match=f"`{arg}` must hold numbers"):
        f(**{**arrays, arg: words})
    mixed = np.asarray(arrays[arg]).astype(object)
    mixed[0] = "0.5"
    with pytest.raises(TypeError, match=f"`{arg}`"):
        f(**{**arrays, arg: mixed})


LABEL_ARGS = [(f, a) for f, a in _DATA_ARGS if a in ("y_true", "y_pred", "enroll_ids")]


@pytest.mark.parametrize("func,arg", LABEL_ARGS)
def test_labels_of_mixed_types_refused(func, arg):
    # 0 and "1" never compare equal: a silent wrong number if accepted
    f, arrays = DATA_FUNCTIONS[func]
    mixed = np.asarray(arrays[arg]).astype(object)
    mixed[0] = 7 if isinstance(mixed[0], str) else str(mixed[0])
    with pytest.raises(TypeError, match=f"`{arg}` mixes strings and numbers"):
        f(**{**arrays, arg: mixed})


def test_one_class_refused_where_two_are_needed():
    with pytest.raises(ValueError, match="no negatives"):
        Scores.from_labels([1], [0.5])
    with pytest.raises(ValueError, match="`neg` is empty"):
        Scores([0.5], [])
    with pytest.raises(ValueError, match="Both classes are needed"):
        metric_by_group([1, 1], [0.1, 0.2], groups=["a", "b"], threshold=0.5)
    with pytest.raises(ValueError, match="target and non-target"):
        EerKernel([1, 1], [0.1, 0.2])


def test_every_public_function_listed():
    # a new public function of the area must join a matrix above
    listed = {
        *DRIVERS,
        *DATA_FUNCTIONS,
        "Scores",
        "EqualErrorRate",
        "ConfusionMatrix",
        "CM_METRICS",
        "binary_cm_metric",
        "cm_metric_bounds",
        "Curve",
        "CurveBand",
        "EERResult",
        # functions of a Scores object (no per-sample data; see test_scores_object_functions)
        "roc_curve",
        "det_curve",
        "pr_curve",
        "partial_auc",
        "detection_cost",
        "min_detection_cost",
        "cllr",
        "min_cllr",
        "invert_polyline",  # numbers in, numbers out: tested in test_scores.py
        "GroupResult",  # a result (tests/test_results.py)
        "plot_group_result",  # GroupResult.plot (test_groups.py)
    }
    public = set()
    for mod in (
        auc_mod,
        confusion_mod,
        curves_mod,
        groups_mod,
        op_mod,
        scores_mod,
        trials_mod,
        verification_mod,
    ):
        public |= set(mod.__all__)
    assert public <= listed, public - listed


SCORES_FUNCTIONS = {
    "roc_curve": lambda s, **kw: roc_curve(s, **kw),
    "det_curve": lambda s, **kw: det_curve(s, **kw),
    "pr_curve": lambda s, **kw: pr_curve(s, **kw),
    "partial_auc": lambda s, **kw: partial_auc(s, **kw),
    "detection_cost": lambda s, **kw: detection_cost(s, 0.1, **kw),
    "min_detection_cost": lambda s, **kw: min_detection_cost(s, 0.1, **kw),
    "cllr": lambda s, **kw: cllr(s, **kw),
    "min_cllr": lambda s, **kw: min_cllr(s, **kw),
    "eer_ci": lambda s, **kw: eer_ci(s, **kw),
    "cllr_ci": lambda s, **kw: cllr_ci(s, **kw),
    # auc_ci takes arrays too (its bad inputs: test_public_api, tests/inputs/test_deprecation)
    "roc_band": lambda s, **kw: roc_band(s, **kw),
    "roc_with_ci": lambda s, **kw: roc_with_ci(s, **kw),
    "operating_point_ci": lambda s, **kw: operating_point_ci(s, **kw),
}


@pytest.mark.parametrize("func", list(SCORES_FUNCTIONS))
@pytest.mark.parametrize("bad", [np.array([0.1, 0.9]), [1, 0], None, "scores"])
def test_scores_object_functions_refuse_other_types(func, bad):
    with pytest.raises(TypeError, match=r"`scores` must be an mlci\.Scores"):
        SCORES_FUNCTIONS[func](bad)


def test_scalar_options_of_score_functions():
    with pytest.raises(ValueError, match="`max_fpr`"):
        partial_auc(SC, 1.5)
    with pytest.raises(TypeError, match="`max_fpr`"):
        partial_auc(SC, "0.5")
    with pytest.raises(ValueError, match="`max_fpr`"):
        auc_ci(SC, max_fpr=0.0, **FAST)
    with pytest.raises(TypeError, match="`probit`"):
        det_curve(SC, probit="yes")
    for f in (detection_cost, min_detection_cost):
        with pytest.raises(ValueError, match="`p_target`"):
            f(SC, 1.0)
        with pytest.raises(TypeError, match="`p_target`"):
            f(SC, "0.1")
        with pytest.raises(ValueError, match="`c_miss`"):
            f(SC, 0.1, c_miss=-1)
        with pytest.raises(ValueError, match="`c_fa`"):
            f(SC, 0.1, c_fa=np.inf)
        with pytest.raises(TypeError, match="`normalize`"):
            f(SC, 0.1, normalize="yes")
    with pytest.raises(ValueError, match="`threshold`"):
        detection_cost(SC, 0.1, threshold=np.nan)
    with pytest.raises(TypeError, match="`threshold`"):
        dcf_ci(SC, 0.1, kind="actual", threshold="0", **FAST)
    with pytest.raises(ValueError, match="`kind`"):
        cllr_ci(SC, kind=1, **FAST)
    with pytest.raises(TypeError, match="`mcclish`"):
        auc_ci(SC, mcclish="yes", **FAST)
    with pytest.raises(ValueError, match="`kind`"):
        roc_band(SC, kind="horizontal", **FAST)
    with pytest.raises(ValueError, match=r"`grid` must lie in \[0, 1\]"):
        roc_band(SC, [0.1, 1.5], **FAST)
    with pytest.raises(ValueError, match="`grid` has 1 missing value"):
        roc_band(SC, [0.1, np.nan], kind="threshold", **FAST)
    with pytest.raises(ValueError, match="`alternative`"):
        roc_band(SC, simultaneous=True, alternative="less", **FAST)
    with pytest.raises(ValueError, match="`rate`"):
        operating_point_ci(SC, "fdr", **FAST)
    with pytest.raises(ValueError, match="`x`"):
        operating_point_ci(SC, x="ppv", **FAST)
    with pytest.raises(ValueError, match=r"`at` must lie in \[0, 1\]"):
        operating_point_ci(SC, at=1.2, **FAST)
    with pytest.raises(ValueError, match="`interpolation`"):
        operating_point_ci(SC, interpolation="nearest", **FAST)
    with pytest.raises(ValueError, match="`algorithm`"):
        eer_ci(SC, resampling=mlci.Resampling(algorithm="fast"), **FAST)


# ----------------------------------------------------------------------------- methods
@pytest.mark.parametrize("method", ["cm", "tpr", "fnr", "tnr", "fpr", "precision", "accuracy"])
@pytest.mark.parametrize(
    "bad,exc",
    [(np.nan, ValueError), ([0.1, np.nan], ValueError), ("0.5", TypeError), (None, TypeError)],
)
def test_scores_rate_methods_refuse_bad_thresholds(method, bad, exc):
    with pytest.raises(exc, match="`threshold`"):
        getattr(SC, method)(bad)


@pytest.mark.parametrize("rate", ["tpr", "fnr", "tnr", "fpr"])
def test_scores_threshold_methods_refuse_bad_rates(rate):
    f = getattr(SC, f"threshold_at_{rate}")
    for bad, exc in (
        (1.5, ValueError),
        (-0.1, ValueError),
        (np.nan, ValueError),
        ("0.1", TypeError),
    ):
        with pytest.raises(exc, match=f"`{rate}`"):
            f(bad)
    with pytest.raises(ValueError, match="`interpolation`"):
        f(0.1, interpolation="nearest")
    with pytest.raises(TypeError, match="method"):
        f(0.1, method="linear")  # renamed: `interpolation`


def test_scores_rate_at_and_metric_refuse_bad_options():
    with pytest.raises(ValueError, match="`rate`"):
        SC.rate_at("ppv", at=0.1)
    with pytest.raises(ValueError, match="`x`"):
        SC.rate_at("fnr", at=0.1, x="ppv")
    with pytest.raises(ValueError, match=r"`at` must lie in \[0, 1\]"):
        SC.rate_at("fnr", at=[0.1, 2.0])
    with pytest.raises(ValueError, match="`interpolation`"):
        SC.rate_at("fnr", at=0.1, interpolation="cubic")
    with pytest.raises(ValueError, match="Unknown metric 'tpx'"):
        SC.metric("tpx", 0.5)


def test_scores_bootstrap_metric_options():
    bad = [
        (dict(metric="frp", threshold=0.5), ValueError, "Unknown metric 'frp'"),
        (dict(metric="fpr"), TypeError, "pass `threshold=`"),
        (dict(metric="threshold_at_fpr"), TypeError, "needs `rate=`"),
        (dict(metric="fnr_at_fpr"), TypeError, "needs `at=`"),
        (dict(metric="eer", threshold=0.3), TypeError, "Unknown option"),
        (dict(metric="fpr", threshold=0.5, interpolation="lower"), TypeError, "interpolation"),
        (
            dict(metric="threshold_at_fpr", rate=0.1, interpolation="x"),
            ValueError,
            "`interpolation`",
        ),
        (dict(metric="threshold_at_fpr", rate=1.1), ValueError, "`rate`"),
        (dict(metric="fnr_at_fpr", at=-0.1), ValueError, "`at`"),
        (dict(metric="fbeta", threshold=0.5, metric_kwargs={"beta": -1}), ValueError, "`beta`"),
        (
            dict(metric="fbeta", threshold=0.5, metric_kwargs=[("beta", 2)]),
            TypeError,
            "`metric_kwargs`",
        ),
        (
            dict(metric="fpr", threshold=0.5, metric_kwargs={"threshold": 0.2}),
            TypeError,
            "given twice",
        ),
        (dict(metric=lambda s: s.eer().eer, threshold=0.5), TypeError, "`metric_kwargs`"),
        (dict(metric=3), TypeError, "`metric`"),
        (
            dict(metric="eer", conditions=SPK, resampling=mlci.Resampling(algorithm="lazy")),
            ValueError,
            "algorithm='weights'",
        ),
        (
            dict(metric="eer", strata=SES, resampling=mlci.Resampling(algorithm="lazy")),
            ValueError,
            "algorithm='weights'",
        ),
        (
            dict(
                metric="eer", resampling=mlci.Resampling(weights="poisson"), conditions=[SPK, SES]
            ),
            ValueError,
            "poisson",
        ),
    ]
    for kw, exc, match in bad:
        with pytest.raises(exc, match=match):
            SC.bootstrap_ci(**kw, **FAST)


def test_scores_constructor_options():
    with pytest.raises(ValueError, match="`score_class`"):
        Scores([1.0], [0.0], score_class="positive")
    with pytest.raises(ValueError, match="`equal_class`"):
        Scores.from_labels([1, 0], [1.0, 0.0], equal_class="both")
    with pytest.raises(ValueError, match="`pos_label`"):
        Scores.from_labels([1, 0], [1.0, 0.0], pos_label=2)
    with pytest.raises(ValueError, match="`pos_label` is not specified"):
        Scores.from_labels(["a", "b"], [1.0, 0.0])
    with pytest.raises(ValueError, match="`y_true`='label' is not a column of `data`"):
        Scores.from_labels("label", "s", data=FRAME)


def test_confusion_matrix_refuses_bad_input():
    with pytest.raises(ValueError, match="Unknown metric"):
        CMX.metric("tpx")
    with pytest.raises(ValueError, match="`average`"):
        CMX.metric("tpr", average="weighted")
    with pytest.raises(ValueError, match="`average` applies to multiclass"):
        ConfusionMatrix(matrix=[[1, 2], [3, 4]], binary=True).metric("tpr", average="macro")
    with pytest.raises(ValueError, match="negative"):
        ConfusionMatrix(matrix=[[1, -1], [0, 1]])
    with pytest.raises(ValueError, match="`matrix` contains NaN"):
        ConfusionMatrix(matrix=[[1, np.nan], [0, 1]])
    with pytest.raises(TypeError, match="`matrix`"):
        ConfusionMatrix(matrix=[["a", "b"], ["c", "d"]])
    with pytest.raises(ValueError, match="shape"):
        ConfusionMatrix(matrix=[1, 2, 3])
    with pytest.raises(ValueError, match="not both"):
        ConfusionMatrix([0, 1], [0, 1], matrix=[[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="`y_pred`"):
        ConfusionMatrix([0, 1], None)
    with pytest.raises(ValueError, match="`classes` has 3 names"):
        ConfusionMatrix(matrix=[[1, 0], [0, 1]], classes=["a", "b", "c"])
    with pytest.raises(ValueError, match="`classes` is empty"):
        ConfusionMatrix([0, 1], [0, 1], classes=[])
    with pytest.raises(TypeError, match="`classes`"):
        ConfusionMatrix([0, 1], [0, 1], classes="01")
    with pytest.raises(ValueError, match="`classes` has 1 missing value"):
        ConfusionMatrix([0, 1], [0, 1], classes=[0, None])
    with pytest.raises(TypeError, match=r"`y_true` holds numbers .* `y_pred` holds strings"):
        ConfusionMatrix([0, 1], ["no", "yes"])
    with pytest.raises(ValueError, match="`y_true` and `y_pred` share no value"):
        ConfusionMatrix(["pos", "neg"], ["positive", "negative"])
    with pytest.raises(ValueError, match="`pos_label` applies to `binary=True`"):
        ConfusionMatrix([0, 1], [0, 1], pos_label=1)
    with pytest.raises(ValueError, match="`pos_label` applies to labels"):
        ConfusionMatrix(matrix=[[1, 0], [0, 1]], binary=True, pos_label=1)
    with pytest.raises(TypeError, match="`binary`"):
        ConfusionMatrix([0, 1], [0, 1], binary="yes")
    stack = ConfusionMatrix(matrix=np.ones((3, 2, 2)))
    with pytest.raises(ValueError, match="single confusion matrix"):
        stack.bootstrap_ci("tpr", **FAST)
    with pytest.raises(ValueError, match="integer counts"):
        ConfusionMatrix(matrix=[[1.5, 0], [0, 1]]).bootstrap_ci("tpr", **FAST)
    with pytest.raises(ValueError, match="`conditions` needs the samples"):
        ConfusionMatrix(matrix=[[5, 1], [2, 7]]).bootstrap_ci("tpr", conditions=SPK[:15], **FAST)
    with pytest.raises(TypeError, match="Unknown option"):
        CMX.bootstrap_ci("fbeta", metric_kwargs={"alpha": 2}, **FAST)
