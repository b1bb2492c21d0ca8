"""One matrix of bad inputs over the whole public API (issue 8), as scikit-learn tests its
public functions (sklearn/tests/test_public_functions.py).

``REGISTRY`` holds one small valid call of every public callable of ``mlci.__all__`` (and
of the methods that take data: ``Scores.from_labels``, ``Scores.bootstrap_ci``,
``ConfusionMatrix.bootstrap_ci``); the result classes and warnings are listed in
``EXEMPT``.  A new public name that is in neither fails ``test_registry_is_complete``.

From the registry, every bad input is derived:

* each per-sample argument: missing values in every form (float NaN, object NaN, None in
  a list, pandas ``NA`` in "string" and nullable number Series, None in an object Series,
  polars null), the whole argument None, empty, one sample,
  mismatched lengths, wrong dtype; with ``dropna=True`` the missing sample is dropped and
  counted;
* each table argument (fold scores, counts, p-values): NaN, None, ragged, empty;
* every option of the signature (read with :func:`inspect.signature`, so a new option is
  tested at once, or fails ``test_every_parameter_is_classified``): out-of-range levels,
  unknown choices, bad seeds, counts and memory limits, non-boolean flags;
* conditions at the wrong level (a single condition, a 2-d array, a scalar, a nested
  level given as None).

Each bad input must raise ``ValueError`` or ``TypeError`` from mlci's own code (the
innermost frame of the traceback is a file of the ``mlci`` package, never numpy's,
pandas' or scikit-learn's) whose message names the
argument in backticks.  The command line is covered the same way at the end: every option
of every subcommand (walked from :func:`mlci.cli.build_parser`) with bad values, exit
status 2 and one line on stderr naming the option or column.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

import mlci
import mlci.cli
from _helpers import CV5X2_A, CV5X2_B, DATASETS, FOLDS_A, FOLDS_B, PVALUES, TABLE
from _helpers import run_cli as _cli
from mlci import ConfusionMatrix, Scores
from mlci.data import llm_example_path

# oob_ci warns at every call that its interval is approximate (tested where it is defined)
# and bootstrap632_ci for its .632/.632+ variants
pytestmark = [
    pytest.mark.filterwarnings("ignore:oob_ci's interval:UserWarning"),
    pytest.mark.filterwarnings(r"ignore:The \.632\+? interval with n_bootstraps:UserWarning"),
    # FAST uses 20 replicates (0.5 expected beyond a 95% bound) to keep the input checks
    # fast; FewResamplesWarning is tested in tests/engine/test_guards.py
    pytest.mark.filterwarnings("ignore::mlci.FewResamplesWarning"),
    # the tiny Scores (20 targets) give an EER on fewer than 5 errors a class; that
    # warning is tested in tests/engine/test_auto_resolution.py
    pytest.mark.filterwarnings("ignore:An EER of:mlci.NearBoundWarning"),
    # and an AUC on fewer than 20 samples a class (tests/engine/test_auc_few_class.py)
    pytest.mark.filterwarnings(r"ignore:Only \d+ samples in the smaller class of a ROC AUC"),
    # an operating point or a DCF on fewer than 5 errors (tests/scores/test_few_errors.py)
    pytest.mark.filterwarnings(r"ignore:\w+_at_\w+ rests on:mlci.NearBoundWarning"),
    pytest.mark.filterwarnings("ignore:The (minimum|actual) DCF:mlci.NearBoundWarning"),
]

BAD = (ValueError, TypeError)

# ----------------------------------------------------------------------------------------
# data: tiny, so that the whole file runs in seconds
# ----------------------------------------------------------------------------------------
N = 40
Y = np.tile([0, 1], N // 2)
S_A = np.round(0.6 * Y + (np.arange(N) * 7 % N) / N, 3)  # scores, some overlap
S_B = np.round(0.4 * Y + (np.arange(N) * 11 % N) / N, 3)
P_A = np.where(np.arange(N) % 7 == 0, 1 - Y, Y)  # decisions, a few errors
P_B = np.where(np.arange(N) % 5 == 0, 1 - Y, Y)
SW = 1.0 + np.arange(N) % 3  # per-sample weights (sample_weight)
COND = np.arange(N) % 20  # 20 conditions (no FewConditionsWarning)
STRATA = COND % 2  # each condition in one stratum
SC = Scores.from_labels(Y, S_A)
CMX = ConfusionMatrix(Y, P_A)


# trials: 40 recordings of 20 speakers, every pair of recordings a trial
_T_SPK = np.repeat(np.arange(20), 2)
_T_IDS = np.array([f"r{i}" for i in range(40)])
_E, _T = np.triu_indices(40, k=1)
T_LAB = (_T_SPK[_E] == _T_SPK[_T]).astype(int)
T_SC = np.round(np.random.default_rng(1).normal(2.0 * T_LAB, 1.0), 3)
T_SPK_OF = dict(zip(_T_IDS.tolist(), _T_SPK.tolist(), strict=True))

# sklearn helpers
X_CV = np.random.default_rng(2).normal(size=(40, 2)).round(3)
Y_CV = (X_CV[:, 0] > 0).astype(int)

FAST = {"n_resamples": 20, "rng": 0}
# metric meta-evaluation: 10 systems x 4 items; agreement: 40 items x 3 raters
_G = np.random.default_rng(3)
GRID_Z = _G.normal(size=(10, 4)).round(3)
GRID_X = (GRID_Z + _G.normal(size=(10, 4))).round(3)
GRID_Y = (GRID_Z + 2 * _G.normal(size=(10, 4))).round(3)
RATINGS = np.clip(Y[:, None] + (np.arange(3 * N).reshape(N, 3) * 7 % 5 == 0), 0, 2)
# corpus MT: N segments of text, one reference stream; IR: a tiny run and qrels
_W = np.random.default_rng(4).integers(0, 6, size=(3, N, 8))
MT_REF = [" ".join(f"w{k}" for k in row) for row in _W[0]]
MT_HYP = [
    " ".join(f"w{k}" for k in np.where(row % 3 == 0, alt, row))
    for row, alt in zip(_W[0], _W[1], strict=True)
]
MT_HYP_B = [
    " ".join(f"w{k}" for k in np.where(row % 2 == 0, alt, row))
    for row, alt in zip(_W[0], _W[2], strict=True)
]
_R = np.random.default_rng(5).random((3, N // 2, 6)).round(3)
IR_QRELS = {
    f"q{q}": {f"d{d}": int(_R[0, q, d] > 0.6) + (d == 0) for d in range(6)} for q in range(N // 2)
}
IR_RUN_A = {f"q{q}": {f"d{d}": float(_R[1, q, d]) for d in range(6)} for q in range(N // 2)}
IR_RUN_B = {f"q{q}": {f"d{d}": float(_R[2, q, d]) for d in range(6)} for q in range(N // 2)}


def _mt_compare(system_a, system_b, **kw):
    return mlci.mt_compare({"A": system_a, "B": system_b}, **kw)


def _text_file(name: str, text: str) -> str:
    import tempfile

    path = Path(tempfile.mkdtemp()) / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _reader(fn: Callable[..., Any], file_name: str, text: str) -> Api:
    """A reader of one text file; its ``name`` (how messages name the file) is any label."""
    return Api(
        fn,
        {"path": _text_file(file_name, text)},
        call=lambda path, **kw: fn(path, **kw),
        adapted=frozenset({"name"}),
    )


#: a table for the reductions (conditions "c", strata "s"), and its reduced table
FRAME = pd.DataFrame({"y": Y, "p": P_A, "c": COND, "s": STRATA})


def _atom_table() -> mlci.AtomTable:
    return mlci.reduce_table(FRAME, "y", "p", metric="accuracy", conditions="c")


# language-model logs: 2 models x 20 items x 2 repeats (long table), and the bundled log
L_MODEL = np.repeat(["A", "B"], 2 * N // 2)
L_ITEM = np.tile(np.repeat(np.arange(N // 2), 2), 2)
L_REPEAT = np.tile([0, 1], N)
L_SCORE = np.where(np.arange(2 * N) % 3 == 0, 0.0, 1.0)
L_TASK = np.where(L_ITEM % 2 == 0, "t0", "t1")
LLM_LOG = mlci.read_eval_logs(llm_example_path(), conditions=["group"])

#: kinds of per-sample arguments (what a wrong dtype is, how a missing value is written)
LABELS, NUMBERS, GROUPS, IDS, MATRIX = "labels", "numbers", "groups", "ids", "matrix"


@dataclass(frozen=True)
class Api:
    """One public callable and a small valid call of it.

    ``call(**good)`` runs it; the names of ``good`` are the adapter's (``system_a`` for
    ``systems['A']``), ``shown`` says how mlci's messages name them.  ``aligned`` lists
    groups of per-sample arguments (name -> kind) that must share one length; ``anchored``
    arguments are aligned with data the call holds elsewhere (a ``Scores`` object).
    ``tables`` are whole-table arguments (fold scores, counts, p-values).
    """

    fn: Callable[..., Any]
    good: dict[str, Any]
    call: Callable[..., Any] | None = None
    aligned: tuple[dict[str, str], ...] = ()
    anchored: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()  # per-sample arguments that may be None
    tables: tuple[str, ...] = ()
    shown: dict[str, str] = field(default_factory=dict)
    one_is_too_few: bool | str = True  # a single sample is refused (str: the message names it)
    conditions: str | None = None  # the argument that takes conditions
    adapted: frozenset[str] = frozenset()  # parameters the adapter builds (`systems`...)

    def run(self, **kw: Any) -> Any:
        return (self.call or self.fn)(**{**self.good, **kw})

    def name_of(self, arg: str) -> str:
        return self.shown.get(arg, arg)

    @property
    def per_sample(self) -> dict[str, str]:
        return {k: v for g in self.aligned for k, v in g.items()}


def _design(**kinds: str) -> dict[str, str]:
    return {**kinds, "conditions": GROUPS, "strata": GROUPS}


DESIGN = {"conditions": COND, "strata": STRATA}
OPTIONAL_DESIGN = frozenset({"conditions", "strata"})


def _scores_driver(fn: Callable[..., Any], **extra: Any) -> Api:
    """A bootstrap driver of a ``Scores`` object: conditions/strata aligned with it."""
    return Api(
        fn,
        {"scores": SC, **DESIGN, **FAST, **extra},
        aligned=({"conditions": GROUPS, "strata": GROUPS},),
        anchored=OPTIONAL_DESIGN,
        optional=OPTIONAL_DESIGN,
        conditions="conditions",
    )


def _scores_function(fn: Callable[..., Any], **extra: Any) -> Api:
    """A function of a ``Scores`` object alone (no per-sample argument)."""
    return Api(fn, {"scores": SC, **extra})


def _compare(y_true, system_a, system_b, **kw):
    return mlci.compare(y_true, {"A": system_a, "B": system_b}, **kw)


def _pooled(y_true, run_0, run_1, **kw):
    return mlci.pooled_ci(y_true, [run_0, run_1], **kw)


def _compare_methods(y_true, run_a, run_b, **kw):
    return mlci.compare_methods(y_true, [run_a], [run_b], **kw)


def _evaluate(y_test, run_0, run_1, **kw):
    outs = [run_0, run_1]
    return mlci.evaluate_method(lambda idx, seed: outs[seed % 2], y_test=y_test, **kw)


def _nested_plan(level_0, level_1, **kw):
    return mlci.make_nested_plan(N, [level_0, level_1], **kw)


def _sklearn_helper(fn):
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB

    return lambda X, y, **kw: fn(LogisticRegression(), GaussianNB(), X, y, **kw)


def _gaussian_nb():
    from sklearn.naive_bayes import GaussianNB

    return GaussianNB()


@functools.cache
def _forest():
    from sklearn.ensemble import RandomForestClassifier

    # labels unrelated to X_CV: out-of-bag accuracy near 0.5, with spread
    return RandomForestClassifier(30, oob_score=True, random_state=0).fit(X_CV, Y)


def _set_config(**kw):
    before = mlci.get_config()
    try:
        mlci.set_config(**kw)
        return mlci.get_config()
    finally:
        mlci.set_config(**before)


def _config_context(**kw):
    with mlci.config_context(**kw):
        return mlci.get_config()


#: the engine knobs (mlci.config_context), all given
KNOBS = {"batch": 8, "n_jobs": 1, "max_memory": 1 << 20, "progress": False}

REGISTRY: dict[str, Api] = {
    # ------------------------------------------------------------- the one driver
    "bootstrap_ci": Api(
        mlci.bootstrap_ci,
        {"y_true": Y, "y_pred": P_A, "metric": "accuracy", **DESIGN, **FAST},
        call=lambda y_true, y_pred, **kw: mlci.bootstrap_ci(y_true, y_pred, **kw),
        aligned=(_design(y_true=LABELS, y_pred=LABELS),),
        optional=OPTIONAL_DESIGN,
        conditions="conditions",
    ),
    "bootstrap_ci(scores)": Api(
        mlci.bootstrap_ci,
        {"y_true": Y, "y_score": S_A, "metric": "roc_auc", "sample_weight": SW, **FAST},
        call=lambda y_true, y_score, **kw: mlci.bootstrap_ci(y_true, y_score, **kw),
        aligned=({"y_true": LABELS, "y_score": NUMBERS, "sample_weight": NUMBERS},),
        optional=frozenset({"sample_weight"}),
    ),
    # ------------------------------------------------------------- comparison
    "compare": Api(
        mlci.compare,
        {
            "y_true": Y,
            "system_a": P_A,
            "system_b": P_B,
            "metric": "accuracy",
            "sample_weight": SW,
            **DESIGN,
            **FAST,
        },
        call=_compare,
        aligned=(_design(y_true=LABELS, system_a=LABELS, system_b=LABELS, sample_weight=NUMBERS),),
        optional=OPTIONAL_DESIGN | {"sample_weight"},
        shown={"system_a": "systems['A']", "system_b": "systems['B']"},
        adapted=frozenset({"systems"}),
        conditions="conditions",
    ),
    "permutation_test": Api(
        mlci.permutation_test,
        {
            "y_true": Y,
            "y_pred_a": P_A,
            "y_pred_b": P_B,
            "metric": "accuracy",
            "conditions": COND,
            **FAST,
        },
        aligned=({"y_true": LABELS, "y_pred_a": LABELS, "y_pred_b": LABELS, "conditions": GROUPS},),
        optional=frozenset({"conditions"}),
        conditions="conditions",
    ),
    "pooled_ci": Api(
        mlci.pooled_ci,
        {"y_true": Y, "run_0": P_A, "run_1": P_B, "metric": "accuracy", **DESIGN, **FAST},
        call=_pooled,
        aligned=(_design(y_true=LABELS, run_0=LABELS, run_1=LABELS),),
        optional=OPTIONAL_DESIGN,
        shown={"run_0": "runs[0]", "run_1": "runs[1]"},
        adapted=frozenset({"runs"}),
        conditions="conditions",
    ),
    "compare_methods": Api(
        mlci.compare_methods,
        {"y_true": Y, "run_a": P_A, "run_b": P_B, "metric": "accuracy", **DESIGN, **FAST},
        call=_compare_methods,
        aligned=(_design(y_true=LABELS, run_a=LABELS, run_b=LABELS),),
        optional=OPTIONAL_DESIGN,
        shown={"run_a": "runs_a[0]", "run_b": "runs_b[0]"},
        adapted=frozenset({"runs_a", "runs_b"}),
        conditions="conditions",
    ),
    "evaluate_method": Api(
        mlci.evaluate_method,
        {
            "y_test": Y,
            "run_0": P_A,
            "run_1": P_B,
            "metric": "accuracy",
            "n_train": 10,
            "seeds": [0, 1],
            **DESIGN,
            **FAST,
        },
        call=_evaluate,
        aligned=(_design(y_test=LABELS, run_0=LABELS, run_1=LABELS),),
        optional=OPTIONAL_DESIGN,
        shown={"run_0": "predictions of run 0", "run_1": "predictions of run 1"},
        adapted=frozenset({"train_and_predict"}),
        conditions="conditions",
    ),
    # ------------------------------------------------------------- scores
    "Scores": Api(
        Scores,
        {"pos": S_A[Y == 1], "neg": S_A[Y == 0]},
        aligned=({"pos": NUMBERS}, {"neg": NUMBERS}),
        one_is_too_few=False,
    ),
    "Scores.from_labels": Api(
        Scores.from_labels,
        {"y_true": Y, "y_score": S_A, "sample_weight": SW},
        aligned=({"y_true": LABELS, "y_score": NUMBERS, "sample_weight": NUMBERS},),
        optional=frozenset({"sample_weight"}),
    ),
    "GroupScores": Api(
        mlci.GroupScores,
        {
            "pos": S_A[Y == 1],
            "neg": S_A[Y == 0],
            "pos_groups": np.tile(["a", "b"], N // 4),
            "neg_groups": np.tile(["a", "b"], N // 4),
        },
        aligned=({"pos": NUMBERS, "pos_groups": GROUPS}, {"neg": NUMBERS, "neg_groups": GROUPS}),
        one_is_too_few=False,
    ),
    "GroupScores.from_labels": Api(
        mlci.GroupScores.from_labels,
        {
            "y_true": Y,
            "y_score": S_A,
            "groups": np.tile(["a", "a", "b", "b"], N // 4),
            "sample_weight": SW,
        },
        aligned=(
            {"y_true": LABELS, "y_score": NUMBERS, "groups": GROUPS, "sample_weight": NUMBERS},
        ),
        optional=frozenset({"sample_weight"}),
    ),
    "Scores.bootstrap_ci": Api(
        SC.bootstrap_ci,
        {"metric": "fnr", "threshold": 0.8, **DESIGN, **FAST},
        aligned=({"conditions": GROUPS, "strata": GROUPS},),
        anchored=OPTIONAL_DESIGN,
        optional=OPTIONAL_DESIGN,
        conditions="conditions",
    ),
    "ConfusionMatrix": Api(
        ConfusionMatrix,
        {"y_true": Y, "y_pred": P_A, "sample_weight": SW},
        aligned=({"y_true": LABELS, "y_pred": LABELS, "sample_weight": NUMBERS},),
        optional=frozenset({"sample_weight"}),
        one_is_too_few=False,
    ),
    "identification_scores": Api(
        mlci.identification_scores,
        {
            "mate_score": S_A[Y == 1],
            "mate_rank": 1 + np.arange(N // 2) % 3,
            "nonmate_score": S_A[Y == 0],
            "rank": 2,
        },
        aligned=({"mate_score": NUMBERS, "mate_rank": NUMBERS}, {"nonmate_score": NUMBERS}),
        one_is_too_few=False,
    ),
    "pointwise_cm": Api(
        mlci.pointwise_cm,
        {"y_true": Y, "y_score": S_A, "threshold": 0.5},
        aligned=({"y_true": LABELS, "y_score": NUMBERS},),
        one_is_too_few=False,
    ),
    "ConfusionMatrix.bootstrap_ci": Api(
        CMX.bootstrap_ci,
        {"metric": "accuracy", **DESIGN, **FAST},
        aligned=({"conditions": GROUPS, "strata": GROUPS},),
        anchored=OPTIONAL_DESIGN,
        optional=OPTIONAL_DESIGN,
        conditions="conditions",
    ),
    "auc_ci": Api(
        mlci.auc_ci,
        {"y_true": Y, "y_score": S_A, **DESIGN, **FAST},
        call=lambda y_true, y_score, **kw: mlci.auc_ci(y_true, y_score, **kw),
        aligned=(_design(y_true=LABELS, y_score=NUMBERS),),
        optional=OPTIONAL_DESIGN,
        conditions="conditions",
    ),
    "auc_ci(Scores)": Api(
        mlci.auc_ci,
        {"scores": SC, **DESIGN, **FAST},
        call=lambda scores, **kw: mlci.auc_ci(scores, **kw),
        aligned=({"conditions": GROUPS, "strata": GROUPS},),
        anchored=OPTIONAL_DESIGN,
        optional=OPTIONAL_DESIGN,
        conditions="conditions",
    ),
    "cllr_ci": _scores_driver(mlci.cllr_ci),
    "dcf_ci": _scores_driver(mlci.dcf_ci, p_target=0.1),
    "eer_ci": _scores_driver(mlci.eer_ci),
    "operating_point_ci": _scores_driver(mlci.operating_point_ci, at=0.2),
    "roc_band": _scores_driver(mlci.roc_band, grid=[0.2, 0.5]),
    "roc_with_ci": _scores_driver(mlci.roc_with_ci, fpr=[0.2, 0.5]),
    "roc_with_ci(fnr)": _scores_driver(mlci.roc_with_ci, fnr=[0.2, 0.5]),
    "metric_by_group": Api(
        mlci.metric_by_group,
        {
            "y_true": Y,
            "y_score": S_A,
            "groups": np.tile(["a", "a", "b", "b"], N // 4),
            "threshold": 0.8,
            "sample_weight": SW,
            **DESIGN,
            **FAST,
        },
        aligned=(_design(y_true=LABELS, y_score=NUMBERS, groups=GROUPS, sample_weight=NUMBERS),),
        optional=OPTIONAL_DESIGN | {"sample_weight"},
        conditions="conditions",
    ),
    "trial_bootstrap_ci": Api(
        mlci.trial_bootstrap_ci,
        {
            "y_true": T_LAB,
            "y_score": T_SC,
            "enroll_ids": _T_IDS[_E],
            "test_ids": _T_IDS[_T],
            "speaker_of": T_SPK_OF,
            **FAST,
        },
        aligned=({"y_true": LABELS, "y_score": NUMBERS, "enroll_ids": IDS, "test_ids": IDS},),
    ),
    "roc_curve": _scores_function(mlci.roc_curve),
    "det_curve": _scores_function(mlci.det_curve),
    "pr_curve": _scores_function(mlci.pr_curve),
    "partial_auc": _scores_function(mlci.partial_auc, max_fpr=0.5),
    "cllr": _scores_function(mlci.cllr),
    "min_cllr": _scores_function(mlci.min_cllr),
    "detection_cost": _scores_function(mlci.detection_cost, p_target=0.1, threshold=0.5),
    "min_detection_cost": _scores_function(mlci.min_detection_cost, p_target=0.1),
    # ------------------------------------------------------------- classical: per sample
    "delong_ci": Api(
        mlci.delong_ci,
        {"y_true": Y, "y_score": S_A},
        aligned=({"y_true": LABELS, "y_score": NUMBERS},),
    ),
    "hanley_mcneil_ci": Api(
        mlci.hanley_mcneil_ci,
        {"y_true": Y, "y_score": S_A},
        aligned=({"y_true": LABELS, "y_score": NUMBERS},),
    ),
    "auc_score_ci": Api(
        mlci.auc_score_ci,
        {"y_true": Y, "y_score": S_A},
        aligned=({"y_true": LABELS, "y_score": NUMBERS},),
    ),
    "delong_test": Api(
        mlci.delong_test,
        {"y_true": Y, "y_score_a": S_A, "y_score_b": S_B},
        aligned=({"y_true": LABELS, "y_score_a": NUMBERS, "y_score_b": NUMBERS},),
    ),
    "delong_test_independent": Api(
        mlci.delong_test_independent,
        {"y_true_a": Y, "y_score_a": S_A, "y_true_b": Y, "y_score_b": S_B},
        aligned=(
            {"y_true_a": LABELS, "y_score_a": NUMBERS},
            {"y_true_b": LABELS, "y_score_b": NUMBERS},
        ),
    ),
    "mcnemar_test": Api(
        mlci.mcnemar_test,
        {"y_true": Y, "y_pred_a": P_A, "y_pred_b": P_B},
        aligned=({"y_true": LABELS, "y_pred_a": LABELS, "y_pred_b": LABELS},),
        one_is_too_few=False,
    ),
    "mcnemar_test(table)": Api(mlci.mcnemar_test, {"table": TABLE}, tables=("table",)),
    "ConfusionMatrix(matrix)": Api(ConfusionMatrix, {"matrix": TABLE}, tables=("matrix",)),
    "frequency_weights": Api(
        mlci.frequency_weights,
        {"sample_weight": SW},
        aligned=({"sample_weight": "numbers"},),
        one_is_too_few=False,
    ),
    "paired_table": Api(
        mlci.paired_table,
        {"correct_a": P_A == Y, "correct_b": P_B == Y},
        aligned=({"correct_a": LABELS, "correct_b": LABELS},),
        one_is_too_few=False,
    ),
    "paired_ttest_chunks": Api(
        mlci.paired_ttest_chunks,
        {"scores_a": S_A, "scores_b": S_B, "n_chunks": 4},
        aligned=({"scores_a": NUMBERS, "scores_b": NUMBERS},),
        one_is_too_few="`n_chunks`=4 exceeds the number of samples",
    ),
    "compare_estimators": Api(
        mlci.compare_estimators,
        {"X": X_CV, "y": Y_CV, "rng": 0},
        call=_sklearn_helper(mlci.compare_estimators),
        aligned=({"X": MATRIX, "y": LABELS},),
        adapted=frozenset({"estimator_a", "estimator_b"}),
    ),
    "paired_cv_scores": Api(
        mlci.paired_cv_scores,
        {"X": X_CV, "y": Y_CV, "rng": 0},
        call=_sklearn_helper(mlci.paired_cv_scores),
        aligned=({"X": MATRIX, "y": LABELS},),
        adapted=frozenset({"estimator_a", "estimator_b"}),
    ),
    # ------------------------------------------------------------- protocols
    "cross_val_ci": Api(
        mlci.cross_val_ci,
        {"X": X_CV, "y": Y_CV, "conditions": COND, "n_repeats": 2, "rng": 0},
        call=lambda X, y, **kw: mlci.cross_val_ci(_gaussian_nb(), X, y, **kw),
        aligned=({"X": MATRIX, "y": LABELS, "conditions": GROUPS},),
        optional=frozenset({"conditions"}),
        conditions="conditions",
        adapted=frozenset({"estimator"}),
    ),
    "cross_val_compare": Api(
        mlci.cross_val_compare,
        {"X": X_CV, "y": Y_CV, "conditions": COND, "cv": 5, "n_repeats": 2, "rng": 0},
        call=lambda X, y, **kw: mlci.cross_val_compare(_gaussian_nb(), _gaussian_nb(), X, y, **kw),
        aligned=({"X": MATRIX, "y": LABELS, "conditions": GROUPS},),
        optional=frozenset({"conditions"}),
        conditions="conditions",
        adapted=frozenset({"estimator_a", "estimator_b"}),
    ),
    "bootstrap632_ci": Api(
        mlci.bootstrap632_ci,
        {"X": X_CV, "y": Y_CV, "n_bootstraps": 10, "rng": 0},
        call=lambda X, y, **kw: mlci.bootstrap632_ci(_gaussian_nb(), X, y, **kw),
        aligned=({"X": MATRIX, "y": LABELS},),
        adapted=frozenset({"estimator"}),
    ),
    "oob_ci": Api(
        mlci.oob_ci,
        {"y": Y, "X": X_CV, "conditions": COND, **FAST},
        call=lambda y, X=None, **kw: mlci.oob_ci(_forest(), X, y, **kw),
        aligned=({"y": LABELS, "X": MATRIX, "conditions": GROUPS},),
        optional=frozenset({"conditions", "X"}),
        conditions="conditions",
        adapted=frozenset({"estimator"}),
    ),
    # ------------------------------------------------------------- classical: tables
    "proportion_ci": Api(mlci.proportion_ci, {"k": [8, 3], "n": [10, 10]}, tables=("k", "n")),
    "proportion_diff_ci": Api(
        mlci.proportion_diff_ci,
        {"k1": 8, "n1": 10, "k2": 3, "n2": 10},
        tables=("k1", "n1", "k2", "n2"),
    ),
    "paired_proportion_diff_ci": Api(
        mlci.paired_proportion_diff_ci, {"table": TABLE}, tables=("table",)
    ),
    "hanley_mcneil_se": Api(
        mlci.hanley_mcneil_se,
        {"auc": 0.8, "n_positive": 10, "n_negative": 12},
        tables=("auc", "n_positive", "n_negative"),
    ),
    "newcombe_variance": Api(
        mlci.newcombe_variance,
        {"auc": 0.8, "n_positive": 10, "n_negative": 12},
        tables=("auc", "n_positive", "n_negative"),
    ),
    "kfold_cv_ttest": Api(
        mlci.kfold_cv_ttest,
        {"scores_a": FOLDS_A, "scores_b": FOLDS_B},
        tables=("scores_a", "scores_b"),
    ),
    "corrected_resampled_ttest": Api(
        mlci.corrected_resampled_ttest,
        {"scores_a": FOLDS_A, "scores_b": FOLDS_B, "n_train": 90, "n_test": 10},
        tables=("scores_a", "scores_b"),
    ),
    "optimal_threshold_ci": Api(
        mlci.optimal_threshold_ci, {"scores": SC, "n_resamples": 20, "rng": 0}, anchored=frozenset()
    ),
    "pr_band": Api(
        mlci.pr_band,
        {"scores": SC, "conditions": COND, "n_resamples": 20, "rng": 0},
        aligned=({"conditions": GROUPS},),
        anchored=frozenset({"conditions"}),
        optional=frozenset({"conditions"}),
        conditions="conditions",
    ),
    "paired_margin_test": Api(
        mlci.paired_margin_test,
        {"scores_a": FOLDS_A, "scores_b": FOLDS_B, "margin": 0.02},
        tables=("scores_a", "scores_b"),
    ),
    "mcnemar_margin_test": Api(
        mlci.mcnemar_margin_test,
        {"y_true": Y, "y_pred_a": P_A, "y_pred_b": P_B, "margin": 0.05},
        aligned=({"y_true": LABELS, "y_pred_a": LABELS, "y_pred_b": LABELS},),
        one_is_too_few=False,
    ),
    "mcnemar_margin_test(table)": Api(
        mlci.mcnemar_margin_test, {"table": TABLE, "margin": 0.05}, tables=("table",)
    ),
    "correlated_bayesian_ttest": Api(
        mlci.correlated_bayesian_ttest,
        {"scores_a": FOLDS_A, "scores_b": FOLDS_B, "rope": 0.01},
        tables=("scores_a", "scores_b"),
    ),
    "bayesian_signed_rank_test": Api(
        mlci.bayesian_signed_rank_test,
        {"scores_a": FOLDS_A, "scores_b": FOLDS_B, "rope": 0.01, "n_samples": 200, "rng": 0},
        tables=("scores_a", "scores_b"),
    ),
    "cv_5x2_ttest": Api(
        mlci.cv_5x2_ttest,
        {"scores_a": CV5X2_A, "scores_b": CV5X2_B},
        tables=("scores_a", "scores_b"),
    ),
    "cv_5x2_ftest": Api(
        mlci.cv_5x2_ftest,
        {"scores_a": CV5X2_A, "scores_b": CV5X2_B},
        tables=("scores_a", "scores_b"),
    ),
    "sign_test": Api(
        mlci.sign_test,
        {"scores_a": FOLDS_A, "scores_b": FOLDS_B},
        tables=("scores_a", "scores_b"),
    ),
    "wilcoxon_test": Api(
        mlci.wilcoxon_test,
        {"scores_a": FOLDS_A, "scores_b": FOLDS_B},
        tables=("scores_a", "scores_b"),
    ),
    "friedman_test": Api(mlci.friedman_test, {"scores": DATASETS}, tables=("scores",)),
    "nemenyi_test": Api(mlci.nemenyi_test, {"scores": DATASETS}, tables=("scores",)),
    "bonferroni_dunn_test": Api(
        mlci.bonferroni_dunn_test, {"scores": DATASETS}, tables=("scores",)
    ),
    "holm_test": Api(mlci.holm_test, {"scores": DATASETS}, tables=("scores",)),
    "critical_difference": Api(mlci.critical_difference, {"scores": DATASETS}, tables=("scores",)),
    "adjust_pvalues": Api(mlci.adjust_pvalues, {"pvalues": PVALUES}, tables=("pvalues",)),
    "reject_hypotheses": Api(mlci.reject_hypotheses, {"pvalues": PVALUES}, tables=("pvalues",)),
    # ------------------------------------------------------------- planning (scalars)
    "sample_size_proportion": Api(mlci.sample_size_proportion, {"width": 0.1}),
    "sample_size_mcnemar": Api(mlci.sample_size_mcnemar, {"difference": 0.05, "discordance": 0.15}),
    "power_mcnemar": Api(
        mlci.power_mcnemar, {"n_samples": 500, "difference": 0.05, "discordance": 0.15}
    ),
    "sample_size_auc": Api(mlci.sample_size_auc, {"auc": 0.8, "auc_null": 0.7}),
    "power_auc": Api(mlci.power_auc, {"auc": 0.8, "n_positive": 50, "n_negative": 50}),
    "sample_size_auc_difference": Api(
        mlci.sample_size_auc_difference, {"auc1": 0.75, "auc2": 0.85, "correlation": 0.5}
    ),
    "power_auc_difference": Api(
        mlci.power_auc_difference,
        {"auc1": 0.75, "auc2": 0.85, "n_positive": 80, "n_negative": 80, "correlation": 0.5},
    ),
    # ------------------------------------------------------------- engine, compat, metrics
    "make_nested_plan": Api(
        mlci.make_nested_plan,
        {"level_0": COND, "level_1": np.arange(N) % 2, **FAST},
        call=_nested_plan,
        aligned=({"level_0": GROUPS, "level_1": GROUPS},),
        shown={"level_0": "levels[0]", "level_1": "levels[1]"},
        adapted=frozenset({"n_samples", "levels"}),
        conditions="level_0",
    ),
    "evaluate_with_conf_int": Api(
        mlci.evaluate_with_conf_int,
        {
            "samples": P_A,
            "metric": "accuracy",
            "labels": Y,
            "conditions": COND,
            "num_bootstraps": 20,
        },
        aligned=({"samples": LABELS, "labels": LABELS, "conditions": GROUPS},),
        optional=frozenset({"conditions"}),
        conditions="conditions",
    ),
    "list_metrics": Api(mlci.list_metrics, {}),
    "Resampling": Api(mlci.Resampling, {"two_stage": True}),
    "config_context": Api(mlci.config_context, KNOBS, call=_config_context),
    "set_config": Api(mlci.set_config, KNOBS, call=_set_config),
    "get_config": Api(mlci.get_config, {}),
    # ------------------------------------------------------------- correlations, agreement
    "correlation_ci": Api(
        mlci.correlation_ci,
        {"metric_scores": GRID_X, "human_scores": GRID_Z, **FAST},
        tables=("metric_scores", "human_scores"),
    ),
    "compare_correlations": Api(
        mlci.compare_correlations,
        {"metric_a": GRID_X, "metric_b": GRID_Y, "human_scores": GRID_Z, **FAST},
        tables=("metric_a", "metric_b", "human_scores"),
    ),
    "williams_test": Api(mlci.williams_test, {"r12": 0.6, "r13": 0.4, "r23": 0.5, "n": 50}),
    "agreement_ci": Api(mlci.agreement_ci, {"ratings": RATINGS, **FAST}),
    "bca_ci": Api(
        mlci.bca_ci,
        {
            "bootstrap_distribution": np.linspace(0.1, 0.9, 50),
            "estimate": 0.52,
            "jackknife": np.linspace(0.5, 0.54, N),
        },
        tables=("jackknife",),
    ),
    # ------------------------------------------------------------- language models
    "eval_log": Api(
        mlci.eval_log,
        {"model": L_MODEL, "item": L_ITEM, "score": L_SCORE, "task": L_TASK, "repeat": L_REPEAT},
        aligned=(
            {"model": GROUPS, "item": GROUPS, "score": NUMBERS, "task": GROUPS, "repeat": GROUPS},
        ),
        optional=frozenset({"task", "repeat"}),
        one_is_too_few=False,
    ),
    "read_eval_logs": Api(
        mlci.read_eval_logs, {"paths": llm_example_path(), "conditions": ["group"]}
    ),
    "llm_ci": Api(mlci.llm_ci, {"log": LLM_LOG, "conditions": "group", **FAST}),
    "llm_compare": Api(mlci.llm_compare, {"log": LLM_LOG, "conditions": "group", **FAST}),
    "llm_sample_size": Api(
        mlci.llm_sample_size, {"log": LLM_LOG, "a": "model-a", "b": "model-b", "difference": 0.03}
    ),
    # ------------------------------------------------------------- out-of-core (DuckDB)
    "reduce_table": Api(
        mlci.reduce_table,
        {"source": FRAME, "metric": "accuracy", "conditions": "c", "strata": "s"},
        call=lambda source, **kw: mlci.reduce_table(source, "y", "p", **kw),
    ),
    "reduce_ci": Api(
        mlci.reduce_ci,
        {"source": FRAME, "metric": "accuracy", "conditions": "c", "strata": "s", **FAST},
        call=lambda source, **kw: mlci.reduce_ci(source, "y", "p", **kw),
    ),
    "AtomTable.bootstrap_ci": Api(
        mlci.AtomTable.bootstrap_ci,
        {"metric": "accuracy", **FAST},
        call=lambda **kw: _atom_table().bootstrap_ci(**kw),
    ),
    # ------------------------------------------------------------- corpus MT, IR (issue 24)
    "mt_ci": Api(
        mlci.mt_ci,
        {"hypotheses": MT_HYP, "references": MT_REF, "conditions": COND, **FAST},
        aligned=({"hypotheses": IDS, "references": IDS, "conditions": GROUPS},),
        optional=frozenset({"conditions"}),
        conditions="conditions",
    ),
    "mt_compare": Api(
        mlci.mt_compare,
        {
            "system_a": MT_HYP,
            "system_b": MT_HYP_B,
            "references": MT_REF,
            "conditions": COND,
            **FAST,
        },
        call=_mt_compare,
        aligned=({"system_a": IDS, "system_b": IDS, "references": IDS, "conditions": GROUPS},),
        optional=frozenset({"conditions"}),
        shown={"system_a": "systems['A']", "system_b": "systems['B']"},
        adapted=frozenset({"systems"}),
        conditions="conditions",
    ),
    "mt_compare(paired-bs)": Api(
        mlci.mt_compare,
        {
            "system_a": MT_HYP,
            "system_b": MT_HYP_B,
            "references": MT_REF,
            "variant": "paired-bs",
            **FAST,
        },
        call=_mt_compare,
        aligned=({"system_a": IDS, "system_b": IDS, "references": IDS},),
        shown={"system_a": "systems['A']", "system_b": "systems['B']"},
        adapted=frozenset({"systems"}),
        one_is_too_few=False,  # sacreBLEU's tests run on one segment (p-value 1)
    ),
    "read_segments": _reader(mlci.read_segments, "hyp.txt", "a b\nc d\n"),
    "ir_ci": Api(mlci.ir_ci, {"run": IR_RUN_A, "qrels": IR_QRELS, **FAST}),
    "ir_compare": Api(
        mlci.ir_compare, {"runs": {"A": IR_RUN_A, "B": IR_RUN_B}, "qrels": IR_QRELS, **FAST}
    ),
    "read_run": _reader(mlci.read_run, "run.txt", "q1 Q0 d1 1 2.5 bm25\n"),
    "read_qrels": _reader(mlci.read_qrels, "qrels.txt", "q1 0 d1 2\n"),
}

#: public names that hold results or are warnings: no data goes in
EXEMPT = {
    "BootstrapErrorResult",
    "AtomTable",  # a reduced table: built by reduce_table, its bootstrap_ci is in REGISTRY
    "BootstrapResult",
    "AnalyticInterval",  # a result's record (bad input: tests/test_method_resolution.py)
    "CVResult",
    "BayesianComparison",
    "ComparisonResult",
    "ConfidenceInterval",
    "CriticalDifference",
    "DegenerateIntervalWarning",
    "EqualErrorRate",
    "EvalLog",
    "GroupResult",
    "FewConditionsWarning",
    "FewResamplesWarning",
    "HeavyTailWarning",
    "FrequencyWeights",  # the marker frequency_weights returns (in REGISTRY)
    "IntervalResult",
    "InvalidReplicatesWarning",
    "IrregularEstimandWarning",
    "LLMComparison",
    "LLMEstimates",
    "LeaderboardEntry",
    "MarginTest",
    "NearBoundWarning",
    "MlciWarning",
    "OptimalThreshold",
    "OOBResult",
    "PairDifference",
    "PlanResult",
    "PooledResult",
    "PostHocResult",
    "TestResult",
    "MTPairedTest",
    "IRComparison",
    "AttenuatedCorrelationWarning",
}

#: methods of public classes that take data (besides the constructors)
DATA_METHODS = {
    "Scores.from_labels",
    "GroupScores.from_labels",
    "Scores.bootstrap_ci",
    "ConfusionMatrix.bootstrap_ci",
    "AtomTable.bootstrap_ci",
}


def _base(name: str) -> str:
    return name.split("(")[0]


def test_registry_is_complete():
    public = {n for n in mlci.__all__ if callable(getattr(mlci, n))}
    covered = {_base(n) for n in REGISTRY}
    missing = sorted(public - covered - EXEMPT)
    assert not missing, f"public names neither in REGISTRY nor in EXEMPT: {missing}"
    stale = sorted((covered | EXEMPT) - public - DATA_METHODS)
    assert not stale, f"REGISTRY/EXEMPT names that are not public: {stale}"
    assert DATA_METHODS <= covered
    for cls in EXEMPT:
        obj = getattr(mlci, cls)
        assert inspect.isclass(obj), f"{cls} is exempt but is not a class"


@pytest.mark.parametrize("name", list(REGISTRY))
def test_good_call_runs(name):
    REGISTRY[name].run()


# ----------------------------------------------------------------------------------------
# the checks every bad input must pass
# ----------------------------------------------------------------------------------------
#: the package's own directory: an error must be raised by code in it
PACKAGE = Path(mlci.__file__).resolve().parent


def _innermost_file(tb: Any) -> Path:
    while tb.tb_next is not None:
        tb = tb.tb_next
    return Path(tb.tb_frame.f_code.co_filename).resolve()


def _refused(call: Callable[[], Any], pattern: str) -> BaseException:
    """``call()`` raises ValueError/TypeError from mlci's code, its message matching."""
    with pytest.raises(BAD) as info:
        call()
    where = _innermost_file(info.tb)
    msg = str(info.value)
    assert PACKAGE in where.parents, (
        f"raised outside mlci ({where}): {type(info.value).__name__}: {msg}"
    )
    assert re.search(pattern, msg), f"message does not match {pattern!r}: {msg}"
    return info.value


def _named(*names: str) -> str:
    """A message that names one of ``names`` in backticks (`y_true`, `pos_label`='x')."""
    return "|".join(rf"`{re.escape(n)}(?![\w])" for n in names)


def _functions_of(api: Api) -> list[Api]:
    """Every registry entry of the same public callable (one signature)."""
    return [a for a in REGISTRY.values() if a.fn == api.fn]


def _data_params(api: Api) -> set[str]:
    """Signature parameters that carry data in some entry of the same callable."""
    out: set[str] = set()
    for a in _functions_of(api):
        out |= set(a.per_sample) | set(a.tables) | set(a.adapted)
    return out


# ----------------------------------------------------------------------------------------
# options: read from the signature
# ----------------------------------------------------------------------------------------
#: bad values by option name, on top of the generic ones (see _option_values)
OPTION_BAD: dict[str, list[Any]] = {
    "confidence_level": [95, 1.5, 0],
    "alternative": ["one-sided"],
    "method": ["nope"],
    "rng": ["x", -1, 1.5],
    "n_resamples": [0, 2.5],
    "batch": [0, 2.5],
    "n_jobs": [0, 2.5],
    "max_memory": [10],
    "progress": [1, "yes"],
    "correction": ["nope"],
    "variant": ["nope"],
    "interpolation": ["nope"],
    "pos_label": [7],
    "average": ["nope"],
    "stratify": ["yes"],
    "resampling": [{"two_stage": True}, "poisson"],
    "subsample": [0, 1.5, "half"],
    "smoothing": [-1, "yes"],
    "higher_is_better": ["yes"],
    "metric_kwargs": [2],
    "threshold": ["0.5", np.nan],
    "thresholds": [["a"], [np.nan], []],
    "n_points": [1, 2.5, "3"],
    "rank": [0, 1.5, "2"],
    "rate": [1.5],
    "at": [1.5, "0.1"],
    "max_fpr": [1.5, 0],
    "grid": [[0.2, 1.5]],
    "p_target": [0, 1.5],
    "c_miss": [-1],
    "c_fa": [-1],
    "alpha": [0, -1],
    "names": ["abcd"],
    "control": ["zz"],
    "reference": ["Z"],
    "classes": ["01"],
    "normalize": ["nope"],
    "correlation": [1.5, np.nan],
    "auc_null": [1.5, np.nan],
    "width": [0],
    "power": [0, 1.5],
    "ratio": [0],
    "n_samples": [0],
    "n_train": [0],
    "n_test": [0],
    "n_chunks": [0, 2.5],
    "margin": [0, -0.1, "0.1", np.inf],
    "rope": [-0.1, "x"],
    "rho": [1.0, -0.5],
    "n_runs": [0, 4],
    "prior_strength": [0, -1],
    "criterion": ["nope"],
    "c_fn": [-1],
    "c_fp": [-1],
    "prevalence": [0, 1.5],
    "n_splits": [1],
    "n_repeats": [0],
    "n_train_resamples": [-1],
    "num_bootstraps": [0],
    "jackknife_groups": [1],
    "seeds": [[], "1"],
    "test_size": [0, 1.5],
    "cv": [1, "kfold"],
    "n_bootstraps": [5],
    "scoring": ["nope"],
    "speaker_of": [{}],
    "resample": ["nope"],
    "resample_levels": ["nope"],
    "scores": [[0.1, 0.9], None],  # the Scores object of the score functions
    "metric": [3],
    "conditions": ["x", ["nope"]],  # the LLM functions' column names (elsewhere: data)
    "models": ["A", ["zz"]],
    "model": [3],
    "filter": [3, "nope"],
    "repeats": [0, "x"],
    "difference": [0, 1.5],
    "k": [0],
    "engine": ["nope", "spark"],
    "score_bins": [1, 2.5],
    "max_rows": [0],
    "memory_limit": [3, " "],
    "temp_directory": [3],
    "sampler": [3],
    "fpr": [[1.5], "0.1"],
    "fnr": [[1.5], "0.1"],
    "y_axis": ["nope", "fpr"],  # the same rate as the default x_axis
    "group_names": ["zz", ["a"]],
    "estimate": [np.nan, "x"],
    "statistic": [3],
    "baseline": ["Z"],
    "measure": ["nope@10", 3],
    "missing": ["nope"],
    "bounds": [(1, 0), "x"],
}

#: parameters not varied here, and where they are tested instead
ELSEWHERE: dict[str, str] = {
    "data": "a column name not in `data`: the per-area matrices (tests/classical, scores)",
    "session_of": "tests/scores/test_trials.py",
    "samples2": "tests/test_compat.py (a second per-sample array of a user metric)",
    "X_train": "tests/comparison/test_inputs.py::test_methods_specific_inputs",
    "y_train": "tests/comparison/test_inputs.py::test_methods_specific_inputs",
    "X_test": "tests/comparison/test_inputs.py::test_methods_specific_inputs",
    "binary": "generic flag; the matrix= entry (a table) covers it in test_confusion",
    "paths": "tests/llm/test_llm_readers.py (missing files, directories without logs)",
    "log": "tests/llm (`log` must be an EvalLog)",
    "source": "tests/backends/test_duckdb.py (files, globs, SQL, frames: missing, empty, wrong)",
    "bootstrap_distribution": "tests/engine/test_custom.py (NaN marks an undefined replicate)",
    "ratings": "tests/test_agreement.py (NaN is a missing rating there, not a bad input)",
    "path": "tests/mt/test_mt_inputs.py, tests/ir/test_ir_inputs.py (bad files, line by line)",
    "run": "tests/ir/test_ir_inputs.py (a run: a TREC file or {qid: {docid: score}})",
    "runs": "tests/ir/test_ir_inputs.py (runs: a dict of runs)",
    "qrels": "tests/ir/test_ir_inputs.py (qrels: a TREC file or {qid: {docid: grade}})",
}


def _option_values(api: Api, param: inspect.Parameter) -> list[Any]:
    """Bad values of one option: by name, plus generic ones from its (good) value's type:
    a flag refuses "yes", a choice refuses "nope", a number refuses NaN and a string."""
    values = list(OPTION_BAD.get(param.name, []))
    current = api.good.get(param.name, param.default)
    if isinstance(current, bool | np.bool_):
        values.append("yes")
    elif isinstance(current, str):
        values.append("nope")
    elif isinstance(current, int | float) and param.name != "rng":
        values += [np.nan, "1"]
    out: list[Any] = []
    for v in values:  # unique, keeping order (NaN compares unequal to itself)
        if not any(v is u or (type(v) is type(u) and _same(v, u)) for u in out):
            out.append(v)
    return out


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except ValueError:
        return False


def _params(api: Api) -> list[inspect.Parameter]:
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    sig = inspect.signature(api.fn)
    return [p for p in sig.parameters.values() if p.kind not in kinds and p.name != "self"]


def _option_cases() -> list[Any]:
    cases = []
    for name, api in REGISTRY.items():
        data = _data_params(api)
        for p in _params(api):
            if p.name in data:
                continue
            for bad in _option_values(api, p):
                cases.append(pytest.param(name, p.name, bad, id=f"{name}-{p.name}={bad!r}"))
    return cases


def test_every_parameter_is_classified():
    # a new parameter is data of some entry, gets a bad value here, or says where it is
    # tested: a new option never goes untested silently
    unclassified = []
    for name, api in REGISTRY.items():
        data = _data_params(api)
        for p in _params(api):
            if p.name in data or p.name in ELSEWHERE or _option_values(api, p):
                continue
            unclassified.append(f"{name}({p.name})")
    assert not unclassified, f"parameters with no bad value in OPTION_BAD: {unclassified}"


@pytest.mark.parametrize(("name", "option", "bad"), _option_cases())
def test_bad_option_refused(name, option, bad):
    api = REGISTRY[name]
    # an unknown metric name is reported as "Unknown metric 'nope'" with the list of names
    pattern = _named(option) + ("|Unknown metric" if option == "metric" else "")
    _refused(lambda: api.run(**{option: bad}), pattern)


# ----------------------------------------------------------------------------------------
# per-sample arguments
# ----------------------------------------------------------------------------------------
ROW = 3  # where a missing value is put


def _with_missing(value: Any, kind: str, form: str) -> Any:
    """``value`` with entry ``ROW`` missing, written the way ``form`` says."""
    arr = np.asarray(value)
    if kind == MATRIX:
        return _matrix_with_missing(arr, form)
    numeric = arr.dtype.kind in "biuf"
    if form == "nan":  # float NaN (an object array with NaN where the values are text)
        out = arr.astype(float) if numeric else arr.astype(object)
        out[ROW] = np.nan
        return out
    if form == "object-nan":
        out = arr.astype(object)
        out[ROW] = np.nan
        return out
    if form == "none-in-list":
        vals = arr.tolist()
        vals[ROW] = None
        return vals
    if form == "pandas-string-na":  # pandas' "string" dtype, as read_csv(dtype="string")
        s = pd.Series([str(v) for v in arr.tolist()], dtype="string")
        s[ROW] = pd.NA
        return s
    if form == "pandas-object-none":  # text read by pandas as objects, None where empty
        s = pd.Series([str(v) for v in arr.tolist()], dtype=object)
        s[ROW] = None
        return s
    if form == "pandas-nullable-na":  # Float64 / Int64 / boolean, the nullable number types
        dtype = {"f": "Float64", "b": "boolean"}.get(arr.dtype.kind, "Int64")
        s = pd.Series(arr.tolist(), dtype=dtype if numeric else "string")
        s[ROW] = pd.NA
        return s
    if form == "polars-null":
        vals = arr.tolist()
        vals[ROW] = None
        return pl.Series(vals)
    raise AssertionError(form)


def _matrix_with_missing(arr: np.ndarray, form: str) -> Any:
    if form == "nan":
        out = arr.astype(float)
        out[ROW, 0] = np.nan
        return out
    if form == "object-nan":
        out = arr.astype(object)
        out[ROW, 0] = np.nan
        return out
    if form == "none-in-list":
        rows = arr.tolist()
        rows[ROW][0] = None
        return rows
    if form.startswith("pandas"):
        df = pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])]).astype("Float64")
        df.iloc[ROW, 0] = pd.NA
        return df
    if form == "polars-null":
        cols = {f"x{j}": arr[:, j].tolist() for j in range(arr.shape[1])}
        cols["x0"][ROW] = None
        return pl.DataFrame(cols)
    raise AssertionError(form)


def _wrong_type(value: Any, kind: str) -> Any:
    """Values of the wrong type: strings where numbers are needed, a string among numeric
    labels (or a number among text ids)."""
    arr = np.asarray(value)
    if kind in (NUMBERS, MATRIX):
        return np.full(arr.shape, "high")
    out = arr.astype(object)
    out[ROW] = 7 if isinstance(out[0], str) else "yes"
    return out


MISSING_FORMS = (
    "nan",
    "object-nan",
    "none-in-list",
    "pandas-string-na",
    "pandas-object-none",
    "pandas-nullable-na",
    "polars-null",
)


def _per_sample_cases() -> list[Any]:
    cases = []
    for name, api in REGISTRY.items():
        for group in api.aligned:
            for arg, kind in group.items():
                # the features `X` go to the estimator as they are (a pipeline may impute
                # NaN or vectorise text): only their presence and length are checked
                forms = [] if kind == MATRIX else [*MISSING_FORMS, "dicts", "wrong-type"]
                if arg not in api.optional:
                    forms.append("none")
                if len(group) > 1 or arg in api.anchored:
                    forms.append("mismatched")
                if arg in api.anchored:
                    forms.append("empty")  # the empty group: see _group_cases
                for form in forms:
                    cases.append(pytest.param(name, arg, kind, form, id=f"{name}-{arg}-{form}"))
    return cases


def _bad_per_sample(api: Api, arg: str, kind: str, form: str) -> Any:
    value = api.good[arg]
    if form in MISSING_FORMS:
        return _with_missing(value, kind, form)
    if form == "dicts":
        return [{"a": 1}] * len(value)
    if form == "wrong-type":
        return _wrong_type(value, kind)
    if form == "none":
        return None
    if form == "mismatched":
        return np.asarray(value)[:-1]
    if form == "empty":
        return np.asarray(value)[:0]
    raise AssertionError(form)


@pytest.mark.parametrize(("name", "arg", "kind", "form"), _per_sample_cases())
def test_bad_per_sample_argument_refused(name, arg, kind, form):
    api = REGISTRY[name]
    bad = _bad_per_sample(api, arg, kind, form)
    shown = api.name_of(arg)
    pattern = _named(shown)
    if form in MISSING_FORMS:
        pattern = rf"`{re.escape(shown)}`.*missing value"
    _refused(lambda: api.run(**{arg: bad}), pattern)


def _group_cases() -> list[Any]:
    cases = []
    for name, api in REGISTRY.items():
        for i, group in enumerate(api.aligned):
            if set(group) <= api.anchored:
                continue  # aligned with a Scores object: tested argument by argument
            cases.append(pytest.param(name, i, "empty", id=f"{name}-group{i}-empty"))
            if api.one_is_too_few:
                cases.append(pytest.param(name, i, "one", id=f"{name}-group{i}-one"))
    return cases


@pytest.mark.parametrize(("name", "group", "form"), _group_cases())
def test_empty_or_single_sample_refused(name, group, form):
    api = REGISTRY[name]
    args = api.aligned[group]
    size = 0 if form == "empty" else 1
    bad = {a: np.asarray(api.good[a])[:size] for a in args if api.good.get(a) is not None}
    pattern = _named(*(api.name_of(a) for a in args))
    if form == "one" and isinstance(api.one_is_too_few, str):
        pattern = api.one_is_too_few
    _refused(lambda: api.run(**bad), pattern)


def _n_dropped(res: Any) -> int:
    """The documented count of dropped samples of any result."""
    if isinstance(res, pd.DataFrame):
        return res.attrs["n_dropped"]
    if isinstance(res, Scores | ConfusionMatrix):
        return res.n_dropped
    if isinstance(res, tuple):
        res = res[0]
    for attr in ("eer", "result"):  # EERResult, CurveBand
        res = getattr(res, attr, res)
    return res.details["n_dropped"]


def _dropna_cases() -> list[Any]:
    cases = []
    for name, api in REGISTRY.items():
        if "dropna" not in inspect.signature(api.fn).parameters:
            continue
        for arg, kind in api.per_sample.items():
            marks = ()
            if name == "paired_table":
                marks = pytest.mark.skip(reason="paired_table returns a bare 2x2 array")
            cases.append(pytest.param(name, arg, kind, id=f"{name}-{arg}", marks=marks))
    return cases


@pytest.mark.parametrize(("name", "arg", "kind"), _dropna_cases())
def test_dropna_drops_the_missing_sample(name, arg, kind):
    api = REGISTRY[name]
    res = api.run(**{arg: _with_missing(api.good[arg], kind, "nan")}, dropna=True)
    assert _n_dropped(res) == 1


def _level_cases() -> list[Any]:
    cases = []
    for name, api in REGISTRY.items():
        if api.conditions:
            for form in ("single", "2-d", "scalar", "nested-with-none"):
                cases.append(pytest.param(name, form, id=f"{name}-{form}"))
    return cases


@pytest.mark.parametrize(("name", "form"), _level_cases())
def test_conditions_at_the_wrong_level_refused(name, form):
    # a single condition (nothing to resample), a table, a scalar, a nested level missing
    api = REGISTRY[name]
    arg = api.conditions
    good = np.asarray(api.good[arg])
    bad = {
        "single": np.zeros_like(good),
        "2-d": np.column_stack([good, good]),
        "scalar": 3,
        "nested-with-none": [good, None],
    }[form]
    _refused(lambda: api.run(**{arg: bad}), _named(api.name_of(arg)))


# ----------------------------------------------------------------------------------------
# tables: fold scores, data-set scores, counts, p-values
# ----------------------------------------------------------------------------------------
def _table_cases() -> list[Any]:
    cases = []
    for name, api in REGISTRY.items():
        for arg in api.tables:
            forms = ["nan", "none-inside", "none", "empty", "strings"]
            if np.ndim(api.good[arg]):
                forms.append("ragged")
            for form in forms:
                cases.append(pytest.param(name, arg, form, id=f"{name}-{arg}-{form}"))
    return cases


def _bad_table(value: Any, form: str) -> Any:
    arr = np.asarray(value, dtype=float)
    if form == "none":
        return None
    if form == "empty":
        return []
    if form == "strings":
        return arr.astype(str) if arr.ndim else "8"
    if form == "ragged":
        return [[1, 2], [3]]
    if arr.ndim == 0:
        return np.nan if form == "nan" else [None]
    out = arr.astype(object)
    out.flat[1] = np.nan if form == "nan" else None
    return out if form == "nan" else out.tolist()


@pytest.mark.parametrize(("name", "arg", "form"), _table_cases())
def test_bad_table_refused(name, arg, form):
    api = REGISTRY[name]
    bad = _bad_table(api.good[arg], form)
    _refused(lambda: api.run(**{arg: bad}), _named(arg))


# ----------------------------------------------------------------------------------------
# the command line: every option of every subcommand
# ----------------------------------------------------------------------------------------
#: a valid command per subcommand; a case appends its arguments (the last value of an
#: option wins) or, for FILE, replaces the input
_COMPARE = ["--systems", "pred,pred_baseline", "--metric", "accuracy"]
CLI_BASE = {
    "ci": ["ci", "--example", "--metric", "accuracy", "-B", "20", "--seed", "0"],
    "compare": ["compare", "--example", *_COMPARE, "-B", "20", "--seed", "0"],
    "scores": ["scores", "--example", "-B", "20", "--seed", "0"],
    "datasets": ["datasets", "{ds_file}"],
    "agreement": ["agreement", "{ds_file}", "--item-column", "dataset", "-B", "20", "--seed", "0"],
    "correlate": [
        "correlate",
        "{meta_file}",
        *("--system", "system", "--item", "item", "--human", "human", "--metric-score", "m1"),
        *("-B", "20", "--seed", "0"),
    ],
    "report": [
        "report",
        "--example",
        "--label",
        "is_angry",
        "--score",
        "score_angry",
        "-o",
        "{out_file}",
        "-B",
        "20",
        "--seed",
        "0",
        "--method",
        "percentile",
        "--quiet",
    ],
    "metrics": ["metrics"],
    "example": ["example"],
    "llm ci": ["llm", "ci", "--example", "--condition", "group", "-B", "20", "--seed", "0"],
    "llm compare": ["llm", "compare", "--example", "--condition", "group", "-B20", "--seed", "0"],
    "llm plan": ["llm", "plan", "--example", "--models", "model-a,model-b", "--difference", "0.05"],
}
#: a datasets x methods table (for `mlci datasets`), the report's output file
DS_FILE, OUT_FILE = "{ds_file}", "{out_file}"
DS_TEXT = "dataset,a,b,c\nd1,0.9,0.8,0.7\nd2,0.85,0.8,0.75\nd3,0.7,0.72,0.6\nd4,0.9,0.85,0.8\n"
#: a systems x items table in long form (for `mlci correlate`): 25 systems x 3 items
META_FILE = "{meta_file}"
META_TEXT = "system,item,human,m1,m2\n" + "".join(
    f"s{s},i{i},{(s * 7 + i * 3) % 11},{(s * 5 + i) % 13},{(s * 3 + i * 2) % 7}\n"
    for s in range(25)
    for i in range(3)
)
#: the output options every subcommand but metrics/example has: option -> cases
_OUTPUT_CASES = {
    "--format": [(["--format", "xml"], "--format: invalid choice")],
    "--json": [(["--json=yes"], "--json")],
    "--digits": [(["--digits", "x"], "--digits"), (["--digits", "99"], "--digits")],
    "--quiet": [(["--quiet=yes"], "--quiet")],
    "--plot": [(["--plot", "out.txt"], "--plot out.txt: give a file name ending in")],
}
#: the bootstrap's own options, every resampling subcommand: option -> cases
_RESAMPLING_CASES = {
    "--n-resamples": [(["-B", "x"], "--n-resamples"), (["-B", "0"], "--n-resamples")],
    "--seed": [(["--seed", "x"], "--seed"), (["--seed", "-1"], "--seed")],
}
_ALTERNATIVE_CASES = {
    "--alternative": [(["--alternative", "one-sided"], "--alternative: invalid choice")]
}


def _levels(*values: str) -> dict[str, list[tuple[list[str], str]]]:
    """``--confidence-level`` given each of ``values``: an error naming the option."""
    return {
        "--confidence-level": [(["--confidence-level", v], "--confidence-level") for v in values]
    }


#: stands for a file holding a missing label (read without --dropna), or no file
NA_FILE, NO_FILE = "{na_file}", "{no_file}"
_ROC = ["--metric", "roc_auc", "--label", "is_angry"]

#: subcommand -> option (FILE for the input file) -> [(arguments, text the error holds)]
CLI_CASES: dict[str, dict[str, list[tuple[list[str], str]]]] = {
    "ci": {
        "FILE": [
            ([NO_FILE, "--label", "y", "--pred", "p"], "No such file"),
            ([NA_FILE, "--label", "y", "--pred", "p"], "column 'y' (--label) has 1 missing"),
            ([NA_FILE, "--example"], "either FILE or --example"),
        ],
        "--example": [(["--example=yes"], "--example")],
        "--dropna": [(["--dropna=yes"], "--dropna")],
        "--label": [(["--label", "nope"], "--label 'nope': no such column")],
        "--pred": [(["--pred", "nope"], "--pred 'nope': no such column")],
        "--score": [([*_ROC, "--score", "nope"], "--score 'nope': no such column")],
        "--value": [
            (["--metric", "mean", "--value", "nope"], "--value 'nope': no such column"),
            (["--metric", "mean", "--value", "label"], "column 'label' (--value) must hold num"),
        ],
        "--weight": [
            (
                ["--metric", "weighted_mean", "--value", "wer", "--weight", "nope"],
                "--weight 'nope'",
            ),
            (["--weight", "nope"], "--weight 'nope': no such column"),
            (["--weight", "label"], "column 'label' (--weight) must hold numbers"),
            (["--weight", "num_words", "--method", "wilson-cc"], "--weight with --method"),
        ],
        "--condition": [(["--condition", "nope"], "--condition 'nope': no such column")],
        "--strata": [(["--strata", "nope"], "--strata 'nope': no such column")],
        "--metric": [
            (["--metric", "nope"], "--metric 'nope': unknown metric"),
            (["--metric", ","], "--metric: give at least one metric"),
        ],
        "--method": [(["--method", "nope"], "--method: invalid choice")],
        **_RESAMPLING_CASES,
        **_levels("95", "1.5", "0", "x"),
        **_ALTERNATIVE_CASES,
        "--two-stage": [
            (["--two-stage"], "--two-stage needs --condition"),
            (["--two-stage=yes"], "--two-stage"),
        ],
        "--pos-label": [([*_ROC, "--score", "score_angry", "--pos-label", "7"], "--pos-label 7")],
        "--average": [(["--average", "nope"], "--average: invalid choice")],
        "--beta": [
            (["--metric", "fbeta", "--average", "macro", "--beta", "-1"], "--beta"),
            (["--metric", "fbeta", "--average", "macro", "--beta", "x"], "--beta"),
        ],
        "--kappa-weights": [
            (["--metric", "cohen_kappa", "--kappa-weights", "cubic"], "--kappa-weights")
        ],
        **_OUTPUT_CASES,
        "--engine": [
            (["--engine", "nope"], "--engine: invalid choice"),
            (["--engine", "duckdb", "--two-stage", "--condition", "speaker"], "--two-stage"),
            ([NA_FILE, "--engine", "duckdb"], "either FILE or --example"),
            (["--engine", "duckdb", "--label", "nope"], "--label: no column 'nope'"),
        ],
        "--score-bins": [
            (["--score-bins", "1"], "--score-bins"),
            (["--score-bins", "x"], "--score-bins"),
            (["--score-bins", "64"], "--score-bins quantises scores inside DuckDB"),
        ],
        "--json": [(["--json=yes"], "--json")],
        "--digits": [(["--digits", "x"], "--digits"), (["--digits", "99"], "--digits")],
    },
    "compare": {
        "FILE": [
            ([NO_FILE, "--label", "y", "--systems", "p,q"], "No such file"),
            ([NA_FILE, "--label", "y", "--systems", "p,q"], "column 'y' (--label) has 1 missing"),
            ([NA_FILE, "--example"], "either FILE or --example"),
        ],
        "--example": [(["--example=yes"], "--example")],
        "--dropna": [(["--dropna=yes"], "--dropna")],
        "--label": [(["--label", "nope"], "--label 'nope': no such column")],
        "--systems": [
            (["--systems", "pred,nope"], "--systems 'nope': no such column"),
            (["--systems", "pred"], "--systems: give at least two"),
        ],
        "--weight": [
            (["--weight", "nope"], "--weight 'nope': no such column"),
            (["--weight", "label"], "column 'label' (--weight) must hold numbers"),
            (["--weight", "num_words", "--test", "mcnemar"], "--weight needs --test bootstrap"),
        ],
        "--condition": [(["--condition", "nope"], "--condition 'nope': no such column")],
        "--strata": [(["--strata", "nope"], "--strata 'nope': no such column")],
        "--metric": [(["--metric", "nope"], "--metric 'nope': unknown metric")],
        "--reference": [(["--reference", "nope"], "--reference 'nope'")],
        "--margin": [
            (["--margin", "x"], "--margin"),
            (["--margin", "-1"], "--margin must be a positive"),
            (["--margin", "0.05", "--test", "permutation"], "--margin needs --test"),
        ],
        "--correction": [(["--correction", "nope"], "--correction: invalid choice")],
        "--method": [(["--method", "nope"], "--method: invalid choice")],
        **_RESAMPLING_CASES,
        **_levels("95", "1.5", "0"),
        "--pos-label": [
            ([*_ROC, "--systems", "score_angry,score_sad", "--pos-label", "7"], "--pos-label 7")
        ],
        "--average": [
            (["--average", "nope"], "--average: invalid choice"),
            (["--metric", "f1"], "--average macro"),  # multiclass labels
        ],
        "--system-column": [
            (["--system-column", "nope"], "--systems (a wide table) or --system-column"),
            (["--systems", "", "--system-column", "speaker"], "missing: --sample-column"),
        ],
        "--sample-column": [
            (["--systems", "", "--sample-column", "utterance"], "missing: --system-column"),
        ],
        "--output-column": [
            (["--systems", "", "--output-column", "pred"], "missing: --system-column"),
        ],
        "--test": [
            (["--test", "wilcoxon"], "--test: invalid choice"),
            (["--test", "delong", "--metric", "f1"], "--test delong compares roc_auc"),
            (["--test", "mcnemar", "--condition", "speaker"], "--test mcnemar assumes independent"),
        ],
        "--variant": [
            (["--variant", "nope"], "--variant: invalid choice"),
            (["--variant", "exact"], "--variant is an option of --test mcnemar"),
        ],
        **_ALTERNATIVE_CASES,
        **_OUTPUT_CASES,
    },
    "scores": {
        "FILE": [
            ([NO_FILE, "--label", "y", "--score", "p"], "No such file"),
            ([NA_FILE, "--label", "y", "--score", "p"], "column 'y' (--label) has 1 missing"),
            ([NA_FILE, "--example"], "either FILE or --example"),
        ],
        "--max-fpr": [(["--max-fpr", "1.5"], "--max-fpr"), (["--max-fpr", "x"], "--max-fpr")],
        "--youden": [
            (["--youden=yes"], "--youden"),
            (["--youden", "--condition", "speaker"], "--youden resamples"),
        ],
        "--example": [(["--example=yes"], "--example")],
        "--dropna": [(["--dropna=yes"], "--dropna")],
        "--label": [
            (["--label", "nope"], "--label 'nope': no such column"),
            (["--label", "label"], "--label 'label'"),  # four classes: not binary
        ],
        "--score": [
            (["--score", "nope"], "--score 'nope': no such column"),
            (["--score", "label"], "column 'label' (--score) must hold numbers"),
        ],
        "--condition": [(["--condition", "nope"], "--condition 'nope': no such column")],
        "--strata": [(["--strata", "nope"], "--strata 'nope': no such column")],
        "--group": [(["--group", "nope"], "--group 'nope': no such column")],
        "--weight": [
            (["--weight", "nope"], "--weight 'nope': no such column"),
            (["--weight", "is_angry"], "--weight 'is_angry' is zero on every negative"),
        ],
        "--p-target": [(["--p-target", "1.5"], "--p-target"), (["--p-target", "x"], "--p-target")],
        "--c-miss": [(["--c-miss", "-1"], "--c-miss")],
        "--c-fa": [(["--c-fa", "0"], "--c-fa")],
        "--llr": [(["--llr=yes"], "--llr")],
        "--threshold": [
            (["--threshold", "x"], "--threshold"),
            (["--threshold", "inf"], "--threshold"),
        ],
        "--at-fpr": [(["--at-fpr", "0"], "--at-fpr"), (["--at-fpr", "a"], "--at-fpr")],
        "--at-fnr": [(["--at-fnr", "1"], "--at-fnr")],
        "--group-metric": [
            (["--group", "session", "--group-metric", "fnr"], "--group-metric fnr is a rate"),
            (
                ["--group", "session", "--group-metric", "nope", "--threshold", "0.5"],
                "--group-metric",
            ),
        ],
        "--curve": [(["--curve", "lift"], "--curve: invalid choice")],
        "--pos-label": [(["--pos-label", "7"], "--pos-label 7")],
        "--method": [(["--method", "nope"], "--method: invalid choice")],
        **_RESAMPLING_CASES,
        **_levels("95", "1.5"),
        **_ALTERNATIVE_CASES,
        **_OUTPUT_CASES,
    },
    "datasets": {
        "FILE": [
            ([NO_FILE], "No such file"),
            ([NA_FILE], "column 'y' (--methods) has 1 missing"),
        ],
        "--dropna": [(["--dropna=yes"], "--dropna")],
        "--dataset-column": [(["--dataset-column", "nope"], "--dataset-column 'nope': no such")],
        "--methods": [
            (["--methods", "a"], "--methods: give at least two"),
            (["--methods", "a,nope"], "--methods 'nope': no such column"),
            (["--methods", "a,dataset"], "column 'dataset' (--methods) must hold numbers"),
        ],
        "--variant": [(["--variant", "f"], "--variant: invalid choice")],
        "--posthoc": [
            (["--posthoc", "tukey"], "--posthoc: invalid choice"),
            (["--posthoc", "holm"], "--posthoc holm compares every method to one: give --control"),
        ],
        "--control": [(["--posthoc", "holm", "--control", "z"], "--control 'z' is not among")],
        "--alpha": [(["--alpha", "5"], "--alpha"), (["--alpha", "x"], "--alpha")],
        "--lower-is-better": [(["--lower-is-better=yes"], "--lower-is-better")],
        **_OUTPUT_CASES,
    },
    "agreement": {
        "FILE": [
            ([NO_FILE], "No such file"),
            (
                [NA_FILE, "--item-column", "q", "--metric", "fleiss_kappa"],
                "--raters has 1 missing rating",
            ),
        ],
        "--raters": [
            (["--raters", "a"], "--raters: give at least two"),
            (["--raters", "a,nope"], "--raters 'nope': no such column"),
        ],
        "--item-column": [(["--item-column", "nope"], "--item-column 'nope': no such column")],
        "--metric": [(["--metric", "cohen"], "--metric: 'cohen'")],
        "--level": [(["--level", "nope"], "--level: invalid choice")],
        "--resample": [(["--resample", "nope"], "--resample: invalid choice")],
        "--method": [(["--method", "nope"], "--method: invalid choice")],
        **_RESAMPLING_CASES,
        **_levels("95", "x"),
        **_ALTERNATIVE_CASES,
        **{k: v for k, v in _OUTPUT_CASES.items() if k != "--plot"},
    },
    "correlate": {
        "FILE": [
            ([NO_FILE], "No such file"),
            (
                [NA_FILE, "--system", "y", "--item", "p", "--human", "q", "--metric-score", "q"],
                "column 'y' (--system) has 1 missing",
            ),
        ],
        "--dropna": [(["--dropna=yes"], "--dropna")],
        "--system": [(["--system", "nope"], "--system 'nope': no such column")],
        "--item": [
            (["--item", "nope"], "--item 'nope': no such column"),
            (["--item", "system"], "every (system, item) needs exactly one row"),
        ],
        "--human": [
            (["--human", "nope"], "--human 'nope': no such column"),
            (["--human", "system"], "column 'system' (--human) must hold numbers"),
        ],
        "--metric-score": [
            (["--metric-score", "nope"], "--metric-score 'nope': no such column"),
            (["--metric-score", ","], "--metric-score: give at least one"),
        ],
        "--coefficient": [(["--coefficient", "tau"], "--coefficient: invalid choice")],
        "--level": [(["--level", "summary"], "--level: invalid choice")],
        "--resample": [(["--resample", "inputs"], "--resample: invalid choice")],
        "--method": [(["--method", "nope"], "--method: invalid choice")],
        **_RESAMPLING_CASES,
        **_levels("95", "x"),
        **_ALTERNATIVE_CASES,
        **{k: v for k, v in _OUTPUT_CASES.items() if k != "--plot"},
    },
    "report": {
        "FILE": [
            ([NO_FILE, "--label", "y", "--score", "p"], "No such file"),
            ([NA_FILE, "--label", "y", "--score", "p"], "column 'y' (--label) has 1 missing"),
            ([NA_FILE, "--example"], "either FILE or --example"),
        ],
        "--example": [(["--example=yes"], "--example")],
        "--dropna": [(["--dropna=yes"], "--dropna")],
        "--label": [(["--label", "nope"], "--label 'nope': no such column")],
        "--score": [
            (["--score", "nope"], "--score 'nope': no such column"),
            (["--score", "label"], "column 'label' (--score) must hold numbers"),
        ],
        "--pred": [(["--pred", "pred"], "give the systems as --score COL,... (scores) or --pred")],
        "--condition": [(["--condition", "nope"], "--condition 'nope': no such column")],
        "--group": [(["--group", "nope"], "--group 'nope': no such column")],
        "--pos-label": [(["--pos-label", "7"], "--pos-label 7")],
        "--method": [(["--method", "nope"], "--method: invalid choice")],
        **_RESAMPLING_CASES,
        **_levels("95", "0"),
        "--output": [(["-o", "/nonexistent/r.html"], "--output /nonexistent/r.html: folder")],
        "--format": [(["--format", "pdf"], "--format: invalid choice")],
        "--quiet": [(["--quiet=yes"], "--quiet")],
    },
    "metrics": {
        "--json": [(["--json=yes"], "--json")],
        "--format": [(["--format", "csv"], "--format: invalid choice")],
    },
    "example": {
        "--path": [(["--path=yes"], "--path")],
        "--format": [(["--format", "xml"], "--format: invalid choice")],
    },
}

#: the options `mlci llm ci`, `compare` and `plan` share: reading the logs
_LLM_READING: dict[str, list[tuple[list[str], str]]] = {
    "PATHS": [
        ([NO_FILE], "no such file"),
        ([NA_FILE], "no column 'item'"),
        ([NA_FILE, "--example"], "either PATHS (log files or directories) or --example"),
    ],
    "--example": [(["--example=yes"], "--example")],
    "--format": [(["--format", "nope"], "--format: invalid choice")],
    "--metric": [(["--metric", "acc"], "no column 'acc'")],
    "--model": [(["--model", "x"], "duplicated row")],  # every file's rows as one model
    "--filter": [(["--filter", "x"], "--filter selects an lm-evaluation-harness filter")],
    "--condition": [(["--condition", "nope"], "no column 'nope'")],
    "--partial": [(["--partial=yes"], "--partial")],
    "--cluster": [(["--cluster", "nope"], "no column 'nope'")],  # the hidden former spelling
    "--models": [(["--models", "zz"], "--models names ['zz']")],
}
_LLM_ESTIMAND: dict[str, list[tuple[list[str], str]]] = {
    "--estimand": [(["--estimand", "nope"], "--estimand: invalid choice")],
    "--k": [(["--k", "0"], "--k must be"), (["--k", "x"], "--k"), (["--k", "2"], "--k applies")],
    "--repeats": [(["--repeats", "nope"], "--repeats: invalid choice")],
    "--aggregate": [(["--aggregate", "nope"], "--aggregate: invalid choice")],
    "--items": [(["--items", "nope"], "--items: invalid choice")],
    "--method": [(["--method", "nope"], "--method: invalid choice")],
    **_RESAMPLING_CASES,
    **_levels("95", "1.5", "x"),
    **_ALTERNATIVE_CASES,
    "--json": [(["--json=yes"], "--json")],
}
CLI_CASES["llm ci"] = {**_LLM_READING, **_LLM_ESTIMAND}
CLI_CASES["llm compare"] = {
    **_LLM_READING,
    **_LLM_ESTIMAND,
    "--reference": [(["--reference", "nope"], "--reference 'nope' is not among the models")],
    "--correction": [(["--correction", "nope"], "--correction: invalid choice")],
}
CLI_CASES["llm plan"] = {
    **_LLM_READING,
    "--models": [
        (["--models", "zz,x"], "--models 'zz' is not a model"),
        (["--models", "model-a"], "two"),
    ],
    "--difference": [(["--difference", "0"], "--difference"), (["--difference", "x"], "--diff")],
    "--power": [(["--power", "1.5"], "--power")],
    "--alpha": [(["--alpha", "0"], "--alpha")],
    "--plan-repeats": [(["--plan-repeats", "0"], "--plan-repeats")],
    "--json": [(["--json=yes"], "--json")],
}


# `mlci mt` and `mlci ir` (corpus MT metrics, IR ranking): their bundled examples; the
# file options' own errors (missing file, bad line) are tested in tests/mt and tests/ir
CLI_BASE["mt ci"] = ["mt", "ci", "--example", "-B", "20", "--seed", "0"]
CLI_BASE["mt compare"] = ["mt", "compare", "--example", "-B", "20", "--seed", "0"]
CLI_BASE["ir ci"] = ["ir", "ci", "--example", "-B", "20", "--seed", "0"]
CLI_BASE["ir compare"] = ["ir", "compare", "--example", "-B", "20", "--seed", "0"]
_FAMILY_COMMON: dict[str, list[tuple[list[str], str]]] = {
    "--example": [(["--example=yes"], "--example")],
    **_RESAMPLING_CASES,
    **_levels("95"),
    "--method": [(["--method", "nope"], "--method: invalid choice")],
    **_OUTPUT_CASES,
}
del _FAMILY_COMMON["--plot"]
_MT_COMMON: dict[str, list[tuple[list[str], str]]] = {
    **_FAMILY_COMMON,
    "--refs": [(["-r", NA_FILE], "--example replaces --refs")],
    "--input": [(["-i", NA_FILE], "--example replaces --refs, --input")],
    "--documents": [(["--documents", NA_FILE], "--example replaces --refs, --input and --doc")],
    "--metric": [(["--metric", "ter"], "--metric must be bleu, chrf")],
    "--tokenize": [(["--tokenize", "zz"], "--tokenize 'zz' is not a sacreBLEU tokenizer")],
    "--lowercase": [(["--lowercase=yes"], "--lowercase")],
}
CLI_CASES["mt ci"] = dict(_MT_COMMON)
CLI_CASES["mt compare"] = {
    **_MT_COMMON,
    "--test": [(["--test", "wilcoxon"], "--test: invalid choice")],
    "--baseline": [(["--baseline", "zz"], "--baseline 'zz' is not one of the --input files")],
    "--correction": [(["--correction", "nope"], "--correction: invalid choice")],
}
_IR_COMMON: dict[str, list[tuple[list[str], str]]] = {
    **_FAMILY_COMMON,
    "RUNS": [([NA_FILE], "--example replaces RUNS and --qrels")],
    "--qrels": [(["--qrels", NA_FILE], "--example replaces RUNS and --qrels")],
    "--measure": [(["--measure", "ndcg@x"], "--measure 'ndcg@x' is not a measure")],
    "--missing": [(["--missing", "skip"], "--missing: invalid choice")],
}
CLI_CASES["ir ci"] = dict(_IR_COMMON)
CLI_CASES["ir compare"] = {
    **_IR_COMMON,
    "--test": [(["--test", "wilcoxon"], "--test: invalid choice")],
    "--reference": [(["--reference", "zz"], "--reference 'zz' is not one of the runs")],
    "--correction": [(["--correction", "nope"], "--correction: invalid choice")],
}
# counts per row (tests/test_cli_frequency_weights.py has the rest)
for _cmd in ("ci", "compare", "scores"):
    CLI_CASES[_cmd]["--frequency-weight"] = [
        (["--frequency-weight", "nope"], "--frequency-weight 'nope': no such column"),
        (["--frequency-weight", "wer"], "column 'wer' (--frequency-weight) must hold counts"),
    ]


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    """Every (sub)subcommand's parser: ``"ci"``, ..., ``"llm ci"`` (nested ones flattened)."""

    def children(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        sub = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        return dict(sub[0].choices) if sub else {}

    out = {}
    for name, parser in children(mlci.cli.build_parser()).items():
        nested = children(parser)
        out.update({f"{name} {k}": v for k, v in nested.items()} if nested else {name: parser})
    return out


def _cli_options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The user's inputs of a subcommand: option (its long spelling) or FILE -> action."""
    out = {}
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        key = action.option_strings[-1] if action.option_strings else action.dest.upper()
        out[key] = action
    return out


def test_cli_matrix_covers_every_option():
    # a new subcommand or option joins CLI_CASES, or this fails
    subs = _subparsers()
    assert set(subs) == set(CLI_CASES), "subcommands without a CLI_CASES entry (or gone)"
    for name, parser in subs.items():
        options = set(_cli_options(parser))
        missing = sorted(options - set(CLI_CASES[name]))
        assert not missing, f"`mlci {name}` options with no bad value in CLI_CASES: {missing}"
        stale = sorted(set(CLI_CASES[name]) - options)
        assert not stale, f"CLI_CASES lists options `mlci {name}` does not have: {stale}"
        assert all(CLI_CASES[name].values()), f"an option of `mlci {name}` has no case"


@pytest.mark.parametrize("command", list(CLI_BASE))
def test_cli_base_commands_run(tmp_path, capsys, command):
    ds_file = tmp_path / "ds.csv"
    ds_file.write_text(DS_TEXT)
    meta_file = tmp_path / "meta.csv"
    meta_file.write_text(META_TEXT)
    paths = {
        DS_FILE: str(ds_file),
        META_FILE: str(meta_file),
        OUT_FILE: str(tmp_path / "report.html"),
    }
    code, _, err = _cli(capsys, [paths.get(a, a) for a in CLI_BASE[command]])
    assert code == 0, err


def _cli_cases() -> list[Any]:
    cases = []
    for command, options in CLI_CASES.items():
        for option, bad in options.items():
            for args, expect in bad:
                ident = f"{command}-{option}-{' '.join(args)}"
                cases.append(pytest.param(command, option, args, expect, id=ident))
    return cases


@pytest.mark.parametrize(("command", "option", "args", "expect"), _cli_cases())
def test_cli_bad_value_is_one_line_naming_it(tmp_path, capsys, command, option, args, expect):
    na_file = tmp_path / "na.csv"
    na_file.write_text("y,p,q\n0,0,0\n1,1,0\nNA,1,1\n0,0,1\n")
    ds_file = tmp_path / "ds.csv"
    ds_file.write_text(DS_TEXT)
    meta_file = tmp_path / "meta.csv"
    meta_file.write_text(META_TEXT)
    paths = {
        META_FILE: str(meta_file),
        NA_FILE: str(na_file),
        NO_FILE: str(tmp_path / "missing.csv"),
        DS_FILE: str(ds_file),
        OUT_FILE: str(tmp_path / "report.html"),
    }
    args = [paths.get(a, a) for a in args]
    base = [paths.get(a, a) for a in CLI_BASE[command]]
    if option in ("FILE", "PATHS"):  # the file instead of the example (unless the case adds it)
        base = [a for a in base if a not in ("--example", str(ds_file), str(meta_file))]
    code, out, err = _cli(capsys, [*base, *args])
    assert code == 2, f"exit status {code}: {err or out}"
    assert out == ""
    assert err.startswith("mlci: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert expect in err, err
    if paths[NO_FILE] in args:
        assert paths[NO_FILE] in err  # the file is named
    # never a Python argument in backticks (`y_true`), only options of this subcommand
    assert not re.search(r"`\w+`", err), err
    known = {s for a in _subparsers()[command]._actions for s in a.option_strings}
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", err))
    assert named <= known, f"options that `mlci {command}` does not have: {named - known}"


def _results_in(out: Any) -> list[Any]:
    """Every mlci result object in a driver's output (a result, a tuple or mapping of them)."""
    if isinstance(out, mlci.results.Result):
        return [out]
    if isinstance(out, tuple | list):
        return [r for x in out for r in _results_in(x)]
    if isinstance(out, dict):
        return [r for x in out.values() for r in _results_in(x)]
    return []


@pytest.mark.parametrize("name", list(REGISTRY))
def test_to_dict_is_strict_json(name):
    # issue 20: to_dict() kept inf (a one-sided interval's open end) and NaN, which
    # json.dumps writes as the non-standard tokens Infinity and NaN
    found = _results_in(REGISTRY[name].run())
    for res in found:
        json.dumps(res.to_dict(), allow_nan=False)
