"""No public function takes more than 15 parameters, except where this table says why.

Issue 23 ("signatures shrink"): the engine knobs that never change a result live in
``mlci.config_context`` and the rarely changed resampling details in one
``mlci.Resampling`` argument.  A public callable (a function of ``mlci.__all__``, the
constructor of one of its classes, or a public method) over the limit fails here unless it
is listed in ``EXEMPT`` with the reason; an entry that no longer applies (the callable is
back under the limit, or gone) fails too, so the table only shrinks.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import mlci

LIMIT = 15

#: result classes: built by the library (their fields are the attributes users read),
#: never called with arguments by users
_RESULT = "a result record built by the library; its parameters are the fields users read"

#: callable -> why it takes more than LIMIT parameters (each still a glossary term or
#: documented; issue 23)
EXEMPT: dict[str, str] = {
    "BootstrapResult": _RESULT,
    "BootstrapErrorResult": _RESULT,
    "ComparisonResult": _RESULT,
    "CVResult": _RESULT,
    "MarginTest": _RESULT,
    "OOBResult": _RESULT,
    "PairDifference": _RESULT,
    "PooledResult": _RESULT,
    # bootstrap_ci's 15 plus four choices only a comparison has, each changing its
    # result: `reference` (which pairs), `correction` (multiplicity), `higher_is_better`
    # (the ranking), `margin` (non-inferiority tests)
    "compare": "bootstrap_ci's options and four of a comparison: reference, correction, "
    "higher_is_better, margin",
    # the operating point of Scores.bootstrap_ci (threshold, rate, at, interpolation,
    # score_class, equal_class) and the disparity (groups, normalize) on top of
    # bootstrap_ci's (its resampling details in `resampling=`, like every driver's)
    "metric_by_group": "the operating point of Scores plus the disparity (groups, "
    "normalize) plus bootstrap_ci's options",
    # two forms of input: a function train_and_predict(idx, seed), or an estimator with
    # X_train, y_train, X_test and response; then the test-set bootstrap's options
    "evaluate_method": "two input forms (a function, or an estimator with X_train, y_train, "
    "X_test, response) and the pooled bootstrap's options",
    # reduce_table's source and reduction options (engine, score_bins, max_rows,
    # memory_limit, temp_directory) with AtomTable.bootstrap_ci's; the two-step spelling
    # reduce_table(...).bootstrap_ci(...) has fewer than 15 each
    "reduce_ci": "reduce_table's options plus AtomTable.bootstrap_ci's (the one-call form "
    "of the two steps)",
    # a trial list's structure: enroll_ids, test_ids, speaker_of, session_of, resample,
    # same_speaker (the joint bootstrap of speakers and trials)
    "trial_bootstrap_ci": "a trial list's structure (enroll_ids, test_ids, speaker_of, "
    "session_of, resample, same_speaker)",
    # the cost model of NIST SRE's DCF: p_target, c_miss, c_fa (and kind, normalize)
    "dcf_ci": "the DCF's cost model (p_target, c_miss, c_fa, kind, normalize)",
    # cross_val_ci's 15 with a second estimator
    "cross_val_compare": "cross_val_ci's parameters with a second estimator",
}


def _count(obj: Any) -> int:
    """Parameters a user writes: not self/cls, *args, **kwargs (a ``**deprecated``
    catch-all of old spellings is not a parameter)."""
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    params = inspect.signature(obj).parameters.values()
    return sum(1 for p in params if p.name not in ("self", "cls") and p.kind not in kinds)


def _public() -> Iterator[tuple[str, Any]]:
    for name in mlci.__all__:
        obj = getattr(mlci, name)
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            continue
        yield name, obj
        if not inspect.isclass(obj):
            continue
        for attr in dir(obj):
            if attr.startswith("_"):
                continue
            raw = inspect.getattr_static(obj, attr)
            func = raw.__func__ if isinstance(raw, classmethod | staticmethod) else raw
            if inspect.isfunction(func) and func.__module__.startswith("mlci"):
                yield f"{name}.{attr}", func


COUNTS = {name: _count(obj) for name, obj in _public()}


def test_the_api_is_collected() -> None:
    assert {"bootstrap_ci", "compare", "Scores.bootstrap_ci", "Resampling"} <= set(COUNTS)


def test_no_public_function_over_the_limit() -> None:
    over = {n: c for n, c in sorted(COUNTS.items()) if c > LIMIT and n not in EXEMPT}
    assert not over, (
        f"more than {LIMIT} parameters (fold details into mlci.Resampling, knobs into "
        f"mlci.config_context, or add to EXEMPT with the reason): {over}"
    )


def test_no_stale_exemption() -> None:
    stale = [n for n in EXEMPT if COUNTS.get(n, 0) <= LIMIT]
    assert not stale, f"back under {LIMIT} parameters (or gone): remove from EXEMPT: {stale}"


def test_the_drivers_that_shrank() -> None:
    """The drivers issue 23 shrank stay shrunk (before: 23, 25, 18, 20, 20, 17)."""
    for name in ("bootstrap_ci", "Scores.bootstrap_ci", "ConfusionMatrix.bootstrap_ci",
                 "auc_ci", "operating_point_ci", "eer_ci"):  # fmt: skip
        assert COUNTS[name] <= LIMIT, name
