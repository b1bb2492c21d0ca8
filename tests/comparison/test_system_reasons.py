"""Each system's interval in ``mlci.compare`` says what ``bootstrap_ci`` says of it.

Issue 20, item 4 (one method resolution): a system's row of ``compare`` is the interval
``bootstrap_ci`` gives that system alone, so its ``method`` and ``method_reason`` must be
``bootstrap_ci``'s, word for word (before, the systems' ``method_reason`` was missing, or
only the near-edge clause without the "studentized: ..." opening that says which
interval gave way).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mlci


def _labels(n, acc_a, acc_b, prevalence=0.5, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(int)
    a = np.where(rng.random(n) < acc_a, y, 1 - y)
    b = np.where(rng.random(n) < acc_b, y, 1 - y)
    return y, a, b


def _scores(n, sd_a, sd_b, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, y + rng.normal(0, sd_a, n), y + rng.normal(0, sd_b, n)


CASES = {
    # a proportion of independent samples: wilson_modified
    "accuracy": ("accuracy", _labels(200, 0.8, 0.75), {}),
    # a proportion over conditions: logit_t
    "recall over conditions": (
        "recall",
        _labels(300, 0.8, 0.75, seed=4),
        {"conditions": np.repeat(np.arange(30), 10)},
    ),
    # studentized
    "f1": ("f1", _labels(200, 0.8, 0.75), {}),
    # studentized giving way near the edge (1-3 errors): "studentized: ...; korn_graubard: ..."
    "f1 near the edge": ("f1", _labels(100, 0.99, 0.97, seed=3), {}),
    # studentized giving way to balanced accuracy's MOVER interval near the edge
    "balanced accuracy near the edge": (
        "balanced_accuracy",
        _labels(100, 0.99, 0.97, seed=3),
        {},
    ),
    "mcc over conditions": (
        "mcc",
        _labels(300, 0.8, 0.75, seed=4),
        {"conditions": np.repeat(np.arange(30), 10)},
    ),
    "roc_auc": ("roc_auc", _scores(200, 1.0, 1.5), {}),
    # no linearization: bca, and why
    "average_precision": ("average_precision", _scores(200, 1.0, 1.5), {}),
    # an explicit method: no reason on either side
    "f1 bca": ("f1", _labels(200, 0.8, 0.75), {"method": "bca"}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_system_method_and_reason_are_bootstrap_cis(case):
    metric, (y, a, b), kw = CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # near-edge and few-discordant warnings
        res = mlci.compare(y, {"a": a, "b": b}, metric=metric, rng=1, **kw)
        for name, x in (("a", a), ("b", b)):
            alone = mlci.bootstrap_ci(y, x, metric=metric, rng=1, **kw)
            got = res.systems[name]
            assert got.method == alone.method, (case, name)
            assert got.details.get("method_reason") == alone.details.get("method_reason"), (
                case,
                name,
            )
    reason = res.systems["a"].details.get("method_reason")
    if kw.get("method", "auto") == "auto":
        assert reason, case  # auto always says why
    else:
        assert reason is None


def test_studentized_reason_keeps_its_opening_near_the_edge():
    # the case the review found: one system near the edge, its studentized interval
    # replaced by Korn & Graubard's; the reason says both, in bootstrap_ci's order
    y, a, b = _labels(100, 0.99, 0.97, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mlci.compare(y, {"a": a, "b": b}, metric="f1", rng=1)
    reason = res.systems["a"].details["method_reason"]
    assert reason.startswith("studentized: bootstrap-t"), reason
    assert "; korn_graubard: " in reason, reason
    # the comparison's own reason (about the differences) is unchanged in kind
    assert res.details["method_reason"].startswith("systems: ")
