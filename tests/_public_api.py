"""The registry of the public-API matrix (tests/test_public_api_*.py): one matrix of bad
inputs over the whole public API (issue 8), as scikit-learn tests its public functions
(sklearn/tests/test_public_functions.py).

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

The tests are split by topic: the registry itself and every result's JSON
(``test_public_api_registry.py``), the options (``test_public_api_options.py``), the
per-sample and table arguments (``test_public_api_samples.py``) and the command line
(``test_public_api_cli.py``); :data:`PUBLIC_API_MARKS` is their ``pytestmark``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import mlci
import mlci.cli
from _helpers import CV5X2_A, CV5X2_B, DATASETS, FOLDS_A, FOLDS_B, PVALUES, TABLE
from mlci import ConfusionMatrix, Scores
from mlci.data import llm_example_path

# oob_ci warns at every call that its interval is approximate (tested where it is defined)
# and bootstrap632_ci for its .632/.632+ variants
PUBLIC_API_MARKS = [
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


# ----------------------------------------------------------------------------------------
# the checks every bad input must pass
# ----------------------------------------------------------------------------------------
#: the package's own directory: an error must be raised by code in it
PACKAGE = Path(mlci.__file__).resolve().parent


def _innermost_file(tb: Any) -> Path:
    while tb.tb_next is not None:
        tb = tb.tb_next
    return Path(tb.tb_frame.f_code.co_filename).resolve()


def refused(call: Callable[[], Any], pattern: str) -> BaseException:
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


def named(*names: str) -> str:
    """A message that names one of ``names`` in backticks (`y_true`, `pos_label`='x')."""
    return "|".join(rf"`{re.escape(n)}(?![\w])" for n in names)


def functions_of(api: Api) -> list[Api]:
    """Every registry entry of the same public callable (one signature)."""
    return [a for a in REGISTRY.values() if a.fn == api.fn]


def data_params(api: Api) -> set[str]:
    """Signature parameters that carry data in some entry of the same callable."""
    out: set[str] = set()
    for a in functions_of(api):
        out |= set(a.per_sample) | set(a.tables) | set(a.adapted)
    return out
