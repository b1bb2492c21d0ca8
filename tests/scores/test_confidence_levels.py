"""A list of confidence levels on every driver returning one interval: each level of the
list equals the single-level call with the same seed."""

from __future__ import annotations

import numpy as np
import pytest

import mlci
from mlci import Scores

# few replicates keep these checks fast (20 at 95%, 199 at 99%: under one replicate
# expected beyond a bound); FewResamplesWarning is tested in tests/engine/test_guards.py
pytestmark = pytest.mark.filterwarnings("ignore::mlci.FewResamplesWarning")

RNG = np.random.default_rng(0)
S = Scores(RNG.normal(1.5, 1, 150), RNG.normal(0, 1, 150))
LEVELS = [0.8, 0.95, 0.99]
KW = {"rng": 7, "n_resamples": 199}
# verification trials: 40 recordings of 20 speakers, every pair a trial
# 3 recordings per speaker: 60 target trials, enough errors for the EER's interval
# (fewer than 5 in a class warn, mlci.engine.scores_rules.MIN_EER_ERRORS)
T_SPK = np.repeat(np.arange(20), 3)
T_IDS = np.array([f"r{i}" for i in range(60)])
T_E, T_T = np.triu_indices(60, k=1)
T_LAB = (T_SPK[T_E] == T_SPK[T_T]).astype(int)
T_SC = np.random.default_rng(1).normal(2.0 * T_LAB, 1.0)
T_SPK_OF = dict(zip(T_IDS.tolist(), T_SPK.tolist(), strict=True))


def _bounds(res):
    """Every interval of a result (BootstrapResult, EERResult, a pair, a comparison)."""
    if isinstance(res, tuple):
        return np.concatenate([_bounds(r) for r in res])
    if hasattr(res, "eer"):
        return np.concatenate([_bounds(res.eer), _bounds(res.threshold)])
    if hasattr(res, "differences") or type(res).__name__ == "ComparisonResult":
        return res.to_frame()[["low", "high"]].to_numpy(dtype=float).ravel()
    return np.ravel(np.asarray(res.confidence_interval, dtype=float))


DRIVERS = {
    "eer_ci": lambda **k: mlci.eer_ci(S, **KW, **k),
    "dcf_ci": lambda **k: mlci.dcf_ci(S, p_target=0.1, **KW, **k),
    "cllr_ci": lambda **k: mlci.cllr_ci(Scores(S.pos - 0.7, S.neg - 0.7), **KW, **k),
    "auc_ci": lambda **k: mlci.auc_ci(S, **KW, **k),
    "operating_point_ci": lambda **k: mlci.operating_point_ci(S, rate="fnr", at=0.1, **KW, **k),
    "compare": lambda **k: mlci.compare(
        (RNG_Y := np.random.default_rng(1).integers(0, 2, 120)),
        {"a": RNG_Y, "b": np.where(np.arange(120) % 5 == 0, 1 - RNG_Y, RNG_Y)},
        metric="accuracy",
        **KW,
        **k,
    ),
    "bootstrap_ci": lambda **k: S.bootstrap_ci("eer", **KW, **k),
    "ConfusionMatrix.bootstrap_ci": lambda **k: mlci.ConfusionMatrix(
        y_true=np.arange(200) % 2, y_pred=(np.arange(200) % 2) ^ (np.arange(200) % 7 == 0)
    ).bootstrap_ci("accuracy", **KW, **k),
    "trial_bootstrap_ci": lambda **k: mlci.trial_bootstrap_ci(
        T_LAB, T_SC, enroll_ids=T_IDS[T_E], test_ids=T_IDS[T_T], speaker_of=T_SPK_OF, **KW, **k
    ),
}


@pytest.mark.parametrize("name", sorted(DRIVERS))
def test_each_level_equals_a_single_level_call(name):
    drive = DRIVERS[name]
    several = drive(confidence_level=LEVELS)
    assert isinstance(several, tuple) and len(several) == len(LEVELS)
    widths = []
    for lv, res in zip(LEVELS, several, strict=True):
        one = drive(confidence_level=lv)
        assert type(res) is type(one)
        np.testing.assert_allclose(_bounds(res), _bounds(one), rtol=0, atol=1e-12)
        b = _bounds(res)
        widths.append(np.nansum(b[1::2] - b[0::2]))
    # wider at a higher level (the levels are really applied)
    assert widths[0] < widths[-1]


@pytest.mark.parametrize("name", sorted(DRIVERS))
def test_bad_level_list_is_refused(name):
    for bad in ([], [0.9, 95]):
        with pytest.raises(ValueError, match="`confidence_level`"):
            DRIVERS[name](confidence_level=bad)


def test_generator_rng_gives_the_single_call_of_the_same_state():
    a = mlci.auc_ci(S, rng=np.random.default_rng(5), n_resamples=199, confidence_level=[0.9])
    b = mlci.auc_ci(S, rng=np.random.default_rng(5), n_resamples=199, confidence_level=0.9)
    np.testing.assert_array_equal(_bounds(a[0]), _bounds(b))
