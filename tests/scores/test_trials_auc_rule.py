"""trial_bootstrap_ci's ROC AUC under auc_ci's class rules (mlci.engine.auc_class).

Design search seed 11, scores #40: 47 speakers x 2 recordings (47 target trials), AUC
0.996; BCa covered 0.780 of 300 test sets, unwarned, where auc_ci of the same scores
warns.  The rule is the shared one (few_auc_class / near_edge_auc), not a copy.
"""

from __future__ import annotations

import warnings

import numpy as np

import mlci
from mlci.engine.auc_class import near_edge_auc_rule


def _trials(n_spk: int, per: int, sep: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    spk = np.repeat(np.arange(n_spk), per)
    ids = np.array([f"r{i}" for i in range(len(spk))])
    e, t = np.triu_indices(len(spk), k=1)
    lab = (spk[e] == spk[t]).astype(int)
    u = 0.2 * rng.standard_normal(n_spk)
    sc = sep * lab + u[spk[e]] + u[spk[t]] + rng.standard_normal(len(lab))
    return (
        lab,
        sc,
        {"enroll_ids": ids[e], "test_ids": ids[t], "speaker_of": dict(zip(ids, spk, strict=True))},
    )


def _caught(lab, sc, kw, **opts):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mlci.trial_bootstrap_ci(
            lab, sc, metric="roc_auc", n_resamples=200, rng=0, **kw, **opts
        )
    return res, [w for w in caught if issubclass(w.category, mlci.FewConditionsWarning)]


def test_near_bound_trial_auc_warns_as_auc_ci() -> None:
    lab, sc, kw = _trials(47, 2, sep=3.8)  # 47 targets, AUC near 0.996
    res, caught = _caught(lab, sc, kw)
    assert int(lab.sum()) == 47 and near_edge_auc_rule(47, res.estimate)
    assert len(caught) == 1
    assert str(caught[0].message).startswith("Only 47 samples in the smaller class of a ROC AUC")
    assert res.details["few_samples_warning"] == str(caught[0].message)
    # auc_ci of the same scores warns from the same rule (its text: the same start)
    with warnings.catch_warnings(record=True) as other:
        warnings.simplefilter("always")
        mlci.auc_ci(mlci.Scores.from_labels(lab, sc), n_resamples=200, rng=0)
    assert any(str(w.message).startswith("Only 47 samples") for w in other)


def test_few_targets_warn_under_any_method() -> None:
    lab, sc, kw = _trials(12, 2, sep=1.0)  # 12 targets: below MIN_AUC_CLASS (20)
    _, caught = _caught(lab, sc, kw, method="percentile")
    texts = [str(w.message) for w in caught]  # (and the 12 speakers' own warning)
    auc = [m for m in texts if m.startswith("Only 12 samples in the smaller class")]
    assert len(auc) == 1 and "percentile interval" in auc[0]


def test_well_behaved_trial_auc_is_quiet() -> None:
    lab, sc, kw = _trials(40, 3, sep=1.5)  # 120 targets, AUC about 0.85
    res, caught = _caught(lab, sc, kw)
    assert int(lab.sum()) == 120 and 0.75 < res.estimate < 0.92
    assert caught == [] and "few_samples_warning" not in res.details
